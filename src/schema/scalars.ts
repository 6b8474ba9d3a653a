import { describeValue, FieldError, OpenApiSchema, Schema } from './schema';

interface Common<T> {
  /** What the field means; `kubectl explain` shows it. */
  readonly description: string;
  /** The value the API server fills in when the field is missing. */
  readonly default?: T;
}

export interface StringOptions extends Common<string> {
  readonly pattern?: string;
  /** Shown instead of the bare pattern when a value does not match it. */
  readonly patternHint?: string;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly format?: string;
}

export class StringSchema<T extends string = string> extends Schema<T> {
  readonly openApi: OpenApiSchema;
  constructor(private readonly options: StringOptions & { readonly enum?: readonly T[] }) {
    super();
    const { patternHint: _hint, ...openApi } = options;
    this.openApi = { type: 'string', ...openApi };
  }

  check(value: unknown, path: string, errors: FieldError[]): T {
    if (typeof value !== 'string') {
      errors.push({ field: path, message: `must be a string, got ${describeValue(value)}` });
      return value as T;
    }
    const o = this.options;
    if (o.enum && !o.enum.includes(value as T)) {
      errors.push({ field: path, message: `must be one of ${o.enum.map((v) => `"${v}"`).join(', ')}, got "${value}"` });
    }
    if (o.minLength !== undefined && value.length < o.minLength) {
      errors.push({ field: path, message: `must be at least ${o.minLength} characters long, got "${value}"` });
    }
    if (o.maxLength !== undefined && value.length > o.maxLength) {
      errors.push({ field: path, message: `must be at most ${o.maxLength} characters long, got ${value.length}` });
    }
    if (o.pattern !== undefined && !new RegExp(o.pattern, 'u').test(value)) {
      errors.push({ field: path, message: `must be ${o.patternHint ?? `a string matching ${o.pattern}`}, got "${value}"` });
    }
    return value as T;
  }
}

export interface NumberOptions extends Common<number> {
  readonly minimum?: number;
  readonly maximum?: number;
}

export class IntegerSchema extends Schema<number> {
  readonly openApi: OpenApiSchema;
  constructor(private readonly options: NumberOptions) {
    super();
    this.openApi = { type: 'integer', ...options };
  }

  check(value: unknown, path: string, errors: FieldError[]): number {
    if (typeof value !== 'number' || !Number.isInteger(value)) {
      errors.push({ field: path, message: `must be an integer, got ${describeValue(value)}` });
      return value as number;
    }
    const { minimum, maximum } = this.options;
    if ((minimum !== undefined && value < minimum) || (maximum !== undefined && value > maximum)) {
      const range = maximum === undefined ? `at least ${minimum}` : minimum === undefined ? `at most ${maximum}` : `between ${minimum} and ${maximum}`;
      errors.push({ field: path, message: `must be ${range}, got ${value}` });
    }
    return value;
  }
}

export class BooleanSchema extends Schema<boolean> {
  readonly openApi: OpenApiSchema;
  constructor(options: Common<boolean>) {
    super();
    this.openApi = { type: 'boolean', ...options };
  }

  check(value: unknown, path: string, errors: FieldError[]): boolean {
    if (typeof value !== 'boolean') errors.push({ field: path, message: `must be true or false, got ${describeValue(value)}` });
    return value as boolean;
  }
}

/** A Kubernetes resource quantity such as `50G` or `1Gi`, accepted as a string or a number, like the built-in types. */
export class QuantitySchema extends Schema<string, string | number> {
  static readonly PATTERN = '^([+]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$';
  readonly openApi: OpenApiSchema;
  constructor(options: Common<string>) {
    super();
    this.openApi = { 'x-kubernetes-int-or-string': true, pattern: QuantitySchema.PATTERN, ...options };
  }

  check(value: unknown, path: string, errors: FieldError[]): string {
    const text = typeof value === 'number' ? String(value) : value;
    if (typeof text !== 'string' || !/^[0-9]+(\.[0-9]+)?(m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?$/.test(text)) {
      errors.push({ field: path, message: `must be a quantity such as 50G or 10Gi, got ${describeValue(value)}` });
    }
    return text as string;
  }
}
