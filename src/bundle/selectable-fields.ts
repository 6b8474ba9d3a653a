import { PrinterColumn } from '../core/contract/version-layout';
import { OpenApiSchema } from '../schema';

/** The API server's limit of selectable fields per CRD version. */
export const MAX_SELECTABLE_FIELDS = 8;

/** The types a field selector can match (the API server refuses others). */
const SELECTABLE_TYPES = new Set(['string', 'integer', 'boolean']);

/**
 * A CRD version's `selectableFields`: the JSON paths of its printer columns marked `selectable`,
 * so `kubectl get <plural> --field-selector spec.brand=Fender` (and a list or watch with a
 * fieldSelector) filters on the server. The API server refuses a CRD whose selectable field is
 * not a scalar string, integer or boolean of the schema outside any list, or more than eight:
 * checked here, at synth, naming the kind, version and column.
 */
export function selectableFieldsOf(where: string, columns: readonly PrinterColumn[], schema: OpenApiSchema): { jsonPath: string }[] {
  const selectable = columns.filter((column) => column.selectable);
  if (selectable.length > MAX_SELECTABLE_FIELDS) {
    throw new Error(`${where}: ${selectable.length} printer columns are selectable, the API server allows ${MAX_SELECTABLE_FIELDS}`);
  }
  return selectable.map((column) => {
    const problem = scalarProblem(schema, column.jsonPath);
    if (problem) throw new Error(`${where}: printer column ${column.name} is selectable, but ${column.jsonPath} ${problem}`);
    return { jsonPath: column.jsonPath };
  });
}

/** Why `jsonPath` cannot be selected in `schema`, or undefined if it can. */
function scalarProblem(schema: OpenApiSchema, jsonPath: string): string | undefined {
  if (!/^(\.[A-Za-z0-9_-]+)+$/.test(jsonPath)) return 'is not a plain path of fields (.a.b): a field selector cannot reach into lists or filters';
  let at: OpenApiSchema | undefined = schema;
  for (const field of jsonPath.slice(1).split('.')) {
    if (at?.type !== 'object' || !at.properties?.[field]) return `is not a field of the schema (no ${field})`;
    at = at.properties[field];
  }
  if (!at.type || !SELECTABLE_TYPES.has(at.type)) return `is of type ${at.type ?? 'any'}: a field selector matches a string, an integer or a boolean`;
  return undefined;
}
