import { answerConversionReview } from '../../src/core/conversion-review';
import { KubeJson } from '../../src/core/contract/kind';
import { validateResource } from '../../src/core/contract/validation';
import { canonicalJson, CONVERSION_DATA_ANNOTATION, convertObject, sameJson } from '../../src/core/contract/versions';
import { defineVersionedTestKind } from '../../src/testing/test-kind';

const kind = defineVersionedTestKind('Tagged', { render: () => undefined });
const group = kind.group;
const v1 = (spec: Record<string, unknown>, annotations?: Record<string, string>): KubeJson => ({
  apiVersion: `${group}/v1`,
  kind: 'Tagged',
  metadata: { name: 'one', namespace: 'ns', ...(annotations ? { annotations } : {}) },
  spec,
});
const v2 = (spec: Record<string, unknown>): KubeJson => ({ apiVersion: `${group}/v2`, kind: 'Tagged', metadata: { name: 'one', namespace: 'ns' }, spec });

describe('convertObject', () => {
  it('converts an older version to the hub and back, keeping nothing when the usual layout round-trips', () => {
    const hub = convertObject(kind, v1({ size: 2, tag: 'a' }), 'v2');
    expect(hub).toEqual(v2({ size: 2, tags: ['a'] }));
    expect(convertObject(kind, hub, 'v1')).toEqual(v1({ size: 2, tag: 'a' }));
  });

  it('keeps what the older version cannot hold in an annotation, and restores it', () => {
    const old = convertObject(kind, v2({ size: 2, tags: ['a', 'b'] }), 'v1');
    expect(old.spec).toEqual({ size: 2, tag: 'a' });
    expect(JSON.parse(old.metadata.annotations![CONVERSION_DATA_ANNOTATION])).toEqual({ v2: { tags: ['a', 'b'] } });
    expect(convertObject(kind, old, 'v2')).toEqual(v2({ size: 2, tags: ['a', 'b'] }));
  });

  it('keeps users’ own annotations and drops what no longer applies after an edit in the older version', () => {
    const old = convertObject(kind, { ...v2({ size: 2, tags: ['a', 'b'] }), metadata: { name: 'one', namespace: 'ns', annotations: { mine: 'x' } } }, 'v1');
    const edited = { ...old, spec: { size: 2, tag: 'c' } };
    const hub = convertObject(kind, edited, 'v2');
    expect(hub.spec).toEqual({ size: 2, tags: ['c'] });
    expect(hub.metadata.annotations).toEqual({ mine: 'x' });
  });

  it('names the field for an unknown version', () => {
    expect(() => convertObject(kind, v1({ size: 1 }), 'v3')).toThrow(/apiVersion: unknown version "v3" of Tagged; expected v2 or v1/);
  });
});

describe('validateResource in an older version', () => {
  it('checks the object in its own layout and returns the hub’s spec', () => {
    expect(validateResource(kind, v1({ size: 1, tag: 'x' }) as unknown as Record<string, unknown>)).toEqual({ ok: true, spec: { size: 1, tags: ['x'] } });
    const bad = validateResource(kind, v1({ size: 0, tags: ['x'] }) as unknown as Record<string, unknown>);
    expect(bad.ok).toBe(false);
    expect(JSON.stringify(bad)).toContain('spec.size');
  });
});

describe('answerConversionReview', () => {
  const review = (request: unknown) => answerConversionReview([kind], { apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', request });

  it('converts every object to the desired version', () => {
    const answer = review({ uid: 'u1', desiredAPIVersion: `${group}/v2`, objects: [v1({ size: 1, tag: 'a' }), v2({ size: 3 })] });
    expect(answer.response).toEqual({ uid: 'u1', result: { status: 'Success' }, convertedObjects: [v2({ size: 1, tags: ['a'] }), v2({ size: 3 })] });
  });

  it.each([
    ['a body that is no ConversionReview', 'nonsense', /apiVersion: expected a ConversionReview/],
    ['no uid', { desiredAPIVersion: `${group}/v2`, objects: [] }, /request.uid: is required/],
    ['no desired version', { uid: 'u', objects: [] }, /request.desiredAPIVersion: is required/],
    ['an unknown version', { uid: 'u', desiredAPIVersion: `${group}/v9`, objects: [v1({ size: 1 })] }, /Tagged ns\/one: apiVersion: unknown version "v9"/],
    ['an object of another group', { uid: 'u', desiredAPIVersion: `other.io/v2`, objects: [v1({ size: 1 })] }, /Tagged ns\/one is in group/],
    ['an object that is not one', { uid: 'u', desiredAPIVersion: `${group}/v2`, objects: [42] }, /request.objects\[0\]: expected an object/],
  ])('fails, converting nothing, for %s', (_what, request, message) => {
    const answer = answerConversionReview([kind], typeof request === 'string' ? request : { apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', request });
    expect(answer.response.result.status).toBe('Failure');
    expect(answer.response.convertedObjects).toEqual([]);
    expect((answer.response.result as { message: string }).message).toMatch(message);
  });

  it('refuses a conversion that would turn a valid object into an invalid one, naming the field', () => {
    const answer = review({ uid: 'u', desiredAPIVersion: `${group}/v2`, objects: [v1({ size: 1, tag: 'x' }, { [CONVERSION_DATA_ANNOTATION]: JSON.stringify({ v2: { tags: ['x', '', 'y'] } }) })] });
    expect(answer.response.result).toEqual({ status: 'Failure', message: expect.stringMatching(/^Tagged ns\/one: spec.tags\[1\]: must be at least 1 characters long, got "": the object converted to v2 is invalid$/) });
  });
});

describe('sameJson', () => {
  it('compares JSON by content, whatever the order of object keys, as canonicalJson does', () => {
    const pairs: [unknown, unknown][] = [
      [{ a: 1, b: { c: [1, { d: 'x', e: null }] } }, { b: { c: [1, { e: null, d: 'x' }] }, a: 1 }],
      [{ a: 1 }, { a: 1, b: undefined }],
      [[1, 2], [2, 1]],
      [{ a: [] }, { a: {} }],
      [{ a: null }, {}],
      [{ a: '1' }, { a: 1 }],
      [[{ a: 1 }], [{ a: 1 }, { a: 1 }]],
      [0, false],
      ['', null],
    ];
    for (const [a, b] of pairs) {
      expect([a, b, sameJson(a, b)]).toEqual([a, b, canonicalJson(a) === canonicalJson(b)]);
      expect(sameJson(b, a)).toBe(sameJson(a, b));
    }
  });
});
