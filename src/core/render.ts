import { App, Chart } from 'cdk8s';
import { Construct } from 'constructs';
import { formatFieldErrors } from '../schema';
import { AnyKind, CustomResource, KindDefinition, validateResource } from './kind';
import { childLabels } from './names';

/** A Kubernetes object as plain JSON, ready to apply. */
export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string>; [key: string]: unknown };
  [key: string]: unknown;
}

/**
 * The chart one resource's children live in: their namespace defaults to the owner's, and
 * every object gets the owner's labels. Synth previews use it inside the app; the render
 * command and the controller use `renderChildren`.
 */
export class ChildrenChart extends Chart {
  constructor(scope: Construct, id: string, kind: AnyKind, resource: CustomResource<unknown, unknown>) {
    super(scope, id, { namespace: resource.metadata.namespace, labels: childLabels(kind, resource), disableResourceNameHashes: true });
  }
}

/**
 * Renders one resource's children in a fresh in-memory app (a construct cannot be removed
 * from a tree, so every render starts from nothing) and returns them as JSON.
 */
export function renderChildren<Spec, Observation>(
  kind: Pick<KindDefinition<Spec, unknown, Observation>, 'render'> & AnyKind,
  resource: CustomResource<Spec>,
  observation?: Observation,
): Manifest[] {
  const chart = new ChildrenChart(new App(), 'children', kind, resource);
  kind.render(chart, resource, observation);
  return chart.toJson() as Manifest[];
}

/**
 * What a resource declared in a file will get, before the cluster is asked anything: its
 * children rendered without an observation, or why its spec is invalid
 * (`<Kind> <name> is invalid: <field>: <problem>`).
 */
export function previewChildren(kind: AnyKind, object: Record<string, unknown>): { ok: true; children: Manifest[] } | { ok: false; message: string } {
  const resource = object as unknown as CustomResource;
  const result = validateResource(kind, object);
  if (!result.ok) return { ok: false, message: `${kind.kind} ${resource.metadata.name} is invalid: ${formatFieldErrors(result.errors)}` };
  return { ok: true, children: renderChildren(kind, { ...resource, spec: result.spec }) };
}
