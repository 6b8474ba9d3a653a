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
 * A structural CRD schema cannot declare two types, nor a type inside anyOf, and a CEL rule
 * cannot sit on a node without a type (the API server has no CEL type for it). So the node
 * declares none (`x-kubernetes-preserve-unknown-fields`) and carries both shapes'
 * validations, which OpenAPI applies by the value's own type: the string keywords (pattern,
 * length) to a string, the list keywords (items, minItems, maxItems) to a list. Every other
 * type is refused by keywords no value of it can pass: a number is never both at most 0 and
 * at least 1, a map never has both at most 0 and at least 1 field, and a boolean is in
 * [true, false]. The API server's words for those three are generic, but name the field;
 * the controller's check below says what was expected.
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
      maximum: 0,
      minimum: 1,
      maxProperties: 0,
      minProperties: 1,
      not: { enum: [true, false] },
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
