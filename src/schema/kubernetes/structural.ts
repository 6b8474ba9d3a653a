import type { OpenApiSchema } from '../schema';

/**
 * A built-in type's OpenAPI v3 schema (as the API server publishes it) made into a CRD's
 * structural schema, as controller-gen embeds one: every `$ref` inlined, a quantity and an
 * int-or-string as `x-kubernetes-int-or-string`, an embedded ObjectMeta as its name, namespace,
 * labels, annotations and finalizers (controller-gen's generateEmbeddedObjectMeta; a bare
 * `type: object` would prune the labels of a template), the x-kubernetes list and map types
 * kept (the API server merges and validates lists by them), and no descriptions (they would
 * make a CRD several times larger; the field's own description stays). Defaults are dropped
 * (the API server defaults the built-in object it makes from the template), except where a
 * list's map key needs one. Throws on anything it does not know, naming the type.
 */
export interface RawSchema {
  readonly $ref?: string;
  readonly allOf?: readonly RawSchema[];
  readonly oneOf?: readonly RawSchema[];
  readonly type?: OpenApiSchema['type'];
  readonly format?: string;
  readonly properties?: Readonly<Record<string, RawSchema>>;
  readonly required?: readonly string[];
  readonly items?: RawSchema;
  readonly additionalProperties?: RawSchema | boolean;
  readonly default?: unknown;
  readonly 'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  readonly 'x-kubernetes-list-map-keys'?: readonly string[];
  readonly 'x-kubernetes-map-type'?: 'atomic' | 'granular';
}

/** A node of the structural schema: OpenApiSchema with the description optional, as inner nodes have none. */
export type StructuralSchema = Omit<OpenApiSchema, 'description' | 'properties' | 'items' | 'additionalProperties'> & {
  description?: string;
  properties?: Record<string, StructuralSchema>;
  items?: StructuralSchema;
  additionalProperties?: StructuralSchema;
  'x-kubernetes-map-type'?: 'atomic' | 'granular';
};

const REF_PREFIX = '#/components/schemas/';
/** controller-gen's pattern of a resource.Quantity. */
export const QUANTITY_PATTERN = '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$';
/** The formats a CRD's schema knows, of those the built-in types use. */
const FORMATS = new Set(['int32', 'int64', 'double', 'float', 'byte', 'date-time', 'date']);
const stringMap: StructuralSchema = { type: 'object', additionalProperties: { type: 'string' } };

/** Types written as the API server's CRD schemas expect them rather than as published. */
const SPECIAL: Readonly<Record<string, StructuralSchema>> = {
  'io.k8s.apimachinery.pkg.api.resource.Quantity': { 'x-kubernetes-int-or-string': true, pattern: QUANTITY_PATTERN },
  'io.k8s.apimachinery.pkg.util.intstr.IntOrString': { 'x-kubernetes-int-or-string': true },
  'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta': {
    type: 'object',
    properties: { name: { type: 'string' }, namespace: { type: 'string' }, labels: stringMap, annotations: stringMap, finalizers: { type: 'array', items: { type: 'string' } } },
  },
};

export function structuralSchema(name: string, schemas: Readonly<Record<string, unknown>>): StructuralSchema {
  const named = (ref: string, through: readonly string[]): StructuralSchema => {
    if (SPECIAL[ref]) return SPECIAL[ref];
    if (through.includes(ref)) throw new Error(`the Kubernetes type ${ref} refers to itself (${[...through, ref].join(' -> ')}); a CRD schema cannot hold it`);
    const raw = schemas[ref] as RawSchema | undefined;
    if (!raw) throw new Error(`the Kubernetes type ${ref} is not among the vendored schemas`);
    return convert(raw, [...through, ref]);
  };
  const convert = (raw: RawSchema, through: readonly string[]): StructuralSchema => {
    const where = through.at(-1)!;
    const ref = raw.$ref ?? (raw.allOf?.length === 1 ? raw.allOf[0].$ref : undefined);
    if (ref) return named(ref.slice(REF_PREFIX.length), through);
    if (raw.allOf || raw.oneOf) throw new Error(`${where}: allOf or oneOf other than one $ref has no structural form here`);
    if (!raw.type) throw new Error(`${where}: a schema without a type has no structural form here`);
    const node: StructuralSchema = { type: raw.type };
    if (raw.format && FORMATS.has(raw.format)) node.format = raw.format;
    if (raw.properties) node.properties = Object.fromEntries(Object.entries(raw.properties).map(([key, value]) => [key, convert(value, through)]));
    if (raw.required?.length) node.required = [...raw.required];
    if (typeof raw.additionalProperties === 'object') node.additionalProperties = convert(raw.additionalProperties, through);
    if (raw['x-kubernetes-map-type']) node['x-kubernetes-map-type'] = raw['x-kubernetes-map-type'];
    if (raw.items) {
      const items = convert(raw.items, through);
      node.items = items;
      const listType = raw['x-kubernetes-list-type'];
      if (listType === 'map') return { ...node, ...mapList(items, raw['x-kubernetes-list-map-keys'] ?? [], resolvedItems(raw.items)) };
      if (listType) node['x-kubernetes-list-type'] = listType;
    }
    return node;
  };
  /** The raw schema of a list's items, to read its keys' defaults. */
  const resolvedItems = (raw: RawSchema): RawSchema => {
    const ref = raw.$ref ?? raw.allOf?.[0]?.$ref;
    return ref ? ((schemas[ref.slice(REF_PREFIX.length)] as RawSchema | undefined) ?? raw) : raw;
  };
  return named(name, []);
}

/**
 * A list keyed by some of its items' fields: the API server requires each key to be required or
 * to have a default, so a key's published default is kept; a key with neither makes the list
 * atomic (replaced whole on a merge, validated alike).
 */
function mapList(items: StructuralSchema, keys: readonly string[], raw: RawSchema): Partial<StructuralSchema> {
  const required = new Set(items.required ?? []);
  const defaults = Object.fromEntries(keys.filter((key) => !required.has(key)).map((key) => [key, raw.properties?.[key]?.default]));
  if (!keys.length || Object.values(defaults).some((value) => value === undefined)) return { 'x-kubernetes-list-type': 'atomic' };
  const properties = { ...items.properties };
  for (const [key, value] of Object.entries(defaults)) properties[key] = { ...properties[key], default: value };
  return { items: { ...items, properties }, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': [...keys] };
}
