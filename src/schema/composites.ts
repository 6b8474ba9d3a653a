import { Defaulted, describeValue, FieldError, OpenApiSchema, Rule, Schema } from './schema';

/** Marks a property that may be left out and has no default. */
export class Optional<T, Input = T> {
  constructor(readonly schema: Schema<T, Input>) {}
}

type Property = Schema<unknown> | Optional<unknown>;
type Properties = Record<string, Property>;

type OptionalKeys<P extends Properties> = { [K in keyof P]: P[K] extends Optional<unknown> ? K : never }[keyof P];
type Expand<T> = T extends infer O ? { [K in keyof O]: O[K] } : never;
/** The object type a set of properties describes, after the API server applied defaults. */
export type InferObject<P extends Properties> = Expand<
  { -readonly [K in Exclude<keyof P, OptionalKeys<P>>]: P[K] extends Schema<infer T, unknown> ? T : never } & {
    -readonly [K in OptionalKeys<P>]?: P[K] extends Optional<infer T, unknown> ? T : never;
  }
>;

/** Keys a manifest may leave out: the optional ones and those with a default. */
type OmittableKeys<P extends Properties> = { [K in keyof P]: P[K] extends Optional<unknown> | Defaulted ? K : never }[keyof P];
type InputOf<Prop> = Prop extends Optional<unknown, infer Input> ? Input : Prop extends Schema<unknown, infer Input> ? Input : never;
/** The object type a set of properties describes, as a manifest declares it (see InferInput). */
export type InferInputObject<P extends Properties> = Expand<
  { -readonly [K in Exclude<keyof P, OmittableKeys<P>>]: InputOf<P[K]> } & { -readonly [K in OmittableKeys<P>]?: InputOf<P[K]> }
>;

export interface ObjectOptions<T> {
  readonly description: string;
  /** Cross-field rules, each given as CEL and as TypeScript. */
  readonly rules?: readonly Rule<T>[];
  readonly default?: Partial<T>;
  readonly minProperties?: number;
}

export class ObjectSchema<P extends Properties> extends Schema<InferObject<P>, InferInputObject<P>> {
  readonly openApi: OpenApiSchema;
  constructor(
    readonly properties: P,
    private readonly options: ObjectOptions<InferObject<P>>,
  ) {
    super();
    const required = Object.entries(properties)
      .filter(([, p]) => p instanceof Schema && !p.hasDefault)
      .map(([name]) => name);
    const rules = options.rules?.map(({ cel, message, fieldPath }) => ({ rule: cel, message, ...(fieldPath ? { fieldPath } : {}) }));
    this.openApi = {
      type: 'object',
      description: options.description,
      properties: Object.fromEntries(Object.entries(properties).map(([name, p]) => [name, schemaOf(p).openApi])),
      ...(required.length ? { required } : {}),
      ...(options.minProperties !== undefined ? { minProperties: options.minProperties } : {}),
      ...(options.default !== undefined ? { default: options.default } : {}),
      ...(rules?.length ? { 'x-kubernetes-validations': rules } : {}),
    };
  }

  check(value: unknown, path: string, errors: FieldError[]): InferObject<P> {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      errors.push({ field: path, message: `must be an object, got ${describeValue(value)}` });
      return value as InferObject<P>;
    }
    const input = value as Record<string, unknown>;
    const output: Record<string, unknown> = { ...input };
    const before = errors.length;
    for (const [name, property] of Object.entries(this.properties)) {
      const field = joinPath(path, name);
      const schema = schemaOf(property);
      if (input[name] === undefined || input[name] === null) {
        if (schema.hasDefault) output[name] = schema.check(structuredClone(schema.openApi.default), field, errors);
        else if (property instanceof Schema) errors.push({ field, message: 'is required' });
        else delete output[name];
        continue;
      }
      output[name] = schema.check(input[name], field, errors);
    }
    if (this.options.minProperties !== undefined && Object.keys(input).length < this.options.minProperties) {
      errors.push({ field: path, message: `must have at least ${this.options.minProperties} field(s)` });
    }
    // As on the API server, a rule only runs once the fields it reads are valid.
    if (errors.length === before) {
      for (const rule of this.options.rules ?? []) {
        if (!rule.holds(output as InferObject<P>)) errors.push({ field: rule.fieldPath ? joinPath(path, rule.fieldPath.slice(1)) : path, message: rule.message });
      }
    }
    return output as InferObject<P>;
  }
}

export interface ListOptions {
  readonly description: string;
  readonly minItems?: number;
  readonly maxItems?: number;
  /** Items are unique (`x-kubernetes-list-type: set`). */
  readonly unique?: boolean;
  /** Items are keyed by these fields, so server-side apply merges them one by one (`x-kubernetes-list-type: map`). */
  readonly mapKeys?: readonly string[];
}

export class ArraySchema<T, Input = T> extends Schema<T[], Input[]> {
  readonly openApi: OpenApiSchema;
  constructor(
    private readonly items: Schema<T, Input>,
    private readonly options: ListOptions,
  ) {
    super();
    const { unique, mapKeys, ...rest } = options;
    const listType = mapKeys ? { 'x-kubernetes-list-type': 'map' as const, 'x-kubernetes-list-map-keys': mapKeys } : unique ? { 'x-kubernetes-list-type': 'set' as const } : {};
    this.openApi = { type: 'array', ...rest, items: items.openApi, ...listType };
  }

  check(value: unknown, path: string, errors: FieldError[]): T[] {
    if (!Array.isArray(value)) {
      errors.push({ field: path, message: `must be a list, got ${describeValue(value)}` });
      return value as T[];
    }
    const { minItems, maxItems, unique } = this.options;
    if (minItems !== undefined && value.length < minItems) errors.push({ field: path, message: `must have at least ${minItems} item(s)` });
    if (maxItems !== undefined && value.length > maxItems) errors.push({ field: path, message: `must have at most ${maxItems} item(s)` });
    if (unique) {
      const seen = new Set<string>();
      value.forEach((item, i) => {
        const key = JSON.stringify(item);
        if (seen.has(key)) errors.push({ field: `${path}[${i}]`, message: `duplicate value ${key}` });
        seen.add(key);
      });
    }
    return value.map((item, i) => this.items.check(item, `${path}[${i}]`, errors));
  }
}

export interface MapOptions {
  readonly description: string;
  readonly minProperties?: number;
  readonly maxProperties?: number;
  /** A rule every key must follow (OpenAPI cannot constrain keys): CEL over the map, e.g. `self.all(k, ...)`, and the same per key in TypeScript. */
  readonly keys?: { readonly cel: string; readonly message: string; readonly holds: (key: string) => boolean };
}

/** A string-keyed map, such as a label selector. */
export class MapSchema<T, Input = T> extends Schema<Record<string, T>, Record<string, Input>> {
  readonly openApi: OpenApiSchema;
  constructor(
    private readonly values: Schema<T, Input>,
    private readonly options: MapOptions,
  ) {
    super();
    const { keys, ...openApi } = options;
    const rules = keys ? { 'x-kubernetes-validations': [{ rule: keys.cel, message: keys.message }] } : {};
    this.openApi = { type: 'object', ...openApi, additionalProperties: values.openApi, ...rules };
  }

  check(value: unknown, path: string, errors: FieldError[]): Record<string, T> {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      errors.push({ field: path, message: `must be a map, got ${describeValue(value)}` });
      return value as Record<string, T>;
    }
    const entries = Object.entries(value);
    const { minProperties } = this.options;
    if (minProperties !== undefined && entries.length < minProperties) {
      errors.push({ field: path, message: `must have at least ${minProperties} entr${minProperties === 1 ? 'y' : 'ies'}` });
    }
    const { maxProperties, keys } = this.options;
    if (maxProperties !== undefined && entries.length > maxProperties) errors.push({ field: path, message: `must have at most ${maxProperties} entries` });
    const badKeys = entries.map(([k]) => k).filter((k) => keys && !keys.holds(k));
    if (keys && badKeys.length) errors.push({ field: path, message: `${keys.message}, got ${badKeys.map((k) => JSON.stringify(k)).join(', ')}` });
    return Object.fromEntries(entries.map(([k, v]) => [k, this.values.check(v, joinPath(path, k), errors)]));
  }
}

/** `spec` + `port` -> `spec.port`; at the top level of an object there is no prefix. */
function joinPath(path: string, name: string): string {
  return path ? `${path}.${name}` : name;
}

/** The schema of a property, optional or not. */
export function schemaOf(p: Property): Schema<unknown> {
  return p instanceof Optional ? p.schema : p;
}
