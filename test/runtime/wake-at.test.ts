import { Clock, KindDefinition, WakeAt } from '../../src/core/contract/kind';
import { eventually } from '../../src/testing/cluster';
import { TestClock } from '../../src/testing/test-clock';
import { defineTestKind, serveTestKindForSuite, TestSpec } from '../../src/testing/test-kind';

/** A clock some 35 years ahead: a hook that reads the real time instead shows it at once. */
const AHEAD_MS = Date.parse('2061-07-28T00:00:00Z') - Date.parse('2026-01-01T00:00:00Z');
const fakeClock: Clock = { now: () => new Date(Date.now() + AHEAD_MS) };

/** What one hook was asked, when (by the clock it was given, and by the real one), for which object. */
interface Call {
  readonly name: string;
  readonly hook: 'observer' | 'render' | 'wakeAt';
  readonly clockMs: number;
  readonly realMs: number;
  /** wakeAt: whether the object it was given carried the Ready condition the engine writes. */
  readonly hadReady?: boolean;
}

/** What an object's wakeAt answers, given when the object's first reconcile was (by the clock) and now. */
type Plan = (firstMs: number, nowMs: number) => WakeAt;

/**
 * A kind that renders nothing (so no child of its own queues it) and asks, per object name, the
 * wake `plans` give; each hook notes its call and the clock it was handed.
 */
function timedKind(kind: string, plans: Record<string, Plan>, calls: Call[]): KindDefinition<TestSpec> {
  const note = (name: string, hook: Call['hook'], clock: Clock, hadReady?: boolean) => calls.push({ name, hook, clockMs: clock.now().getTime(), realMs: Date.now(), hadReady });
  const first = new Map<string, number>();
  return defineTestKind(kind, {
    render: (_scope, resource, _observation, clock) => void note(resource.metadata.name, 'render', clock!),
    controller: {
      observer: ({ clock }) => async (resource) => void note(resource.metadata.name, 'observer', clock),
      wakeAt: (resource, _observation, clock) => {
        const name = resource.metadata.name;
        const nowMs = clock.now().getTime();
        note(name, 'wakeAt', clock, (resource.status as { conditions?: { type: string }[] } | undefined)?.conditions?.some((c) => c.type === 'Ready') ?? false);
        if (!first.has(name)) first.set(name, nowMs);
        return plans[name](first.get(name)!, nowMs);
      },
    },
  });
}

const FOUR_S = 4_000;
/** Once, at once (a time past, or 0), then no more. */
const onceAtOnce = (at: (firstMs: number) => WakeAt): Plan => (firstMs, nowMs) => (nowMs === firstMs ? at(firstMs) : 'never');
/** At `afterMs` after the first reconcile, then no more. */
const onceAfter = (afterMs: number): Plan => (firstMs, nowMs) => (nowMs >= firstMs + afterMs ? 'never' : firstMs + afterMs);

const reconcilesOf = (calls: Call[], name: string) => calls.filter((c) => c.name === name && c.hook === 'observer');
const object = (namespace: string, kind: string, name: string) => ({ apiVersion: `${kind.toLowerCase()}.test.cdk8s-operators.io/v1`, kind, metadata: { name, namespace }, spec: { size: 1 } });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a kind that wakes its objects at times of its own (resync period 60 s)', () => {
  const calls: Call[] = [];
  const plans: Record<string, Plan> = {
    later: onceAfter(FOUR_S),
    never: () => 'never',
    past: onceAtOnce((firstMs) => new Date(firstMs - 3_600_000)),
    zero: onceAtOnce(() => 0),
  };
  const served = serveTestKindForSuite(timedKind('Timed', plans, calls), 'wake-at', undefined, { resyncMs: 60_000, clock: fakeClock });

  it('reconciles at the time asked, at once for a time past or 0, never again for never; each hook gets the clock', async () => {
    for (const name of Object.keys(plans)) await served.objects.apply(object(served.namespace, 'Timed', name));
    await eventually('the first reconcile of each object', async () => (Object.keys(plans).every((name) => reconcilesOf(calls, name).length) ? true : undefined));
    await sleep(FOUR_S + 3_000);

    const later = reconcilesOf(calls, 'later');
    expect(later).toHaveLength(2);
    const wokeAfterMs = later[1].clockMs - later[0].clockMs;
    expect(wokeAfterMs).toBeGreaterThanOrEqual(FOUR_S);
    expect(wokeAfterMs).toBeLessThan(FOUR_S + 1_500);
    // The wake's reconcile read the object as the first one left it.
    expect(calls.filter((c) => c.name === 'later' && c.hook === 'wakeAt').map((c) => c.hadReady)).toEqual([false, true]);

    expect(reconcilesOf(calls, 'never')).toHaveLength(1);
    for (const name of ['past', 'zero']) {
      // The wake at once, and nothing after it. An event of the first moments (the status the first
      // reconcile wrote, say) may add a reconcile beside it; none comes seconds later.
      const seen = reconcilesOf(calls, name);
      expect(seen.length).toBeGreaterThanOrEqual(2);
      expect(seen.map((c) => c.realMs - seen[0].realMs).filter((afterMs) => afterMs >= 1_500)).toEqual([]);
    }

    // Every hook read the clock it was handed, not the real time.
    const year = (ms: number) => new Date(ms).getUTCFullYear();
    expect(new Set(calls.map((c) => c.hook))).toEqual(new Set(['observer', 'render', 'wakeAt']));
    expect(calls.filter((c) => year(c.clockMs) !== year(c.realMs + AHEAD_MS))).toEqual([]);
    expect(calls.every((c) => year(c.clockMs) >= 2061)).toBe(true);
  });
});

describe('a wake later than the resync period (2 s)', () => {
  const calls: Call[] = [];
  const WAKE_MS = 5_000;
  const served = serveTestKindForSuite(timedKind('Resynced', { beyond: onceAfter(WAKE_MS) }, calls), 'wake-beyond', undefined, { resyncMs: 2_000, clock: fakeClock });

  it('still reconciles at the time asked, the resyncs going on meanwhile', async () => {
    await served.objects.apply(object(served.namespace, 'Resynced', 'beyond'));
    await eventually('the first reconcile', async () => (reconcilesOf(calls, 'beyond').length ? true : undefined));
    await sleep(WAKE_MS + 2_500);

    const [first, ...later] = reconcilesOf(calls, 'beyond');
    const after = later.map((c) => c.clockMs - first.clockMs);
    // The resyncs at about 2 s and 4 s, the wake at 5 s, which then asks no more: the next resync at about 7 s.
    expect(after.filter((ms) => ms < WAKE_MS).length).toBeGreaterThanOrEqual(2);
    expect(after.filter((ms) => ms >= WAKE_MS && ms < WAKE_MS + 1_500)).toHaveLength(1);
  });
});

describe('a test clock that jumps (resync period 60 s)', () => {
  const calls: Call[] = [];
  const HOUR = 3_600_000;
  const clock = new TestClock();
  const served = serveTestKindForSuite(timedKind('Jumped', { hourly: onceAfter(HOUR) }, calls), 'wake-jump', undefined, { resyncMs: 60_000, clock });

  it('reconciles at once an object whose wake time the jump reached', async () => {
    await served.objects.apply(object(served.namespace, 'Jumped', 'hourly'));
    await eventually('the first reconcile', async () => (reconcilesOf(calls, 'hourly').length ? true : undefined));
    await sleep(1_000);
    expect(reconcilesOf(calls, 'hourly')).toHaveLength(1);
    clock.advance(HOUR);
    const [first, woken] = await eventually('the wake after the jump', async () => {
      const seen = reconcilesOf(calls, 'hourly');
      return seen.length >= 2 ? seen : undefined;
    });
    expect(woken.realMs - first.realMs).toBeLessThan(5_000);
    expect(woken.clockMs - first.clockMs).toBeGreaterThanOrEqual(HOUR);
  });
});
