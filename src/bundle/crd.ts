import { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import { allIdentities, crdName, isExtraIdentity } from '../core/groups';
import { AnyKind } from '../core/kind';
import { OpenApiSchema, schemaOf } from '../schema';

/** `kubectl get all-operators` lists every instance of every kind. */
export const CATEGORY = 'all-operators';

/** The CRD's structural schema: metadata as usual, then the kind's spec, status and legacy fields. */
export function openApiSchemaOf(kind: AnyKind): OpenApiSchema {
  const legacy = Object.fromEntries(Object.entries(kind.legacyTopLevel ?? {}).map(([name, property]) => [name, schemaOf(property).openApi]));
  const rules = kind.objectRules?.map(({ cel, message, field }) => ({ rule: cel, message, fieldPath: `.${field}` }));
  return {
    type: 'object',
    description: kind.description,
    properties: {
      apiVersion: { type: 'string', description: 'The versioned schema of this representation of an object.' },
      kind: { type: 'string', description: 'The REST resource this object represents.' },
      // The API server allows nothing but the type here: metadata's schema is its own.
      metadata: { type: 'object' } as OpenApiSchema,
      spec: kind.spec.openApi,
      // A status of its defaults (observedGeneration: 0) from the start: kstatus (Flux's wait,
      // kubectl wait) takes an object without one for current before the controller acted on it.
      status: { ...kind.status.openApi, default: {} },
      ...legacy,
    },
    ...(kind.legacyTopLevel ? {} : { required: ['spec'] }),
    ...(rules?.length ? { 'x-kubernetes-validations': rules } : {}),
  };
}

/** The CustomResourceDefinition manifest of one kind in one of its groups (see servedIdentities): the same names, schema and columns in each. */
export function crdManifest(kind: AnyKind): Record<string, unknown> & { metadata: { name: string } } {
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
      versions: [
        {
          name: kind.version,
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: { openAPIV3Schema: openApiSchemaOf(kind) },
          additionalPrinterColumns: [
            ...kind.printerColumns,
            { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status', description: 'Whether the children match the spec and are ready.' },
            { name: 'Reason', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].reason', description: 'Why the object is or is not ready.', priority: 1 },
            { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp', description: 'Time since the object was created.' },
          ],
        },
      ],
    },
  };
}

export interface CustomResourceDefinitionsProps {
  /** The kinds to define. */
  readonly kinds: readonly AnyKind[];
  /** Extra groups to leave out, by CRD name (`<plural>.<group>`). @default none: every group of every kind */
  readonly withoutExtraGroups?: readonly string[];
}

/** One CRD per kind and group, each kind's main group first. */
export class CustomResourceDefinitions extends Construct {
  constructor(scope: Construct, id: string, props: CustomResourceDefinitionsProps) {
    super(scope, id);
    for (const kind of allIdentities(props.kinds, props.withoutExtraGroups)) {
      const { apiVersion, kind: objectKind, metadata, ...rest } = crdManifest(kind);
      // A main group's id stays the plural, as it always was.
      new ApiObject(this, isExtraIdentity(kind) ? metadata.name : kind.plural, { apiVersion: apiVersion as string, kind: objectKind as string, metadata, ...rest });
    }
  }
}
