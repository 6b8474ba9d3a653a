import type { Chart } from 'cdk8s';
import { formatFieldErrors } from '../schema';
import { SYSTEM_CLOCK } from './contract/clock';
import { AnyKind, Clock, CustomResource, KindDefinition } from './contract/kind';
import { validateResource } from './contract/validation';
import type { KubeJson } from './contract/kube-json';
import { childLabels, withoutEngineLabels } from './kit/names';

/** A Kubernetes object as plain JSON, ready to apply. */
export type Manifest = KubeJson;

/**
 * Renders one resource's children in a fresh in-memory app (a construct cannot be removed
 * from a tree, so every render starts from nothing) and returns them as JSON. Their chart
 * puts them in the owner's namespace unless they name one, and gives each the owner's labels
 * (`Chart.of(scope).labels` inside a kind's constructs). Those are set last, over whatever the
 * constructs gave (cdk8s lets an object's own labels win over its chart's), and no other engine
 * label is kept: a child always says which owner it is, never another's.
 */
export function renderChildren<Spec, Observation>(
  kind: Pick<KindDefinition<Spec, unknown, Observation>, 'render'> & AnyKind,
  resource: CustomResource<Spec>,
  observation?: Observation,
  clock: Clock = SYSTEM_CLOCK,
): Manifest[] {
  // cdk8s loads with the first render, as a kind's constructs do (see KindConstructs).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const cdk8s = require('cdk8s') as typeof import('cdk8s');
  const chart: Chart = new cdk8s.Chart(new cdk8s.App(), 'children', {
    namespace: resource.metadata.namespace,
    labels: childLabels(kind, resource),
    disableResourceNameHashes: true,
  });
  kind.render(chart, resource, observation, clock);
  const labels = childLabels(kind, resource);
  return (chart.toJson() as Manifest[]).map((child) => ({ ...child, metadata: { ...child.metadata, labels: { ...withoutEngineLabels(child.metadata.labels as Record<string, string> | undefined), ...labels } } }));
}

/**
 * What a resource declared in a file will get, before the cluster is asked anything: its
 * children rendered without an observation, or, `withSample`, with the kind's sample
 * observation when it declares one (synth's previews; `sampled` says which), or why its spec is
 * invalid (`<Kind> <name> is invalid: <field>: <problem>`).
 */
export function previewChildren(
  kind: AnyKind,
  object: Record<string, unknown>,
  options: { readonly withSample?: boolean } = {},
): { ok: true; children: Manifest[]; sampled: boolean } | { ok: false; message: string } {
  const resource = object as unknown as CustomResource;
  const result = validateResource(kind, object);
  if (!result.ok) return { ok: false, message: `${kind.kind} ${resource.metadata.name} is invalid: ${formatFieldErrors(result.errors)}` };
  const valid = { ...resource, spec: result.spec };
  const sample = options.withSample ? kind.controller?.sampleObservation : undefined;
  return { ok: true, children: renderChildren(kind, valid, sample?.(valid)), sampled: sample !== undefined };
}
