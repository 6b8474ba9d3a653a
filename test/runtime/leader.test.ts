import { KubeRest, RequestOptions } from '../../src/kube/rest';
import { microTime } from '../../src/kube/time';
import { LeaderElector } from '../../src/runtime/leader';
import { createLogger } from '../../src/runtime/log';
import { createTestNamespace, deleteNamespace, eventually, testKubeConfig } from '../../src/testing/cluster';

// Real Leases on the real API server, with short timings (lease 3 s, renew deadline 2 s, retry 0.5 s)
// so that expiry and takeover happen within a test.
const FAST = { leaseDurationSeconds: 3, renewDeadlineSeconds: 2, retryPeriodSeconds: 0.5 };
const MICRO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;

/** A KubeRest whose requests fail while `broken`, as when the API server is unreachable. */
class FaultyRest extends KubeRest {
  broken = false;
  override request<T = unknown>(method: string, path: string, options?: RequestOptions): Promise<T> {
    if (this.broken) return Promise.reject(new Error('connect ECONNREFUSED (injected)'));
    return super.request<T>(method, path, options);
  }
}

interface Candidate {
  readonly identity: string;
  readonly elector: LeaderElector;
  readonly events: string[];
  readonly lines: Record<string, unknown>[];
}

describe('LeaderElector on a real Lease', () => {
  const kc = testKubeConfig();
  const rest = new KubeRest(kc);
  const running: LeaderElector[] = [];
  let namespace: string;

  beforeAll(async () => {
    namespace = await createTestNamespace(kc, 'leader');
  });
  afterEach(async () => {
    await Promise.all(running.splice(0).map((e) => e.stop()));
  });
  afterAll(() => deleteNamespace(kc, namespace));

  function candidate(identity: string, leaseName: string, options: { rest?: KubeRest; namespace?: string } = {}): Candidate {
    const lines: Record<string, unknown>[] = [];
    const log = createLogger({ level: 'debug', write: (line) => lines.push(JSON.parse(line)) });
    const elector = new LeaderElector(options.rest ?? rest, { namespace: options.namespace ?? namespace, leaseName, identity, ...FAST }, log);
    const events: string[] = [];
    elector.run({ onStartedLeading: () => events.push('started'), onStoppedLeading: () => events.push('stopped') });
    running.push(elector);
    return { identity, elector, events, lines };
  }

  const lease = (name: string, ns = namespace) =>
    rest.request<{ spec: Record<string, unknown> }>('GET', `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases/${name}`);

  /**
   * Samples isLeader() of every candidate every 20 ms until `done` holds (or for `ms` when
   * done is omitted), failing at once if two lead together. Returns the elapsed milliseconds.
   */
  async function watch(candidates: Candidate[], ms: number, done?: () => boolean): Promise<number> {
    const started = Date.now();
    for (;;) {
      const leaders = candidates.filter((c) => c.elector.isLeader()).map((c) => c.identity);
      if (leaders.length > 1) throw new Error(`two leaders at once: ${leaders.join(', ')}`);
      const elapsed = Date.now() - started;
      if (done?.()) return elapsed;
      if (elapsed > ms) {
        if (done) throw new Error(`condition not met within ${ms} ms`);
        return elapsed;
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  const leaderOf = (candidates: Candidate[]) => candidates.find((c) => c.elector.isLeader());

  it('lets exactly one of two candidates lead, steadily, and keeps the Lease renewed', async () => {
    const pair = [candidate('alpha', 'steady'), candidate('beta', 'steady')];
    await watch(pair, 5000, () => leaderOf(pair) !== undefined);
    const leader = leaderOf(pair)!;
    const follower = pair.find((c) => c !== leader)!;
    const first = (await lease('steady')).spec;

    // 4 s is more than the lease duration: the follower must not take over a Lease that is being renewed.
    await watch(pair, 4000);
    expect(leader.elector.isLeader()).toBe(true);
    expect(leader.events).toEqual(['started']);
    expect(follower.events).toEqual([]);

    const later = (await lease('steady')).spec;
    expect(later).toMatchObject({ holderIdentity: leader.identity, leaseDurationSeconds: 3, leaseTransitions: 0, acquireTime: first.acquireTime });
    expect(later.renewTime).toMatch(MICRO_TIME);
    expect(later.acquireTime).toMatch(MICRO_TIME);
    expect(later.renewTime! > first.renewTime!).toBe(true);
  });

  it('hands over within about two retry periods when the leader stops and releases the Lease', async () => {
    const pair = [candidate('alpha', 'release'), candidate('beta', 'release')];
    await watch(pair, 5000, () => leaderOf(pair) !== undefined);
    await watch(pair, 1000); // both settled: one leads, one follows
    const leader = leaderOf(pair)!;
    const follower = pair.find((c) => c !== leader)!;

    const stopping = leader.elector.stop();
    expect(leader.elector.isLeader()).toBe(false);
    await stopping;
    expect(leader.events).toEqual(['started', 'stopped']);
    expect(leader.lines.map((l) => l.msg)).toContain('released the lease');

    const handover = await watch(pair, 5000, () => follower.elector.isLeader());
    expect(handover).toBeLessThan(1500); // 2 x 0.5 s retry, + jitter and request time
    expect(follower.events).toEqual(['started']);
    expect((await lease('release')).spec).toMatchObject({ holderIdentity: follower.identity, leaseTransitions: 1 });
  });

  it('takes over an abandoned Lease only after the lease duration', async () => {
    const pair = [candidate('alpha', 'crash'), candidate('beta', 'crash')];
    await watch(pair, 5000, () => leaderOf(pair) !== undefined);
    await watch(pair, 1000);
    const leader = leaderOf(pair)!;
    const follower = pair.find((c) => c !== leader)!;

    // As a crash: no more renewals, and the Lease is left held.
    await leader.elector.stop({ release: false });
    const stopped = Date.now();
    expect((await lease('crash')).spec.holderIdentity).toBe(leader.identity);

    await watch(pair, 8000, () => follower.elector.isLeader());
    const takeover = Date.now() - stopped;
    // The last renewal was at most one retry period before the stop; the follower waits a full 3 s from when it saw it.
    expect(takeover).toBeGreaterThanOrEqual(2400);
    expect(takeover).toBeLessThan(5000);
    expect((await lease('crash')).spec).toMatchObject({ holderIdentity: follower.identity, leaseTransitions: 1 });
  });

  it('stops leading once renewals fail for the renew deadline, before anyone can take over', async () => {
    const faulty = new FaultyRest(kc);
    const leader = candidate('alpha', 'deadline', { rest: faulty });
    await watch([leader], 5000, () => leader.elector.isLeader());
    const follower = candidate('beta', 'deadline');
    const pair = [leader, follower];
    await watch(pair, 1000);
    expect(follower.elector.isLeader()).toBe(false);

    faulty.broken = true;
    const lost = await watch(pair, 5000, () => leader.events.includes('stopped'));
    expect(lost).toBeLessThan(2000 + 700); // the deadline, plus at most one retry period to notice
    expect(leader.elector.isLeader()).toBe(false);
    expect(leader.lines.some((l) => l.msg === 'stopped leading' && String(l.reason).includes('renew deadline'))).toBe(true);
    expect(leader.lines.some((l) => l.level === 'warn' && (l.error as { message: string })?.message.includes('ECONNREFUSED'))).toBe(true);

    await watch(pair, 8000, () => follower.elector.isLeader());
    // Back online, the old leader finds the Lease held and follows.
    faulty.broken = false;
    await watch(pair, 2000);
    expect(leader.events).toEqual(['started', 'stopped']);
    expect(follower.elector.isLeader()).toBe(true);
  });

  it('neither throws nor gives up on API errors: it leads once the namespace exists', async () => {
    const missing = `${namespace}-later`;
    const lonely = candidate('alpha', 'patient', { namespace: missing });
    await new Promise((resolve) => setTimeout(resolve, 1600));
    expect(lonely.elector.isLeader()).toBe(false);
    const warnings = lonely.lines.filter((l) => l.level === 'warn');
    expect(warnings.length).toBeGreaterThanOrEqual(2); // retried, every retry period
    expect(warnings[0]).toMatchObject({ msg: 'cannot read or write the lease; will retry', lease: `${missing}/patient`, identity: 'alpha', retryPeriodSeconds: 0.5 });
    expect((warnings[0].error as { message: string }).message).toMatch(/HTTP 404: namespaces ".*" not found/);

    await rest.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: missing } } });
    try {
      await eventually('the candidate to lead once its namespace exists', async () => lonely.elector.isLeader() || undefined, 10_000);
      expect((await lease('patient', missing)).spec.holderIdentity).toBe('alpha');
    } finally {
      await lonely.elector.stop();
      await deleteNamespace(kc, missing);
    }
  });

  it('keeps the election going when a callback throws', async () => {
    const lines: Record<string, unknown>[] = [];
    const elector = new LeaderElector(rest, { namespace, leaseName: 'throwing', identity: 'alpha', ...FAST }, createLogger({ write: (l) => lines.push(JSON.parse(l)) }));
    running.push(elector);
    elector.run({ onStartedLeading: () => { throw new Error('boom'); }, onStoppedLeading: () => undefined });
    await eventually('leadership despite the throwing callback', async () => elector.isLeader() || undefined, 5000);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(elector.isLeader()).toBe(true);
    expect(lines).toContainEqual(expect.objectContaining({ level: 'error', msg: 'onStartedLeading threw', error: { message: 'boom', name: 'Error' } }));
  });
});

describe('LeaderElector options', () => {
  const rest = {} as KubeRest;
  const log = createLogger({ write: () => undefined });
  const make = (o: object) => () => new LeaderElector(rest, { namespace: 'ns', leaseName: 'l', identity: 'me', ...o }, log);

  it('takes client-go defaults and rejects timings that could make two leaders', () => {
    expect(make({})).not.toThrow();
    expect(make({ renewDeadlineSeconds: 15 })).toThrow('renewDeadlineSeconds must be > 0 and less than leaseDurationSeconds (15), got 15');
    expect(make({ retryPeriodSeconds: 9 })).toThrow('retryPeriodSeconds must be > 0 and 1.2 times it less than renewDeadlineSeconds (10), got 9');
    expect(make({ leaseDurationSeconds: 2.5 })).toThrow('leaseDurationSeconds must be a whole number of seconds >= 1, got 2.5');
    expect(make({ identity: '' })).toThrow('leader election: identity must not be empty');
  });

  it('does nothing on stop() before run(), and ignores run() after stop()', async () => {
    const lines: string[] = [];
    const elector = new LeaderElector(rest, { namespace: 'ns', leaseName: 'l', identity: 'me' }, createLogger({ write: (l) => lines.push(l) }));
    await elector.stop();
    elector.run({ onStartedLeading: () => undefined, onStoppedLeading: () => undefined });
    expect(elector.isLeader()).toBe(false);
    expect(lines.map((l) => JSON.parse(l).msg)).toEqual(['leader election is already running or was stopped; run() ignored']);
  });
});

describe('microTime', () => {
  it('writes RFC 3339 with exactly six fractional digits', () => {
    expect(microTime(new Date('2026-11-22T08:00:00Z'))).toBe('2026-11-22T08:00:00.000000Z');
    expect(microTime(new Date('2026-11-22T08:00:00.123Z'))).toBe('2026-11-22T08:00:00.123000Z');
  });
});
