import fc from 'fast-check';
import { AnyKind, KubeJson } from '../../src/core/contract/kind';
import { validateAsWritten } from '../../src/core/contract/validation';
import { canonicalJson, CONVERSION_DATA_ANNOTATION, layoutOf } from '../../src/core/contract/versions';
import { formatFieldErrors, OpenApiSchema, Optional, Schema, schemaOf } from '../../src/schema';
import { QuantitySchema } from '../../src/schema/scalars';

/**
 * fast-check arbitraries built from the schemas themselves: the OpenAPI v3 structural schema a
 * CRD carries (`Schema.openApi`), and whole objects of one version of a kind. Values keep to
 * the schema, edge values included (empty and full lists and maps, shortest and longest
 * strings, bounds of integers, unicode, both forms of int-or-string, every enum value), so a
 * property test over them covers what a user may write without listing cases by hand.
 */

/** Longest string or list generated at exactly its schema's maximum; a longer maximum (a status message's 32768) is left to shorter values: each character costs time, 10,000 times over. */
const EDGE_LENGTH_CAP = 256;
/** About one list in this many is full: long lists cost time (a full list of 256 names costs as much as 50 objects), and 10,000 objects still hold about 30 full ones per field. */
const RARE_EDGE_WEIGHT = 300;
/** The characters of generated strings without a pattern: ASCII mostly, any Unicode grapheme (astral ones too) sometimes. */
const TEXT_UNITS = ['grapheme-ascii', 'grapheme'] as const;

/**
 * Patterns whose language is wider than what the controller's own check accepts, each with an
 * arbitrary of the values both accept. A Kubernetes quantity's CRD pattern (the API server's)
 * lets `1.2.3` through; the controller wants `<digits>[.<digits>][suffix]`, or a number.
 */
const KNOWN_PATTERNS: ReadonlyMap<string, () => fc.Arbitrary<unknown>> = new Map([
  [
    QuantitySchema.PATTERN,
    () =>
      fc.oneof(
        fc
          .tuple(fc.oneof(fc.nat({ max: 2048 }), fc.maxSafeNat()), fc.option(fc.stringMatching(/^[0-9]{1,6}$/), { nil: undefined }), fc.constantFrom('', 'm', 'k', 'M', 'G', 'T', 'P', 'E', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'))
          .map(([whole, fraction, suffix]) => `${whole}${fraction === undefined ? '' : `.${fraction}`}${suffix}`),
        fc.oneof(fc.constantFrom(0, 1, Number.MAX_SAFE_INTEGER), fc.maxSafeNat()),
      ),
  ],
]);

/** How large lists and maps grow (fast-check's size; their empty and full edges are generated at any size). */
export interface Sizing {
  readonly size?: fc.SizeForArbitrary;
}

/** A value of `schema`: what a manifest may write there. */
export function arbitraryOf(schema: OpenApiSchema, sizing: Sizing = {}): fc.Arbitrary<unknown> {
  return valueOf(schema, [], sizing);
}

function valueOf(node: OpenApiSchema, celPatterns: readonly string[], sizing: Sizing): fc.Arbitrary<unknown> {
  if (node.enum) return fc.constantFrom(...node.enum);
  const known = node.pattern === undefined ? undefined : KNOWN_PATTERNS.get(node.pattern);
  if (known) return known();
  if (node['x-kubernetes-int-or-string']) return fc.oneof(integerOf(node), stringOf(node, celPatterns));
  switch (node.type) {
    case 'string':
      return stringOf(node, celPatterns);
    case 'integer':
      return integerOf(node);
    case 'number':
      return numberOf(node);
    case 'boolean':
      return fc.boolean();
    case 'array':
      return arrayOf(node, sizing);
    case 'object':
      return node.properties ? recordOf(node, sizing) : node.additionalProperties ? mapOf(node, sizing) : node['x-kubernetes-preserve-unknown-fields'] ? fc.dictionary(keyOf(), fc.jsonValue(), { noNullPrototype: true, ...sizing }) : fc.constant({});
    case undefined: {
      // A node of no type (e.g. a string or a list of them) takes each type's keywords by the value's type.
      const forms: fc.Arbitrary<unknown>[] = [];
      if (node.pattern !== undefined || node.minLength !== undefined || node.maxLength !== undefined || node.format !== undefined) forms.push(stringOf(node, celPatterns));
      if (node.items) forms.push(arrayOf(node, sizing));
      if (!forms.length) throw new Error(`cannot generate values of a schema without a type or the keywords of one: ${JSON.stringify(node)}`);
      return fc.oneof(...forms);
    }
  }
}

function stringOf(node: OpenApiSchema, celPatterns: readonly string[]): fc.Arbitrary<string> {
  const min = node.minLength ?? 0;
  const max = node.maxLength;
  const fits = (text: string) => text.length >= min && (max === undefined || text.length <= max);
  if (node.format === 'date-time') return dateTime();
  const patterns = [...(node.pattern === undefined ? [] : [node.pattern]), ...celPatterns].map((p) => new RegExp(p, 'u'));
  if (patterns.length) {
    const matchesAll = (text: string) => fits(text) && patterns.every((p) => p.test(text));
    // Generated from the pattern whose strings pass the others most often, and checked against them.
    const candidates = patterns.map((p) => fc.stringMatching(p, max === undefined ? {} : { maxLength: max }));
    const [best] = candidates.map((arbitrary) => ({ arbitrary, passing: passingOf(arbitrary, matchesAll) })).sort((a, b) => b.passing - a.passing);
    const forms: fc.Arbitrary<string>[] = [best.arbitrary.filter(matchesAll)];
    // Text of any Unicode too, where the patterns are loose enough to let it through often (e.g. `\S`).
    const text = fc.string({ unit: 'grapheme', minLength: min, ...(max === undefined ? {} : { maxLength: max }) });
    if (passingOf(text, matchesAll) >= 0.5) forms.push(text.filter(matchesAll));
    return fc.oneof(...forms);
  }
  const forms: fc.WeightedArbitrary<string>[] = TEXT_UNITS.map((unit) => ({
    arbitrary: fc.string({ unit, minLength: min, ...(max === undefined ? {} : { maxLength: max }) }).filter(fits),
    weight: 10,
  }));
  // The edges: exactly as short and exactly as long as allowed.
  forms.push({ arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: min, maxLength: min }), weight: 1 });
  if (max !== undefined && max <= EDGE_LENGTH_CAP) forms.push({ arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: max, maxLength: max }), weight: 1 });
  // Unicode at the longest: as many characters as allowed, some of them two UTF-16 units (the controller counts units).
  if (max !== undefined && max <= EDGE_LENGTH_CAP) forms.push({ arbitrary: fc.array(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }), { minLength: max, maxLength: max }).map((graphemes) => longestPrefix(graphemes, max)).filter(fits), weight: 1 });
  return fc.oneof(...forms);
}

/** As many of `graphemes` as fit in `max` UTF-16 units, joined (a grapheme is never cut). */
function longestPrefix(graphemes: readonly string[], max: number): string {
  let text = '';
  for (const g of graphemes) {
    if (text.length + g.length > max) break;
    text += g;
  }
  return text;
}

/** The share of a sample of `arbitrary` that `test` accepts (with a fixed seed: the choice it informs is the same on every run). */
function passingOf(arbitrary: fc.Arbitrary<string>, test: (text: string) => boolean): number {
  return fc.sample(arbitrary, { numRuns: 100, seed: 1 }).filter(test).length / 100;
}

/** RFC 3339 times, as `metav1.Time` writes them (whole seconds, UTC). */
function dateTime(): fc.Arbitrary<string> {
  return fc
    .date({ min: new Date('0001-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true })
    .map((d) => d.toISOString().replace(/\.\d{3}Z$/, 'Z'));
}

function integerOf(node: OpenApiSchema): fc.Arbitrary<number> {
  const min = node.minimum ?? Number.MIN_SAFE_INTEGER;
  const max = node.maximum ?? Number.MAX_SAFE_INTEGER;
  const edges = [...new Set([min, min + 1, max - 1, max, -1, 0, 1])].filter((n) => n >= min && n <= max);
  return fc.oneof({ arbitrary: fc.constantFrom(...edges), weight: 1 }, { arbitrary: fc.bigInt({ min: BigInt(min), max: BigInt(max) }).map(Number), weight: 3 });
}

function numberOf(node: OpenApiSchema): fc.Arbitrary<number> {
  return fc
    .double({ noNaN: true, noDefaultInfinity: true, ...(node.minimum === undefined ? {} : { min: node.minimum }), ...(node.maximum === undefined ? {} : { max: node.maximum }) })
    .map((n) => (n === 0 ? 0 : n)); // JSON has no -0
}

function arrayOf(node: OpenApiSchema, sizing: Sizing): fc.Arbitrary<unknown[]> {
  const items = valueOf(node.items!, [], sizing);
  const min = node.minItems ?? 0;
  const max = node.maxItems;
  const listType = node['x-kubernetes-list-type'];
  const keys = node['x-kubernetes-list-map-keys'];
  const list = (minLength: number, maxLength: number | undefined) => {
    const bounds = { minLength, ...(maxLength === undefined ? {} : { maxLength }), ...sizing };
    if (listType === 'set') return fc.uniqueArray(items, { ...bounds, selector: canonicalJson });
    if (listType === 'map' && keys) return fc.uniqueArray(items, { ...bounds, selector: (item) => canonicalJson(keys.map((k) => (item as Record<string, unknown>)[k])) });
    return fc.array(items, bounds);
  };
  const forms: fc.WeightedArbitrary<unknown[]>[] = [{ arbitrary: list(min, max), weight: RARE_EDGE_WEIGHT }];
  // A full list: its maximum, unless the items cannot be that many distinct values (an enum's).
  const full = listType && node.items!.enum ? Math.min(max ?? Infinity, node.items!.enum.length) : max;
  if (full !== undefined && full <= EDGE_LENGTH_CAP && full >= min) forms.push({ arbitrary: list(full, full), weight: 1 });
  return fc.oneof(...forms);
}

function mapOf(node: OpenApiSchema, sizing: Sizing): fc.Arbitrary<Record<string, unknown>> {
  return fc.dictionary(keyOf(keyPatternOf(node)), valueOf(node.additionalProperties!, [], sizing), {
    noNullPrototype: true,
    ...sizing,
    ...(node.minProperties === undefined ? {} : { minKeys: node.minProperties }),
    ...(node.maxProperties === undefined ? {} : { maxKeys: node.maxProperties }),
  });
}

/**
 * A map's key: any text, or text matching the pattern a CEL rule puts on every key
 * (`self.all(k, k.matches('re') ...)`, e.g. label keys), so that most maps stay valid; a
 * `__proto__` key is left out (JavaScript objects, not the schema, treat it apart).
 */
function keyOf(pattern?: string): fc.Arbitrary<string> {
  const text = pattern ? fc.stringMatching(new RegExp(pattern, 'u'), { maxLength: 253 }) : fc.oneof(fc.string({ unit: 'grapheme-ascii' }), fc.string({ unit: 'grapheme' }));
  return text.filter((k) => k !== '__proto__');
}

function keyPatternOf(node: OpenApiSchema): string | undefined {
  const form = /^self\.all\((\w+), \1\.matches\('((?:[^'\\]|\\.)*)'\)/;
  return (node['x-kubernetes-validations'] ?? []).map((r) => form.exec(r.rule)?.[2]).find((p) => p !== undefined);
}

function recordOf(node: OpenApiSchema, sizing: Sizing): fc.Arbitrary<Record<string, unknown>> {
  const celPatterns = patternsOfRules((node['x-kubernetes-validations'] ?? []).map((r) => r.rule));
  const fields = Object.fromEntries(Object.entries(node.properties!).map(([name, property]) => [name, valueOf(property, celPatterns.get(name) ?? [], sizing)]));
  const record = fc.record(fields, { requiredKeys: node.required ?? [], noNullPrototype: true });
  const minProperties = node.minProperties;
  return minProperties === undefined ? record : record.filter((r) => Object.keys(r).length >= minProperties);
}

/**
 * The patterns CEL rules put on a field, `self.f.matches('re')` (or `!has(self.f) || ...`), by
 * field: where a rule checks a string against a regular expression rather than an OpenAPI
 * pattern (e.g. a pattern too long to quote in an error), generating from it keeps most
 * objects valid. Every other rule is left to the filter on the whole object.
 */
function patternsOfRules(rules: readonly string[]): Map<string, string[]> {
  const found = new Map<string, string[]>();
  const path = '[A-Za-z_][A-Za-z0-9_]*(?:\\.[A-Za-z_][A-Za-z0-9_]*)*';
  const form = new RegExp(`^(?:!has\\(self\\.(${path})\\)\\s*\\|\\|\\s*)?self\\.(${path})\\.matches\\('((?:[^'\\\\]|\\\\.)*)'\\)$`);
  for (const rule of rules) {
    const match = form.exec(rule.trim());
    if (!match || (match[1] !== undefined && match[1] !== match[2])) continue;
    const field = match[2].replace(/__dash__/g, '-').replace(/__dot__/g, '.').replace(/__slash__/g, '/').replace(/__underscores__/g, '__');
    found.set(field, [...(found.get(field) ?? []), match[3]]);
  }
  return found;
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
/** A label or annotation key: an optional DNS subdomain prefix and a name. */
const QUALIFIED_NAME = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const LABEL_VALUE = /^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$/;

/** Metadata, with a name and namespace that also match the patterns the layout's object rules put on them. */
function metadataOf(kind: AnyKind, rulePatterns: Map<string, string[]>): fc.Arbitrary<KubeJson['metadata']> {
  const name = (pattern: RegExp, maxLength: number, field: string) =>
    stringOf({ type: 'string', description: field, pattern: pattern.source, maxLength }, rulePatterns.get(`metadata.${field}`) ?? []);
  const few = { noNullPrototype: true, size: 'xsmall' } as const;
  const key = fc.stringMatching(QUALIFIED_NAME, { maxLength: 253 }).filter((k) => k !== CONVERSION_DATA_ANNOTATION && (k.split('/').at(-1) ?? '').length <= 63);
  const text = fc.oneof(...TEXT_UNITS.map((unit) => fc.string({ unit })));
  return fc.record(
    {
      name: name(DNS_SUBDOMAIN, 253, 'name'),
      namespace: name(DNS_LABEL, 63, 'namespace'),
      labels: fc.dictionary(key, fc.stringMatching(LABEL_VALUE, { maxLength: 63 }), few),
      // Never empty: the API server leaves an empty map out (ObjectMeta's omitempty), and so does the engine's annotation handling.
      annotations: fc.dictionary(key, text, { ...few, minKeys: 1 }),
      uid: fc.uuid(),
      resourceVersion: fc.nat().map(String),
      generation: fc.integer({ min: 1, max: 2 ** 31 - 1 }),
    },
    { requiredKeys: kind.scope === 'Namespaced' ? ['name', 'namespace'] : ['name'], noNullPrototype: true },
  ) as fc.Arbitrary<KubeJson['metadata']>;
}

/** The object schema of fields laid out beside `spec` (a legacy layout's top-level fields). */
function topLevelSchema(fields: Record<string, Schema<unknown> | Optional<unknown>>): OpenApiSchema {
  const required = Object.entries(fields).filter(([, f]) => !(f instanceof Optional) && !f.hasDefault);
  return {
    type: 'object',
    description: 'The top-level fields of a legacy layout.',
    properties: Object.fromEntries(Object.entries(fields).map(([name, f]) => [name, schemaOf(f).openApi])),
    required: required.map(([name]) => name),
  };
}

/**
 * Objects of `kind` written in `version` (the hub's or an older one's), not yet filtered: its
 * apiVersion in each group the kind is served in, metadata (name, namespace, sometimes labels,
 * annotations, uid, resourceVersion, generation), the spec from the version's layout (or, where
 * the layout has fields at the top level, those instead), and sometimes a status.
 */
export function unfilteredObjectsOf(kind: AnyKind, version: string): fc.Arbitrary<KubeJson> {
  const layout = layoutOf(kind, version);
  const spec = arbitraryOf(layout.spec.openApi).map((s) => ({ spec: s }));
  const body: fc.Arbitrary<Record<string, unknown>> = layout.legacyTopLevel ? fc.oneof(spec, arbitraryOf(topLevelSchema(layout.legacyTopLevel)) as fc.Arbitrary<Record<string, unknown>>) : spec;
  return fc
    .record(
      {
        apiVersion: fc.constantFrom(kind.group, ...(kind.extraGroups ?? [])).map((group) => `${group}/${version}`),
        kind: fc.constant(kind.kind),
        metadata: metadataOf(kind, patternsOfRules((layout.objectRules ?? []).map((r) => r.cel))),
        body,
        // In one object of four, with shorter lists: the controller's, it matters to a conversion only in passing through.
        status: fc.oneof({ arbitrary: fc.constant(undefined), weight: 3 }, { arbitrary: arbitraryOf(kind.status.openApi, { size: 'xsmall' }), weight: 1 }),
      },
      { noNullPrototype: true },
    )
    .map(({ body: fields, status, ...object }) => ({ ...object, ...fields, ...(status === undefined ? {} : { status }) }) as KubeJson);
}

/** Objects of `kind` written in `version` that its validation accepts (CEL rules and object rules included): what a user may apply. */
export function objectsOf(kind: AnyKind, version: string): fc.Arbitrary<KubeJson> {
  return unfilteredObjectsOf(kind, version).filter((object) => validateAsWritten(kind, object as unknown as Record<string, unknown>).ok);
}

/** How many of `samples` unfiltered objects validation refuses, and the most frequent reasons. */
export function rejectionOf(kind: AnyKind, version: string, samples: number, seed: number): { rate: number; reasons: [string, number][] } {
  const reasons = new Map<string, number>();
  let rejected = 0;
  for (const object of fc.sample(unfilteredObjectsOf(kind, version), { numRuns: samples, seed })) {
    const result = validateAsWritten(kind, object as unknown as Record<string, unknown>);
    if (result.ok) continue;
    rejected++;
    const reason = formatFieldErrors(result.errors).replace(/, got .*$/, '');
    reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
  }
  return { rate: rejected / samples, reasons: [...reasons].sort((a, b) => b[1] - a[1]).slice(0, 5) };
}
