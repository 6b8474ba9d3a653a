import { StringSchema } from './scalars';
import { describeValue, FieldError, OpenApiSchema, Schema } from './schema';

export interface StringOrListOptions {
  readonly description: string;
  /** What one item is, for the error of a value that is neither, e.g. `a namespace name`. */
  readonly itemName: string;
  readonly maxItems: number;
}

/**
 * One string or a non-empty list of them, as older manifests wrote a field both ways.
 *
 * A structural CRD schema cannot declare two types, so the node declares none
 * (`x-kubernetes-preserve-unknown-fields`) and carries both shapes' validations: OpenAPI
 * applies the string keywords (pattern, maxLength) only to a string and the list keywords
 * (items, minItems, maxItems) only to a list, and a constant-cost CEL rule refuses every other
 * type naming the field. The controller's check below says the same.
 */
export class StringOrListSchema<T extends string> extends Schema<T | T[]> {
  readonly openApi: OpenApiSchema;
  constructor(
    private readonly item: StringSchema<T>,
    private readonly options: StringOrListOptions,
  ) {
    super();
    const { type: _type, description: _description, ...stringRules } = item.openApi;
    this.openApi = {
      description: options.description,
      'x-kubernetes-preserve-unknown-fields': true,
      ...stringRules,
      items: item.openApi,
      minItems: 1,
      maxItems: options.maxItems,
      'x-kubernetes-validations': [{ rule: 'type(self) == string || type(self) == list', message: this.expected }],
    };
  }

  private get expected(): string {
    return `must be ${this.options.itemName} or a list of them`;
  }

  check(value: unknown, path: string, errors: FieldError[]): T | T[] {
    if (typeof value === 'string') return this.item.check(value, path, errors);
    if (!Array.isArray(value)) {
      errors.push({ field: path, message: `${this.expected}, got ${describeValue(value)}` });
      return value as T;
    }
    if (value.length < 1) errors.push({ field: path, message: 'must have at least 1 item(s)' });
    if (value.length > this.options.maxItems) errors.push({ field: path, message: `must have at most ${this.options.maxItems} item(s)` });
    return value.map((v, i) => this.item.check(v, `${path}[${i}]`, errors));
  }
}

/** The value of a string-or-list field as a list. */
export function asList<T>(value: T | readonly T[] | undefined): T[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? [...(value as readonly T[])] : [value as T];
}
