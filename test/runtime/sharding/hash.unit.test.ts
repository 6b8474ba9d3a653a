import { Rendezvous } from '../../../src/runtime/sharding/hash';

const KEYS = Array.from({ length: 20_000 }, (_, i) => `exchangerates.operators.brennerm.github.io|team-${i % 37}/rate-${i}`);
const assignAll = (members: string[]) => {
  const ring = new Rendezvous(members);
  return KEYS.map((key) => ring.assign(key));
};
const moved = (a: (string | undefined)[], b: (string | undefined)[]) => a.filter((member, i) => member !== b[i]).length / KEYS.length;

describe('Rendezvous', () => {
  it('assigns nothing without members, and everything to a single one', () => {
    expect(new Rendezvous([]).assign('a')).toBeUndefined();
    expect(new Set(assignAll(['only']))).toEqual(new Set(['only']));
  });

  it('gives every member about 1/N of the objects', () => {
    for (const n of [2, 3, 4, 8]) {
      const members = Array.from({ length: n }, (_, i) => `cdk8s-operators-7d9f8c6b5-${i}x${i}`);
      const counts = new Map<string, number>();
      for (const member of assignAll(members)) counts.set(member!, (counts.get(member!) ?? 0) + 1);
      for (const count of counts.values()) expect(Math.abs(count / KEYS.length - 1 / n)).toBeLessThan(0.2 / n);
    }
  });

  it('moves about 1/N of the objects when one joins, and only the leaver\u2019s when one leaves', () => {
    const three = ['replica-a', 'replica-b', 'replica-c'];
    const before = assignAll(three);
    const joined = assignAll([...three, 'replica-d']);
    // A fourth member takes about a quarter, each from whoever had it.
    expect(moved(before, joined)).toBeGreaterThan(0.2);
    expect(moved(before, joined)).toBeLessThan(0.3);
    expect(joined.filter((m, i) => m !== before[i]).every((m) => m === 'replica-d')).toBe(true);
    const left = assignAll(['replica-a', 'replica-c']);
    const leaverShare = before.filter((m) => m === 'replica-b').length / KEYS.length;
    expect(moved(before, left)).toBeCloseTo(leaverShare, 10);
    expect(before.filter((m, i) => m !== left[i]).every((m) => m === 'replica-b')).toBe(true);
  });

  it('answers the same whatever order the members are listed in', () => {
    expect(assignAll(['c', 'a', 'b'])).toEqual(assignAll(['a', 'b', 'c']));
  });
});
