import { SYSTEM_CLOCK } from '../../src/core/contract/clock';
import { Clock, CustomResource } from '../../src/core/contract/kind';
import { MAX_TIMER_MS, nextLook, wakeAtOf } from '../../src/runtime/wake';

const NOW = Date.parse('2026-11-28T12:00:00Z');
const RESYNC = 10 * 60_000;
const at = (clock: Clock) => clock.now().getTime();

describe('the next look at a reconciled object', () => {
  it('wakes at a time sooner than the resync, as a normal look', () => {
    expect(nextLook(new Date(NOW + 30_000), NOW, RESYNC)).toEqual({ afterMs: 30_000, priority: 'normal' });
    expect(nextLook(NOW + 30_000, NOW, RESYNC)).toEqual({ afterMs: 30_000, priority: 'normal' });
  });

  it('takes a time past, or 0, for now', () => {
    expect(nextLook(new Date(NOW - 5_000), NOW, RESYNC)).toEqual({ afterMs: 0, priority: 'normal' });
    expect(nextLook(0, NOW, RESYNC)).toEqual({ afterMs: 0, priority: 'normal' });
  });

  it('leaves the object to the resync when it wants no wake', () => {
    expect(nextLook('never', NOW, RESYNC)).toEqual({ afterMs: RESYNC, priority: 'low' });
    expect(nextLook(undefined, NOW, RESYNC)).toEqual({ afterMs: RESYNC, priority: 'low' });
  });

  it('looks at the resync first when the wake is later (the resync asks again), and never later than a timer can wait', () => {
    expect(nextLook(NOW + 3 * RESYNC, NOW, RESYNC)).toEqual({ afterMs: RESYNC, priority: 'low' });
    expect(nextLook(NOW + 90 * 86_400_000, NOW, 60 * 86_400_000)).toEqual({ afterMs: MAX_TIMER_MS, priority: 'low' });
  });

  it('comes back for a held child write if that is sooner', () => {
    expect(nextLook(NOW + 30_000, NOW, RESYNC, 5_000)).toEqual({ afterMs: 5_000, priority: 'normal' });
    expect(nextLook('never', NOW, RESYNC, 5_000)).toEqual({ afterMs: 5_000, priority: 'normal' });
  });

  it('refuses a time that is not one, naming the hook', () => {
    expect(() => nextLook(new Date('nonsense'), NOW, RESYNC)).toThrow(/wakeAt gave an invalid time \(Invalid Date\)/);
    expect(() => nextLook(NaN, NOW, RESYNC)).toThrow(/wakeAt gave an invalid time/);
  });
});

describe('the wake time a kind asks for', () => {
  const resource = { apiVersion: 'x/v1', kind: 'X', metadata: { name: 'x' }, spec: { every: 7_000 }, status: { last: NOW - 1_000 } };
  const fixed: Clock = { now: () => new Date(NOW) };

  it('is its wakeAt, given the object with its status, the observation and the clock', () => {
    const wakeAt = jest.fn((r: CustomResource<{ every: number }, { last: number }>, observation: unknown, clock: Clock) => r.status!.last + r.spec.every + (observation as number) + at(clock) - NOW);
    expect(wakeAtOf({ wakeAt }, resource, 3_000, fixed)).toBe(NOW + 9_000);
    expect(wakeAt).toHaveBeenCalledWith(resource, 3_000, fixed);
  });

  it('is the older requeueAfterMs counted from the clock when the kind has no wakeAt, and nothing without either', () => {
    expect(wakeAtOf({ requeueAfterMs: (spec: { every: number }) => spec.every }, resource, undefined, fixed)).toBe(NOW + 7_000);
    expect(wakeAtOf({ requeueAfterMs: () => 0 }, resource, undefined, fixed)).toBe(NOW);
    expect(wakeAtOf({}, resource, undefined, SYSTEM_CLOCK)).toBeUndefined();
    expect(wakeAtOf(undefined, resource, undefined, SYSTEM_CLOCK)).toBeUndefined();
  });
});
