import fc from 'fast-check';
import { AnyKind, KubeJson } from '../../src/core/contract/kind';
import { validateAsWritten } from '../../src/core/contract/validation';
import { canonicalJson, convertObject, versionNames, versionOf } from '../../src/core/contract/versions';
import { KindVersion } from '../../src/core/contract/version-layout';
import { KINDS } from '../../src/kinds';
import { formatFieldErrors, s } from '../../src/schema';
import { arbitraryOf, objectsOf, rejectionOf } from '../support/arbitrary';
import { defineVersionedTestKind } from '../../src/testing/test-kind';

/**
 * Lossless round trips, proven from the schemas: for every kind and every older version beside
 * its hub, 10,000 objects generated from the older version's layout go older -> hub -> older
 * and 10,000 generated from the hub's go hub -> older -> hub, and each must come back exactly
 * (deep equal, annotations included), every converted object valid in its target version. A
 * version that declares itself `lossy` fails. Objects come from test/support/arbitrary.ts.
 *
 * Replay a failure with the seed and path it prints:
 * `ROUNDTRIP_SEED=<seed> ROUNDTRIP_PATH=<path> npm run test:file -- test/kinds/conversion-roundtrip.test.ts`.
 */
const SEED = Number(process.env.ROUNDTRIP_SEED ?? 20_260_522);
const PATH = process.env.ROUNDTRIP_PATH;
const NUM_RUNS = 10_000;

/** The registered kinds, and the versioned test kind, so that the engine's conversions are proven before any real kind has two versions. */
const CHECKED: readonly AnyKind[] = [...KINDS, defineVersionedTestKind('RoundTripped', { render: () => undefined })];
const PAIRS = CHECKED.flatMap((kind) => (kind.olderVersions ?? []).map((older): [AnyKind, KindVersion] => [kind, older]));

/** Which way a round trip goes: from the older version through the hub, or from the hub through the older version. */
type Start = 'older' | 'hub';

/** Fails for a version that says its conversion loses something: a lossy conversion cannot ship. */
function refuseLossy(kind: AnyKind, older: KindVersion): void {
  if (older.lossy === undefined) return;
  throw new Error(
    `${kind.kind} ${older.name} is declared lossy: ${older.lossy}. A conversion must give back every object exactly: return what the other version cannot hold as \`kept\` (src/core/contract/version-layout.ts), and drop \`lossy\`.`,
  );
}

/** Generates objects in one version and takes each there and back through the other; fast-check's verdict, not thrown. */
function checkRoundTrips(kind: AnyKind, older: KindVersion, start: Start, numRuns = NUM_RUNS, seed = SEED): fc.RunDetails<[KubeJson]> {
  const [from, via] = start === 'older' ? [older.name, kind.version] : [kind.version, older.name];
  return fc.check(
    fc.property(objectsOf(kind, from), (object) => roundTrip(kind, object, via)),
    { numRuns, seed, includeErrorInReport: true, ...(PATH && seed === SEED ? { path: PATH } : {}) },
  );
}

/** One object there and back: throws, saying what differs, unless it returns exactly and is valid on the way. */
function roundTrip(kind: AnyKind, object: KubeJson, via: string): void {
  const original = structuredClone(object);
  const there = convertObject(kind, object, via);
  const valid = validateAsWritten(kind, there as unknown as Record<string, unknown>);
  if (!valid.ok) throw new Error(`converted to ${via}, the object is invalid there: ${formatFieldErrors(valid.errors)}\nconverted: ${canonicalJson(there)}`);
  const back = convertObject(kind, there, versionOf(kind, original));
  if (!sameJson(object, original)) throw new Error(`the conversion to ${via} changed the object it was given: ${difference(original, object)}`);
  if (!sameJson(back, original)) {
    throw new Error(`back from ${via}, the object is not the one it started as: ${difference(original, back)}\nin ${via}: ${canonicalJson(there)}\nback: ${canonicalJson(back)}`);
  }
}

/**
 * Whether two JSON values are exactly equal: the same keys (in any order), the same types and
 * values. (Node's isDeepStrictEqual would also compare prototypes, which differ between Jest's
 * realm and the one structuredClone builds in.)
 */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) return false;
  const [x, y] = [a as Record<string, unknown>, b as Record<string, unknown>];
  const keys = Object.keys(x);
  return keys.length === Object.keys(y).length && keys.every((k) => Object.hasOwn(y, k) && sameJson(x[k], y[k]));
}

/** The first place two JSON values differ, e.g. `spec.tags: ["a","b"] came back as ["a"]`. */
function difference(before: unknown, after: unknown, path = ''): string {
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;
  if (isObject(before) && isObject(after) && Array.isArray(before) === Array.isArray(after)) {
    for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
      if (!sameJson(before[key], after[key])) return difference(before[key], after[key], Array.isArray(before) ? `${path}[${key}]` : path ? `${path}.${key}` : key);
    }
  }
  const show = (v: unknown) => (v === undefined ? 'nothing' : JSON.stringify(v));
  return `${path || 'the object'}: ${show(before)} came back as ${show(after)}`;
}

/** Throws fast-check's report (the seed, the path and the smallest counterexample) for a failed check. */
function expectLossless(details: fc.RunDetails<[KubeJson]>): void {
  if (!details.failed) return;
  throw new Error(`${fc.defaultReportMessage(details)}\nReplay: ROUNDTRIP_SEED=${details.seed} ROUNDTRIP_PATH=${details.counterexamplePath ?? ''}`);
}

function timed<T>(what: string, count: number, run: () => T): T {
  const started = process.hrtime.bigint();
  const result = run();
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  console.log(`${what}: ${count} objects in ${(ms / 1000).toFixed(2)} s (${((ms * 1000) / count).toFixed(0)} µs each), seed ${SEED}`);
  return result;
}

describe('conversion round trips of every kind with older versions', () => {
  it('checks at least the versioned test kind, and every registered kind that has older versions', () => {
    const versioned = CHECKED.filter((kind) => kind.olderVersions?.length).map((kind) => `${kind.kind} (${versionNames(kind).join(', ')})`);
    console.log(`round trips checked for: ${versioned.join('; ')}; one version only: ${CHECKED.filter((kind) => !kind.olderVersions?.length).map((kind) => kind.kind).join(', ')}`);
    expect(versioned).toContain('RoundTripped (v2, v1)');
  });

  describe.each(PAIRS.map(([kind, older]) => ({ kind, older, name: `${kind.kind} ${kind.version} <-> ${older.name}` })))('$name', ({ kind, older }) => {
    it('is not declared lossy', () => refuseLossy(kind, older));

    it(`${older.name} -> ${kind.version} -> ${older.name} returns each of ${NUM_RUNS} generated objects exactly`, () => {
      refuseLossy(kind, older);
      expectLossless(timed(`${kind.kind} ${older.name} -> ${kind.version} -> ${older.name}`, NUM_RUNS, () => checkRoundTrips(kind, older, 'older')));
    });

    it(`${kind.version} -> ${older.name} -> ${kind.version} returns each of ${NUM_RUNS} generated objects exactly`, () => {
      refuseLossy(kind, older);
      expectLossless(timed(`${kind.kind} ${kind.version} -> ${older.name} -> ${kind.version}`, NUM_RUNS, () => checkRoundTrips(kind, older, 'hub')));
    });
  });
});

/**
 * What server-side apply sends a conversion webhook besides whole objects: when it prunes the
 * fields a manager owns, the object holds only some of them (no spec at all, or a spec with some
 * fields). A conversion must take such an object without failing and add no spec of its own:
 * the API server refuses the whole apply otherwise (HTTP 500 `failed to prune fields`).
 */
function partialObjectsOf(kind: AnyKind, version: string): fc.Arbitrary<KubeJson> {
  return objectsOf(kind, version).chain((object) => {
    const { spec, ...rest } = object as KubeJson & { spec?: Record<string, unknown> };
    if (spec === undefined) return fc.constant(object);
    return fc.option(fc.subarray(Object.keys(spec)), { nil: undefined }).map((keep) => (keep === undefined ? rest : { ...rest, spec: Object.fromEntries(keep.map((k) => [k, spec[k]])) }) as KubeJson);
  });
}

/** The fields a user writes: all but apiVersion, kind, metadata and status. */
const usersFields = (object: KubeJson) => Object.keys(object).filter((field) => !['apiVersion', 'kind', 'metadata', 'status'].includes(field));

describe('partial objects, as server-side apply sends them when it prunes fields', () => {
  it.each(PAIRS.flatMap(([kind, older]) => [kind.version, older.name].map((from) => ({ kind, from, to: from === kind.version ? older.name : kind.version, name: `${kind.kind} ${from}` }))))(
    '$name converts without failing and adds no spec',
    ({ kind, from, to }) => {
      const details = fc.check(
        fc.property(partialObjectsOf(kind, from), (object) => {
          const there = convertObject(kind, object, to);
          convertObject(kind, there, from);
          if (!usersFields(object).length && usersFields(there).length) throw new Error(`converted to ${to}, an object without spec gained ${usersFields(there).join(', ')}: ${canonicalJson(there)}`);
        }),
        { numRuns: 1000, seed: SEED },
      );
      if (details.failed) throw new Error(fc.defaultReportMessage(details));
    },
  );
});

describe('the generated objects', () => {
  it.each(CHECKED.flatMap((kind) => versionNames(kind).map((version) => ({ kind, version, name: `${kind.kind} ${version}` }))))(
    'of $name are mostly valid as generated (few rejected by the filter)',
    ({ kind, version }) => {
      const { rate, reasons } = rejectionOf(kind, version, 500, SEED);
      console.log(`${kind.kind} ${version}: ${(rate * 100).toFixed(1)}% of generated objects rejected by validation${reasons.length ? `, mostly: ${reasons.map(([r, n]) => `${r} (${n})`).join('; ')}` : ''}`);
      expect(rate).toBeLessThan(0.25);
    },
  );

  it('hold the edge values the schemas allow', () => {
    const kind = CHECKED.at(-1)!;
    const hub = fc.sample(objectsOf(kind, 'v2'), { numRuns: 3000, seed: SEED }).map((o) => o.spec as { size: number; tags?: string[] });
    const tags = hub.map((spec) => spec.tags);
    expect(tags).toContain(undefined);
    expect(tags).toContainEqual([]);
    expect(tags.some((t) => t?.length === 5)).toBe(true); // maxItems
    const each = tags.flatMap((t) => t ?? []);
    expect(each.some((t) => t.length === 1)).toBe(true); // minLength
    expect(each.some((t) => t.length === 20)).toBe(true); // maxLength
    expect(each.some((t) => /[^\x20-\x7e]/.test(t))).toBe(true); // beyond ASCII
    expect(each.some((t) => /[\u{10000}-\u{10ffff}]/u.test(t))).toBe(true); // two UTF-16 units
    const sizes = hub.map((spec) => spec.size);
    expect(sizes).toContain(1); // minimum
    expect(sizes).toContain(Number.MAX_SAFE_INTEGER); // no maximum: the largest exact integer
    const old = fc.sample(objectsOf(kind, 'v1'), { numRuns: 1000, seed: SEED });
    expect(old.some((o) => (o.spec as { tag?: string }).tag === undefined)).toBe(true);
    expect(old.some((o) => o.status !== undefined && o.metadata.annotations !== undefined)).toBe(true);
  });
});

describe('arbitraryOf', () => {
  it('gives both forms of an int-or-string, every value of an enum, and strings of a pattern within its length', () => {
    const quantities = fc.sample(arbitraryOf(s.quantity({ description: 'A size.' }).openApi), { numRuns: 1000, seed: SEED });
    expect(quantities.some((q) => typeof q === 'number')).toBe(true);
    expect(quantities.some((q) => typeof q === 'string' && /Gi$/.test(q))).toBe(true);
    const values = ['a', 'b', 'c'] as const;
    expect(new Set(fc.sample(arbitraryOf(s.enum(values, { description: 'One.' }).openApi), { numRuns: 200, seed: SEED }))).toEqual(new Set(values));
    const names = fc.sample(arbitraryOf(s.string({ description: 'A name.', pattern: '^[a-z]([-a-z0-9]*[a-z0-9])?$', maxLength: 5 }).openApi), { numRuns: 1000, seed: SEED }) as string[];
    expect(names.every((n) => /^[a-z]([-a-z0-9]*[a-z0-9])?$/.test(n) && n.length <= 5)).toBe(true);
    expect(names.some((n) => n.length === 5)).toBe(true);
  });
});

describe('the round-trip check catches a lossy conversion', () => {
  const kind = defineVersionedTestKind('Lossy', { render: () => undefined });
  const [v1] = kind.olderVersions!;
  /** The same kind with another v1 conversion from the hub. */
  const withFromHub = (fromHub: KindVersion['fromHub']): AnyKind => ({ ...kind, olderVersions: [{ ...v1, fromHub }] });

  it('finds one that drops the tags beyond the first, with a counterexample of two tags or more', () => {
    const drops = withFromHub((hub, kept) => {
      const converted = v1.fromHub(hub, kept);
      // Keeps nothing of a list longer than the one tag v1 shows.
      return ((hub.spec as { tags?: string[] }).tags?.length ?? 0) > 1 ? { object: converted.object } : converted;
    });
    const details = checkRoundTrips(drops, v1, 'hub');
    expect(details.failed).toBe(true);
    const [counterexample] = details.counterexample!;
    expect((counterexample.spec as { tags: string[] }).tags.length).toBeGreaterThanOrEqual(2);
    expect(fc.defaultReportMessage(details)).toMatch(/back from v1, the object is not the one it started as: spec\.tags\[1\]: ".*" came back as nothing/);
    expect(fc.defaultReportMessage(details)).toContain(`seed: ${SEED}`);
    // The other way, v1's one tag always comes back: only generating from both ends finds it.
    expect(checkRoundTrips(drops, v1, 'older', 1000).failed).toBe(false);
  });

  it('finds one that loses only an edge value (an empty list of tags)', () => {
    const dropsEmpty = withFromHub((hub, kept) => {
      const converted = v1.fromHub(hub, kept);
      return (hub.spec as { tags?: string[] }).tags?.length === 0 ? { object: converted.object } : converted;
    });
    const details = checkRoundTrips(dropsEmpty, v1, 'hub');
    expect(details.failed).toBe(true);
    expect(details.counterexample![0].spec).toEqual(expect.objectContaining({ tags: [] }));
  });

  it('finds a conversion whose result is invalid in its target version', () => {
    const emptyTag = withFromHub((hub, kept) => {
      const converted = v1.fromHub(hub, kept);
      return { ...converted, object: { ...converted.object, spec: { ...(converted.object.spec as object), tag: '' } } };
    });
    const details = checkRoundTrips(emptyTag, v1, 'hub', 1000);
    expect(details.failed).toBe(true);
    expect(fc.defaultReportMessage(details)).toMatch(/converted to v1, the object is invalid there: spec\.tag: must be at least 1 characters long/);
  });

  it('refuses a version declared lossy, with its reason', () => {
    const declared: AnyKind = { ...kind, olderVersions: [{ ...v1, lossy: 'why' }] };
    expect(() => refuseLossy(declared, declared.olderVersions![0])).toThrow(/^Lossy v1 is declared lossy: why\. A conversion must give back every object exactly/);
    expect(() => refuseLossy(kind, v1)).not.toThrow();
  });
});
