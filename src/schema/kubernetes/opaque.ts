import { describeValue, FieldError, OpenApiSchema, Schema } from '../schema';

export interface OpaqueOptions {
  readonly description: string;
  /** Why this field cannot have a schema: the API server keeps whatever it holds, unchecked, so say why that is right. */
  readonly reason: string;
}

/**
 * An object the API server keeps as written, unchecked (`x-kubernetes-preserve-unknown-fields`):
 * the explicit escape for data with no schema (another tool's configuration, passed through).
 * The author must give the reason; prefer `s.builtIn` for a built-in type.
 */
export class OpaqueSchema<T = Record<string, unknown>> extends Schema<T> {
  readonly openApi: OpenApiSchema;
  constructor(readonly options: OpaqueOptions) {
    super();
    if (!options.reason.trim()) throw new Error(`s.opaque (${options.description}): give the reason this field has no schema`);
    this.openApi = { type: 'object', description: options.description, 'x-kubernetes-preserve-unknown-fields': true };
  }

  check(value: unknown, path: string, errors: FieldError[]): T {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) errors.push({ field: path, message: `must be an object, got ${describeValue(value)}` });
    return value as T;
  }
}
