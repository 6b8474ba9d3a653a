import { ArraySchema, ListOptions, MapOptions, MapSchema, ObjectOptions, ObjectSchema, Optional, InferObject } from './composites';
import { StringOrListOptions, StringOrListSchema } from './string-or-list';
import { BooleanSchema, IntegerSchema, NumberOptions, QuantitySchema, StringOptions, StringSchema } from './scalars';
import { DefaultedIf, Schema } from './schema';
import { labelMap } from './labels';
import { BuiltInOptions, BuiltInSchema } from './kubernetes/built-in';
import { OpaqueOptions, OpaqueSchema } from './kubernetes/opaque';

export * from './schema';
export { ObjectSchema, Optional, schemaOf, type InferObject, type InferInputObject } from './composites';

/**
 * The builders a kind declares its schema with: `s.object({ ... })`, `s.string({ ... })`, ...
 * A scalar built with a default is marked `Defaulted`, so that its field may be left out of
 * a manifest's type (InferInput) while the controller's type (Infer) always has it.
 */
export const s = {
  string: <O extends StringOptions>(options: O) => new StringSchema(options) as StringSchema & DefaultedIf<O>,
  enum: <const T extends string, const O extends { description: string; default?: T }>(values: readonly T[], options: O) =>
    new StringSchema<T>({ ...options, enum: values }) as StringSchema<T> & DefaultedIf<O>,
  integer: <O extends NumberOptions>(options: O) => new IntegerSchema(options) as IntegerSchema & DefaultedIf<O>,
  boolean: <O extends { description: string; default?: boolean }>(options: O) => new BooleanSchema(options) as BooleanSchema & DefaultedIf<O>,
  quantity: <O extends { description: string; default?: string }>(options: O) => new QuantitySchema(options) as QuantitySchema & DefaultedIf<O>,
  stringOrList: <T extends string>(item: StringSchema<T>, options: StringOrListOptions) => new StringOrListSchema(item, options),
  array: <T, Input>(items: Schema<T, Input>, options: ListOptions) => new ArraySchema(items, options),
  map: <T, Input>(values: Schema<T, Input>, options: MapOptions) => new MapSchema(values, options),
  /** Label keys to label values, in the label grammar (a selector, or labels to set). */
  labelMap,
  object: <P extends Record<string, Schema<unknown> | Optional<unknown>>, O extends ObjectOptions<InferObject<P>>>(properties: P, options: O) =>
    new ObjectSchema(properties, options) as ObjectSchema<P> & DefaultedIf<O>,
  optional: <T, Input>(schema: Schema<T, Input>) => new Optional(schema),
  /**
   * A built-in Kubernetes type, e.g. `s.builtIn<JobTemplateSpec>('batch/v1', 'JobTemplateSpec', { description })`:
   * its schema from the Kubernetes OpenAPI the project targets, checked by the API server.
   */
  builtIn: <T = Record<string, unknown>>(apiVersion: string, type: string, options: BuiltInOptions) => new BuiltInSchema<T>(apiVersion, type, options),
  /** An object kept unchecked (x-kubernetes-preserve-unknown-fields), with the reason it has no schema. */
  opaque: <T = Record<string, unknown>>(options: OpaqueOptions) => new OpaqueSchema<T>(options),
};
export { asList } from './string-or-list';
export { isLabelKey, isLabelValue } from './labels';
