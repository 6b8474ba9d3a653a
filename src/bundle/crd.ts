import { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import { allIdentities, crdName, isExtraIdentity } from '../core/groups';
import { AnyKind } from '../core/contract/kind';
import { KindVersion, PrinterColumn, VersionLayout } from '../core/contract/version-layout';
import { hasVersions } from '../core/contract/versions';
import { OpenApiSchema, schemaOf } from '../schema';
import { selectableFieldsOf } from './selectable-fields';

/** `kubectl get all-operators` lists every instance of every kind. */
export const CATEGORY = 'all-operators';

/** The CRD's structural schema of one version (the hub's by default): metadata as usual, then its spec, status and legacy fields. */
export function openApiSchemaOf(kind: AnyKind, layout: VersionLayout = kind): OpenApiSchema {
  const legacy = Object.fromEntries(Object.entries(layout.legacyTopLevel ?? {}).map(([name, property]) => [name, schemaOf(property).openApi]));
  const rules = layout.objectRules?.map(({ cel, message, field }) => ({ rule: cel, message, fieldPath: `.${field}` }));
  return {
    type: 'object',
    description: kind.description,
    properties: {
      apiVersion: { type: 'string', description: 'The versioned schema of this representation of an object.' },
      kind: { type: 'string', description: 'The REST resource this object represents.' },
      // The API server allows nothing but the type here: metadata's schema is its own.
      metadata: { type: 'object' } as OpenApiSchema,
      spec: layout.spec.openApi,
      // A status of its defaults (observedGeneration: 0) from the start: kstatus (Flux's wait,
      // kubectl wait) takes an object without one for current before the controller acted on it.
      status: { ...kind.status.openApi, default: {} },
      ...legacy,
    },
    ...(layout.legacyTopLevel ? {} : { required: ['spec'] }),
    ...(rules?.length ? { 'x-kubernetes-validations': rules } : {}),
  };
}

/**
 * Where the API server sends a ConversionReview: the controller's Service in a cluster, or a
 * URL where no Service routes to it (a local control plane reaching a process on loopback).
 * The controller injects the CA that signs its certificate (see src/runtime/conversion/).
 */
export type WebhookClientConfig = (
  | { readonly service: { readonly namespace: string; readonly name: string; readonly path: string; readonly port: number } }
  | { readonly url: string }
) & {
  /** The CA that signs the webhook's certificate, base64 PEM; the controller injects it where absent. */
  readonly caBundle?: string;
};

const ENGINE_COLUMNS: readonly PrinterColumn[] = [
  { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status', description: 'Whether the children match the spec and are ready.' },
  { name: 'Reason', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].reason', description: 'Why the object is or is not ready.', priority: 1 },
  { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp', description: 'Time since the object was created.' },
];

function crdVersion(kind: AnyKind, name: string, layout: VersionLayout, columns: readonly PrinterColumn[], older?: KindVersion) {
  const schema = openApiSchemaOf(kind, layout);
  const selectable = older?.selectableColumns === false ? [] : selectableFieldsOf(`${kind.kind} ${name}`, columns, schema);
  return {
    name,
    served: older?.served ?? true,
    storage: older === undefined,
    ...(older?.deprecationWarning ? { deprecated: true, deprecationWarning: older.deprecationWarning } : {}),
    subresources: { status: {} },
    schema: { openAPIV3Schema: schema },
    additionalPrinterColumns: [...columns, ...ENGINE_COLUMNS].map(({ selectable: _, ...column }) => column),
    ...(selectable.length ? { selectableFields: selectable } : {}),
  };
}

/**
 * The versions with selectable fields on the hub (the first) alone where every version has the
 * same ones. The API server (1.36 and 1.37) moves per-version fields that are identical in
 * every version to the CRD's top level as it reads a CRD, and then refuses top-level
 * selectable fields beside per-version schemas ("may only be set when validations.schema is
 * included"): the versions of a kind with several versions always have different schemas.
 */
function hubOnlyWhereIdentical<V extends { selectableFields?: { jsonPath: string }[] }>(versions: V[]): V[] {
  const same = (v: V) => JSON.stringify(v.selectableFields ?? []) === JSON.stringify(versions[0].selectableFields ?? []);
  if (versions.length < 2 || !versions[0].selectableFields || !versions.every(same)) return versions;
  return versions.map((v, i) => (i === 0 ? v : (({ selectableFields: _, ...rest }) => rest as V)(v)));
}

/**
 * The CustomResourceDefinition manifest of one kind in one of its groups (see servedIdentities):
 * the same names, schema and columns in each. A kind with older versions lists them after the
 * hub, which is stored, and converts by the webhook `webhook` names.
 */
export function crdManifest(kind: AnyKind, webhook?: WebhookClientConfig): Record<string, unknown> & { metadata: { name: string } } {
  if (hasVersions(kind) && !webhook) throw new Error(`${kind.kind} has several versions: its CRD needs the conversion webhook's client config`);
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: crdName(kind) },
    spec: {
      group: kind.group,
      scope: kind.scope,
      names: {
        kind: kind.kind,
        listKind: `${kind.kind}List`,
        plural: kind.plural,
        singular: kind.singular,
        // None rather than an empty list, which the API server drops (a GitOps tool would see drift).
        ...(kind.shortNames.length ? { shortNames: [...kind.shortNames] } : {}),
        categories: [CATEGORY],
      },
      versions: hubOnlyWhereIdentical([
        crdVersion(kind, kind.version, kind, kind.printerColumns),
        ...(kind.olderVersions ?? []).map((older) => crdVersion(kind, older.name, older, older.printerColumns ?? kind.printerColumns, older)),
      ]),
      ...(hasVersions(kind) ? { conversion: { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'], clientConfig: webhook } } } : {}),
    },
  };
}

export interface CustomResourceDefinitionsProps {
  /** The kinds to define. */
  readonly kinds: readonly AnyKind[];
  /** Extra groups to leave out, by CRD name (`<plural>.<group>`). @default none: every group of every kind */
  readonly withoutExtraGroups?: readonly string[];
  /** Where the API server reaches the conversion webhook, for kinds with several versions. */
  readonly webhook?: WebhookClientConfig;
  /** Annotations of the CRDs that convert by the webhook (cert-manager's `inject-ca-from`). @default none */
  readonly webhookAnnotations?: Record<string, string>;
}

/** One CRD per kind and group, each kind's main group first. */
export class CustomResourceDefinitions extends Construct {
  constructor(scope: Construct, id: string, props: CustomResourceDefinitionsProps) {
    super(scope, id);
    for (const kind of allIdentities(props.kinds, props.withoutExtraGroups)) {
      const { apiVersion, kind: objectKind, metadata, ...rest } = crdManifest(kind, props.webhook);
      const annotations = hasVersions(kind) && props.webhookAnnotations ? { annotations: { ...props.webhookAnnotations } } : {};
      // A main group's id stays the plural, as it always was.
      new ApiObject(this, isExtraIdentity(kind) ? metadata.name : kind.plural, { apiVersion: apiVersion as string, kind: objectKind as string, metadata: { ...metadata, ...annotations }, ...rest });
    }
  }
}

/**
 * A CRD manifest whose conversion webhook is reached at `clientConfig` instead (for a local
 * control plane, which no Service routes to: a URL on loopback); other manifests as they are.
 */
export function withWebhookClientConfig<T extends { kind?: unknown }>(manifest: T, clientConfig: WebhookClientConfig): T {
  const spec = (manifest as { spec?: { conversion?: { strategy?: string; webhook?: Record<string, unknown> } } }).spec;
  if (manifest.kind !== 'CustomResourceDefinition' || spec?.conversion?.strategy !== 'Webhook') return manifest;
  return { ...manifest, spec: { ...spec, conversion: { ...spec.conversion, webhook: { ...spec.conversion.webhook, clientConfig } } } };
}
