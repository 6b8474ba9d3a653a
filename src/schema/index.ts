import { ArraySchema, ListOptions, MapOptions, MapSchema, ObjectOptions, ObjectSchema, Optional, InferObject } from './composites';
import { BooleanSchema, IntegerSchema, NumberOptions, QuantitySchema, StringOptions, StringSchema } from './scalars';
import { Schema } from './schema';

export * from './schema';
export { ObjectSchema, Optional, schemaOf, type InferObject } from './composites';

/** The builders a kind declares its schema with: `s.object({ ... })`, `s.string({ ... })`, ... */
export const s = {
  string: (options: StringOptions) => new StringSchema(options),
  enum: <const T extends string>(values: readonly T[], options: { description: string; default?: T }) =>
    new StringSchema<T>({ ...options, enum: values }),
  integer: (options: NumberOptions) => new IntegerSchema(options),
  boolean: (options: { description: string; default?: boolean }) => new BooleanSchema(options),
  quantity: (options: { description: string; default?: string }) => new QuantitySchema(options),
  array: <T>(items: Schema<T>, options: ListOptions) => new ArraySchema(items, options),
  map: <T>(values: Schema<T>, options: MapOptions) => new MapSchema(values, options),
  object: <P extends Record<string, Schema<unknown> | Optional<unknown>>>(properties: P, options: ObjectOptions<InferObject<P>>) =>
    new ObjectSchema(properties, options),
  optional: <T>(schema: Schema<T>) => new Optional(schema),
};
