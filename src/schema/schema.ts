/**
 * A schema is one declaration of a field that gives three things: its OpenAPI v3 schema for
 * the CRD (with a description, always), its TypeScript type (`Infer<typeof schema>`), and
 * the controller's own validation of it (`validate`), which mirrors what the API server
 * enforces, so an object that slipped past an older or looser CRD is still caught.
 */

/** The structural OpenAPI v3 subset the CRDs use. */
export interface OpenApiSchema {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  description: string;
  properties?: Record<string, OpenApiSchema>;
  required?: string[];
  additionalProperties?: OpenApiSchema;
  items?: OpenApiSchema;
  enum?: readonly (string | number | boolean)[];
  pattern?: string;
  format?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  minProperties?: number;
  maxProperties?: number;
  not?: Omit<OpenApiSchema, 'description'>;
  default?: unknown;
  'x-kubernetes-int-or-string'?: true;
  'x-kubernetes-preserve-unknown-fields'?: true;
  'x-kubernetes-validations'?: { rule: string; message: string; fieldPath?: string; reason?: string }[];
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: readonly string[];
}

/** A problem found in an object, in the API server's own terms: which field, what was expected. */
export interface FieldError {
  readonly field: string;
  readonly message: string;
}

export function formatFieldErrors(errors: readonly FieldError[]): string {
  return errors.map((e) => `${e.field}: ${e.message}`).join('; ');
}

/**
 * A cross-field rule, written twice on purpose: as CEL for the API server and as a
 * TypeScript predicate for the controller. Tests run the same table of objects through both.
 */
export interface Rule<T> {
  /** The CEL expression over `self`. */
  readonly cel: string;
  /** The error both the API server and the controller report when the rule fails. */
  readonly message: string;
  /** The same rule in TypeScript, called with the defaulted value. */
  readonly holds: (self: T) => boolean;
  /** The field the error is reported on, relative to the object the rule is attached to (e.g. `.replicas`). */
  readonly fieldPath?: string;
}

/**
 * A rule that a string field matches `pattern`, checked by CEL rather than an OpenAPI pattern
 * where the pattern is too long to read in the API server's error (which quotes a failed
 * pattern); the error is `message`, on the field.
 */
export function matchesRule<T extends Record<K, string>, K extends string & keyof T>(field: K, pattern: string, message: string): Rule<T> {
  return { cel: `self.${field}.matches('${pattern}')`, message, fieldPath: `.${field}`, holds: (self) => new RegExp(pattern).test(self[field]) };
}

export abstract class Schema<T, Input = T> {
  /** Phantom member for type inference only. */
  declare readonly _type: T;
  /** Phantom member: the type a manifest may hold, where a field with a default may be left out. */
  declare readonly _input: Input;
  abstract readonly openApi: OpenApiSchema;
  /** Whether a missing value is acceptable because the schema supplies a default. */
  get hasDefault(): boolean {
    return this.openApi.default !== undefined;
  }
  /**
   * Checks `value` (already known to be present) at `path`, appending problems to `errors`.
   * Returns the value with defaults applied below it.
   */
  abstract check(value: unknown, path: string, errors: FieldError[]): T;

  /** Validates a whole value; throws nothing, returns the defaulted value or the problems. */
  validate(value: unknown, path: string): { value: T; errors: FieldError[] } {
    const errors: FieldError[] = [];
    const checked = this.check(value, path, errors);
    return { value: checked, errors };
  }
}

/** The type of a value after the API server applied its defaults, as the controller sees it. */
export type Infer<S> = S extends Schema<infer T, unknown> ? T : never;
/** The type of a value as a manifest declares it: fields with a default may be left out. */
export type InferInput<S> = S extends Schema<unknown, infer Input> ? Input : never;

/** Phantom marker of a schema that has a default, so a manifest may leave its field out. */
export interface Defaulted {
  readonly _defaulted: true;
}
/** `Defaulted` when the options a schema was built with hold a default. */
export type DefaultedIf<Options> = Options extends { readonly default: unknown } ? Defaulted : unknown;

export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${JSON.stringify(value)}`;
}
