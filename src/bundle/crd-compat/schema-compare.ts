import { canonicalJson } from '../../core/contract/versions';
import { CelRule, tighteningRules } from './cel-rules';
import { CrdRule } from './finding';

type Json = Record<string, unknown>;

/** A break found in one version's schema: where, which rule, and what changed. */
export interface SchemaBreak {
  readonly path: string;
  readonly rule: CrdRule;
  readonly message: string;
}

/** Keywords that only document a field: changing them never refuses an object. */
const DOCUMENTATION = new Set(['description', 'title', 'example', 'externalDocs']);

const LOWER_BOUNDS = ['minimum', 'minLength', 'minItems', 'minProperties'] as const;
const UPPER_BOUNDS = ['maximum', 'maxLength', 'maxItems', 'maxProperties'] as const;

/** Keywords of flags that, once true, accept more: turning one off is a break, on is safe. */
const WIDENING_FLAGS = ['nullable', 'x-kubernetes-preserve-unknown-fields', 'x-kubernetes-int-or-string'] as const;

/** Keywords whose any change is a break, each its own rule (a default removed too: new objects read differently). */
const FIXED = ['type', 'default', 'x-kubernetes-list-type', 'x-kubernetes-list-map-keys'] as const;

const MODELLED = new Set<string>([
  ...DOCUMENTATION,
  ...LOWER_BOUNDS,
  ...UPPER_BOUNDS,
  ...WIDENING_FLAGS,
  ...FIXED,
  'pattern',
  'properties',
  'additionalProperties',
  'items',
  'required',
  'enum',
  'x-kubernetes-validations',
]);

const same = (a: unknown, b: unknown) => canonicalJson(a) === canonicalJson(b);
const show = (value: unknown) => (value === undefined ? 'none' : JSON.stringify(value));
const child = (path: string, name: string) => (path ? `${path}.${name}` : name);
const isSchema = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Every way `after` accepts less than `before` (or reads stored data differently), recursively,
 * for one version's openAPIV3Schema. A keyword not modelled here that changed is reported as
 * `unknown`: the check fails closed.
 */
export function schemaBreaks(before: Json, after: Json, path = ''): SchemaBreak[] {
  const breaks: SchemaBreak[] = [];
  const found = (rule: CrdRule, message: string, at = path) => breaks.push({ path: at, rule, message });

  for (const key of FIXED) {
    if (same(before[key], after[key])) continue;
    const verb = before[key] === undefined ? 'added' : after[key] === undefined ? 'removed' : 'changed';
    found(key, `${key} ${verb}: ${show(before[key])} -> ${show(after[key])}`);
  }
  // A pattern removed accepts more; one added or changed may refuse stored values.
  if (after.pattern !== undefined && before.pattern !== after.pattern) found('pattern', `pattern ${before.pattern === undefined ? 'added' : 'changed'}: ${show(before.pattern)} -> ${show(after.pattern)}`);
  for (const key of WIDENING_FLAGS) {
    if (before[key] === true && after[key] !== true) found(key, `${key} removed: values it allowed are refused or pruned now`);
  }
  for (const key of LOWER_BOUNDS) {
    const [was, now] = [before[key] as number | undefined, after[key] as number | undefined];
    if (now !== undefined && (was === undefined || now > was)) found(key, `${key} ${was === undefined ? 'added' : 'raised'}: ${show(was)} -> ${now}`);
  }
  for (const key of UPPER_BOUNDS) {
    const [was, now] = [before[key] as number | undefined, after[key] as number | undefined];
    if (now !== undefined && (was === undefined || now < was)) found(key, `${key} ${was === undefined ? 'added' : 'lowered'}: ${show(was)} -> ${now}`);
  }
  breaks.push(...enumBreaks(before.enum, after.enum, path));
  const wasRequired = new Set((before.required as string[] | undefined) ?? []);
  for (const name of (after.required as string[] | undefined) ?? []) {
    if (!wasRequired.has(name)) found('required', `${name} is required now: objects stored without it are refused`, child(path, name));
  }
  for (const rule of tighteningRules((before['x-kubernetes-validations'] as CelRule[] | undefined) ?? [], (after['x-kubernetes-validations'] as CelRule[] | undefined) ?? [])) {
    found('x-kubernetes-validations', `validation rule added or changed: ${rule.rule}`);
  }
  breaks.push(...nestedBreaks(before, after, path));
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (!MODELLED.has(key) && !same(before[key], after[key])) found('unknown', `unknown change of ${key}: ${show(before[key])} -> ${show(after[key])}`);
  }
  return breaks;
}

function enumBreaks(before: unknown, after: unknown, path: string): SchemaBreak[] {
  if (after === undefined) return [];
  if (before === undefined) return [{ path, rule: 'enum', message: `enum added where any value was allowed: ${show(after)}` }];
  const kept = new Set((after as unknown[]).map((v) => canonicalJson(v)));
  const dropped = (before as unknown[]).filter((v) => !kept.has(canonicalJson(v)));
  return dropped.length ? [{ path, rule: 'enum', message: `enum narrowed: ${show(dropped)} no longer allowed` }] : [];
}

/** Properties, list items and map values, each compared with its previous self. */
function nestedBreaks(before: Json, after: Json, path: string): SchemaBreak[] {
  const breaks: SchemaBreak[] = [];
  const oldProperties = (before.properties as Record<string, Json> | undefined) ?? {};
  const newProperties = (after.properties as Record<string, Json> | undefined) ?? {};
  for (const [name, schema] of Object.entries(oldProperties)) {
    const at = child(path, name);
    if (newProperties[name] === undefined) breaks.push({ path: at, rule: 'existingFieldRemoval', message: 'field removed: stored values are pruned, manifests that set it refused (strict field validation, kubectl\u2019s default)' });
    else breaks.push(...schemaBreaks(schema, newProperties[name], at));
  }
  for (const [key, suffix] of [['items', '[*]'], ['additionalProperties', '.*']] as const) {
    const [was, now] = [before[key], after[key]];
    if (isSchema(was) && isSchema(now)) breaks.push(...schemaBreaks(was, now, `${path}${suffix}`));
    else if (was !== undefined && now === undefined) breaks.push({ path: `${path}${suffix}`, rule: 'existingFieldRemoval', message: `${key} removed` });
    else if (!same(was, now) && was !== undefined) breaks.push({ path: `${path}${suffix}`, rule: 'unknown', message: `unknown change of ${key}: ${show(was)} -> ${show(now)}` });
  }
  return breaks;
}
