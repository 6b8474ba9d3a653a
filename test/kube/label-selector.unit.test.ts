import { labelSelector, matchesLabels } from '../../src/kube/discovery';
import { isLabelKey, isLabelValue } from '../../src/schema';

// The selector a query sends the API server: equality terms only, whatever a spec held.
describe('labelSelector, the encoder of a query\u2019s labels', () => {
  it('joins label keys and values as equality terms, sorted, so equal selectors share one watch', () => {
    expect(labelSelector({ team: 'a', 'app.kubernetes.io/name': 'web', empty: '' })).toBe('app.kubernetes.io/name=web,empty=,team=a');
    expect(labelSelector({})).toBeUndefined();
    expect(labelSelector(undefined)).toBeUndefined();
  });

  it.each([
    [{ 'x!': 'y' }, '"x!" is no label key'], // would be sent as x!=y: every object without x=y
    [{ 'a in (b)': 'c' }, '"a in (b)" is no label key'],
    [{ '': 'y' }, '"" is no label key'],
    [{ 'Example.com/a': 'y' }, '"Example.com/a" is no label key'],
    [{ [`${'p'.repeat(254)}/a`]: 'y' }, 'is no label key'],
    [{ ['k'.repeat(64)]: 'y' }, 'is no label key'],
    [{ team: 'a,kind!=x' }, 'the value of team is no label value: "a,kind!=x"'], // a further term
    [{ team: 'a=b' }, 'the value of team is no label value'],
    [{ team: ' a' }, 'the value of team is no label value'],
    [{ team: 'v'.repeat(64) }, 'the value of team is no label value'],
  ])('refuses %j, never sending it', (labels, message) => {
    expect(() => labelSelector(labels)).toThrow(message);
  });

  it('refuses a value that is no string', () => {
    expect(() => labelSelector({ team: 7 as unknown as string })).toThrow('the value of team is no label value: 7');
  });
});

describe('the label grammar', () => {
  it('takes qualified names with an optional DNS-subdomain prefix, and values of at most 63 characters', () => {
    for (const key of ['a', 'a.b_c-d', 'example.com/a', 'a.b.c/X_y.z', `${'p'.repeat(63)}.${'q'.repeat(63)}/${'n'.repeat(63)}`]) expect([key, isLabelKey(key)]).toEqual([key, true]);
    for (const key of ['-a', 'a-', 'a/b/c', '/a', 'example.com/', 'a b']) expect([key, isLabelKey(key)]).toEqual([key, false]);
    for (const value of ['', 'a', 'A-b_c.d', 'v'.repeat(63)]) expect([value, isLabelValue(value)]).toEqual([value, true]);
    for (const value of ['-a', 'a,b', 'a=b', 'a!', 'v'.repeat(64)]) expect([value, isLabelValue(value)]).toEqual([value, false]);
  });
});

describe('matchesLabels, the same selector in process', () => {
  it('holds when every key carries its value, and only then', () => {
    expect(matchesLabels({ team: 'a', x: 'y' }, { team: 'a' })).toBe(true);
    expect(matchesLabels({ team: 'b' }, { team: 'a' })).toBe(false);
    expect(matchesLabels(undefined, { team: 'a' })).toBe(false);
    expect(matchesLabels({ empty: '' }, { empty: '' })).toBe(true);
    expect(matchesLabels(undefined, {})).toBe(true);
  });
});
