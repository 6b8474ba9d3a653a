import { describeValue, FieldError } from '../schema';
import type { StructuralSchema } from './structural';

/**
 * The controller's check of a value against a structural schema, as the API server checks it
 * (types, required fields, int-or-string, patterns), so that an object that slipped past an older
 * CRD is caught too. Unknown fields are not errors: the API server prunes them. Returns nothing:
 * the value is used as it is.
 */
export function checkStructural(schema: StructuralSchema, value: unknown, path: string, errors: FieldError[]): void {
  // The API server drops a null where the schema does not allow one.
  if (value === null || value === undefined) return;
  if (schema['x-kubernetes-int-or-string']) {
    if (typeof value === 'number' && Number.isInteger(value)) return;
    if (typeof value !== 'string') return void errors.push({ field: path, message: `must be an integer or a string, got ${describeValue(value)}` });
    if (schema.pattern && !new RegExp(schema.pattern).test(value)) errors.push({ field: path, message: `must match ${schema.pattern}, got ${JSON.stringify(value)}` });
    return;
  }
  switch (schema.type) {
    case 'object': {
      if (typeof value !== 'object' || Array.isArray(value)) return void errors.push({ field: path, message: `must be an object, got ${describeValue(value)}` });
      const object = value as Record<string, unknown>;
      for (const key of schema.required ?? []) if (object[key] === undefined || object[key] === null) errors.push({ field: `${path}.${key}`, message: 'is required' });
      for (const [key, item] of Object.entries(object)) {
        const property = schema.properties?.[key] ?? schema.additionalProperties;
        if (property) checkStructural(property, item, `${path}.${key}`, errors);
      }
      return;
    }
    case 'array':
      if (!Array.isArray(value)) return void errors.push({ field: path, message: `must be a list, got ${describeValue(value)}` });
      value.forEach((item, i) => schema.items && checkStructural(schema.items, item, `${path}[${i}]`, errors));
      return;
    case 'string':
      if (typeof value !== 'string') errors.push({ field: path, message: `must be a string, got ${describeValue(value)}` });
      return;
    case 'integer':
      if (typeof value !== 'number' || !Number.isInteger(value)) errors.push({ field: path, message: `must be an integer, got ${describeValue(value)}` });
      return;
    case 'number':
      if (typeof value !== 'number') errors.push({ field: path, message: `must be a number, got ${describeValue(value)}` });
      return;
    case 'boolean':
      if (typeof value !== 'boolean') errors.push({ field: path, message: `must be true or false, got ${describeValue(value)}` });
      return;
  }
}
