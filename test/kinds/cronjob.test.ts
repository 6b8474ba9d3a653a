import { AnyKind, KubeJson } from '../../src/engine/kind';
import { eventually, serveTestKind, ServedTestKind, suiteNamespace, TestClock } from '../../src/engine/testing';
import { loadFixtureKind } from '../support/fixture-kind';

// The kubebuilder book's CronJob (test/kinds/fixtures/cronjob/), served by the engine on the
// control plane, whose Job controller and kwok's fake node run the Jobs. The engine's clock is a
// TestClock: each test jumps it to the scheduled times, and at each jump the engine reconciles
// every CronJob, so a run is due at once; no resync, no waiting on the real time.

const fixture = loadFixtureKind('cronjob');
const kind = fixture.module<{ kind: AnyKind }>('index').kind;
afterAll(() => fixture.remove());

const MINUTE = 60_000;
const namespace = suiteNamespace('cronjob');
let clock: TestClock;
let served: ServedTestKind;
/** The next whole minute of the test's clock, and the ones after. */
const minute = (n = 1) => new Date((Math.floor(clock.now().getTime() / MINUTE) + n) * MINUTE);
const plus = (at: Date, ms: number) => new Date(at.getTime() + ms);
const metaTime = (at: Date) => at.toISOString().replace('.000Z', 'Z');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * An engine and a clock for each test. The clock starts at the beginning of the real minute,
 * so that it passes no scheduled time on its own while the test runs; CronJobs count their runs
 * from their creation, which the API server stamps with the real time, still in that minute
 * (with less than 5 s of it left once the engine runs, it starts again in the next): the first
 * run is the next minute.
 */
beforeEach(async () => {
  for (;;) {
    const start = Math.floor(Date.now() / MINUTE) * MINUTE;
    clock = new TestClock(new Date(start));
    served = await serveTestKind(kind, namespace.name, undefined, undefined, { clock });
    if (Date.now() - start < MINUTE - 5_000) return;
    await served.stop();
    await sleep(start + MINUTE - Date.now() + 100);
  }
});
/** The test's CronJobs go (their Jobs with them, by the garbage collector); the engine warned of nothing. */
const applied = new Set<string>();
afterEach(async () => {
  for (const name of applied) await served.objects.delete(cronJob(name, {}));
  applied.clear();
  await served.stop();
  const warnings = served.logLines.filter((line) => line.level === 'warn' || line.level === 'error').map((line) => JSON.stringify(line));
  expect(warnings).toEqual([]);
});

type Job = KubeJson & { spec: { suspend?: boolean }; status?: { conditions?: { type: string; status: string }[] } };
type Condition = { type: string; status: string; reason: string; message: string };
type CronJobStatus = { active?: { name: string; uid: string }[]; lastScheduleTime?: string; conditions?: Condition[] };

const pod = { restartPolicy: 'Never', containers: [{ name: 'run', image: 'busybox:1.37.0' }] };
/** kwok's fake node makes a Job's pod ready, then done, at once rather than after its default of 1 to 6 s each. */
const prompt = Object.fromEntries(['pod-ready', 'pod-complete'].flatMap((stage) => [`${stage}.stage.kwok.x-k8s.io/delay`, `${stage}.stage.kwok.x-k8s.io/jitter-delay`].map((key) => [key, '0s'])));
/** A Job that stays active (suspended) until the test lets it run, one that completes, one whose pod fails (kwok's stage for the label). */
const TEMPLATES = {
  held: { spec: { suspend: true, template: { metadata: { annotations: prompt }, spec: pod } } },
  completing: { spec: { template: { metadata: { annotations: prompt }, spec: pod } } },
  failing: { spec: { backoffLimit: 0, template: { metadata: { labels: { 'test.cdk8s-operators.io/fail': 'true' } }, spec: pod } } },
};

function cronJob(name: string, spec: Record<string, unknown>) {
  return { apiVersion: `${kind.group}/${kind.version}`, kind: 'CronJob', metadata: { name, namespace: namespace.name }, spec: { schedule: '* * * * *', ...spec } };
}
async function create(name: string, spec: Record<string, unknown>): Promise<void> {
  applied.add(name);
  await served.objects.apply(cronJob(name, spec));
}

const jobPath = (name = '') => `/apis/batch/v1/namespaces/${namespace.name}/jobs${name ? `/${name}` : ''}`;
async function jobsOf(name: string): Promise<Job[]> {
  const list = await served.objects.rest.request<{ items: Job[] }>('GET', jobPath());
  return list.items.filter((job) => job.metadata.name.startsWith(`${name}-`)).sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
}
const jobNames = async (name: string) => (await jobsOf(name)).map((job) => job.metadata.name);
const finished = (job: Job) => job.status?.conditions?.find((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True')?.type;
/** The tutorial's Job name: the CronJob's and the run's time in Unix seconds. */
const runOf = (name: string, at: Date) => `${name}-${at.getTime() / 1000}`;

/** Waits until the CronJob's Jobs are exactly these. */
const jobsAre = (name: string, expected: string[]) =>
  eventually(`the Jobs of ${name} to be ${expected.join(', ') || 'none'}`, async () => {
    const names = await jobNames(name);
    return JSON.stringify(names) === JSON.stringify([...expected].sort()) ? names : undefined;
  });
/** Waits until the CronJob's status holds this. */
const statusHas = (name: string, what: string, holds: (status: CronJobStatus) => boolean) =>
  eventually(`${name}: ${what}`, async () => {
    const { status } = await served.objects.get<KubeJson & { status?: CronJobStatus }>(cronJob(name, {}));
    return status && holds(status) ? status : undefined;
  });
const condition = (status: CronJobStatus, type: string) => status.conditions?.find((c) => c.type === type);
/** Waits until Ready says the next run is this one: the reconcile after a jump is done. */
const nextRunIs = (name: string, at: Date) => statusHas(name, `next run at ${metaTime(at)}`, (s) => condition(s, 'Ready')?.message === `next run at ${metaTime(at)}`);
const activeAre = (name: string, expected: string[]) =>
  statusHas(name, `active: ${expected.join(', ') || 'none'}`, (s) => JSON.stringify(s.active?.map((ref) => ref.name) ?? []) === JSON.stringify(expected));

describe('the kubebuilder CronJob on the test clock', () => {
  it('starts a Job at each scheduled time (Allow: beside the active one), named after the time, and shows the active ones and the last run', async () => {
    await create('every', { jobTemplate: TEMPLATES.held });
    const [first, second, third] = [minute(1), minute(2), minute(3)];
    await nextRunIs('every', first);
    // A second early: the jump finds no run due, the kind's wake time (its wakeAt) starts it a second later.
    clock.jumpTo(plus(first, -1_000));
    await sleep(300);
    expect(await jobNames('every')).toEqual([]);
    await jobsAre('every', [runOf('every', first)]);
    const [job] = await jobsOf('every');
    expect(job.metadata.annotations).toMatchObject({ 'batch.tutorial.kubebuilder.io/scheduled-at': metaTime(first) });
    expect(job.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'CronJob', name: 'every', controller: true })]);
    await statusHas('every', 'one active Job, the last run the first', (s) => s.active?.length === 1 && s.lastScheduleTime === metaTime(first));

    clock.jumpTo(second);
    await jobsAre('every', [runOf('every', first), runOf('every', second)]);
    const status = await activeAre('every', [runOf('every', first), runOf('every', second)]);
    expect(status.lastScheduleTime).toBe(metaTime(second));
    expect(status.active!.map((ref) => ref.uid).sort()).toEqual((await jobsOf('every')).map((j) => j.metadata.uid).sort());
    expect(condition(status, 'Ready')).toMatchObject({ status: 'True', reason: 'Scheduled', message: `next run at ${metaTime(third)}` });
  });

  it('starts only the latest missed run, none missed by more than startingDeadlineSeconds, and counts missed runs only within that deadline', async () => {
    await create('missed', { jobTemplate: TEMPLATES.held });
    await create('deadline', { jobTemplate: TEMPLATES.held, startingDeadlineSeconds: 30 });
    const last = minute(4);
    await nextRunIs('deadline', minute(1));
    // Four runs missed, the last 45 s ago: too late for a deadline of 30 s.
    clock.jumpTo(plus(last, 45_000));
    await jobsAre('missed', [runOf('missed', last)]);
    await nextRunIs('deadline', plus(last, MINUTE));
    expect(await jobNames('deadline')).toEqual([]);
    const next = plus(last, MINUTE);
    clock.jumpTo(next);
    await jobsAre('deadline', [runOf('deadline', next)]);
    await jobsAre('missed', [runOf('missed', last), runOf('missed', next)]);

    // Two hours on: more than 100 runs missed is a clock gone wrong, shown; within a deadline it is one run.
    const later = plus(next, 120 * MINUTE);
    clock.jumpTo(plus(later, 10_000));
    const stalled = await statusHas('missed', 'Ready False for too many missed runs', (s) => condition(s, 'Ready')?.reason === 'TooManyMissedRuns');
    expect(condition(stalled, 'Ready')).toMatchObject({ status: 'False', message: expect.stringContaining('spec.startingDeadlineSeconds') });
    expect(condition(stalled, 'Stalled')).toMatchObject({ status: 'True', reason: 'TooManyMissedRuns' });
    await jobsAre('deadline', [runOf('deadline', next), runOf('deadline', later)]);
    expect(await jobNames('missed')).toEqual([runOf('missed', last), runOf('missed', next)]);
  });

  it('Forbid starts no Job while one is active, and the skipped run once it finished', async () => {
    await create('forbid', { jobTemplate: TEMPLATES.held, concurrencyPolicy: 'Forbid' });
    const [first, second] = [minute(1), minute(2)];
    clock.jumpTo(first);
    await jobsAre('forbid', [runOf('forbid', first)]);
    clock.jumpTo(plus(second, 1_000));
    const skipped = await nextRunIs('forbid', minute(1));
    expect(skipped).toMatchObject({ lastScheduleTime: metaTime(first), active: [{ name: runOf('forbid', first) }] });
    expect(await jobNames('forbid')).toEqual([runOf('forbid', first)]);
    // The Job runs (the Job controller and kwok's node) and completes: the skipped run starts, late.
    await served.objects.rest.request('PATCH', jobPath(runOf('forbid', first)), { body: { spec: { suspend: false } }, contentType: 'application/merge-patch+json' });
    await jobsAre('forbid', [runOf('forbid', first), runOf('forbid', second)]);
    const [done] = await jobsOf('forbid');
    expect(finished(done)).toBe('Complete');
    await activeAre('forbid', [runOf('forbid', second)]);
  });

  it('Replace deletes the active Job and starts the new one', async () => {
    await create('replace', { jobTemplate: TEMPLATES.held, concurrencyPolicy: 'Replace' });
    const [first, second] = [minute(1), minute(2)];
    clock.jumpTo(first);
    await jobsAre('replace', [runOf('replace', first)]);
    clock.jumpTo(second);
    await jobsAre('replace', [runOf('replace', second)]);
    await activeAre('replace', [runOf('replace', second)]);
  });

  it('keeps the newest finished Jobs within both history limits, and still does once the schedule is invalid, which it shows', async () => {
    await create('history', { jobTemplate: TEMPLATES.completing, successfulJobsHistoryLimit: 2 });
    await create('failures', { jobTemplate: TEMPLATES.failing, failedJobsHistoryLimit: 1 });
    const runs = [minute(1), minute(2), minute(3)];
    for (const at of runs) {
      clock.jumpTo(at);
      for (const name of ['history', 'failures']) await eventually(`${name}'s run at ${metaTime(at)}`, async () => ((await jobNames(name)).includes(runOf(name, at)) ? true : undefined));
    }
    await jobsAre('history', [runOf('history', runs[1]), runOf('history', runs[2])]);
    await jobsAre('failures', [runOf('failures', runs[2])]);
    expect((await jobsOf('history')).map(finished)).toEqual(['Complete', 'Complete']);
    expect((await jobsOf('failures')).map(finished)).toEqual(['Failed']);
    // No Job runs any more: the field is gone from the status.
    await statusHas('history', 'no active Jobs listed', (s) => s.active === undefined && s.lastScheduleTime === metaTime(runs[2]));

    await create('history', { jobTemplate: TEMPLATES.completing, successfulJobsHistoryLimit: 2, schedule: '61 * * * *' });
    const invalid = await statusHas('history', 'Ready False for the schedule', (s) => condition(s, 'Ready')?.reason === 'InvalidSchedule');
    expect(condition(invalid, 'Ready')).toMatchObject({ status: 'False', message: expect.stringMatching(/^spec\.schedule: cannot parse "61 \* \* \* \*": /) });
    expect(condition(invalid, 'Stalled')).toMatchObject({ status: 'True', reason: 'InvalidSchedule' });
    // Still enforced: a lower limit deletes the older Job, and no run starts.
    await create('history', { jobTemplate: TEMPLATES.completing, successfulJobsHistoryLimit: 1, schedule: '61 * * * *' });
    await jobsAre('history', [runOf('history', runs[2])]);
    clock.jumpTo(plus(minute(1), 1_000));
    await sleep(1_000);
    expect(await jobNames('history')).toEqual([runOf('history', runs[2])]);
  });

  it('starts no Job while suspended, and the run missed meanwhile once resumed', async () => {
    await create('suspended', { jobTemplate: TEMPLATES.held, suspend: true });
    await statusHas('suspended', 'Ready says suspended', (s) => condition(s, 'Ready')?.message === 'suspended: starts no Job');
    const missed = minute(1);
    clock.jumpTo(plus(missed, 1_000));
    await sleep(1_000);
    expect(await jobNames('suspended')).toEqual([]);
    // As in the tutorial, the run missed meanwhile starts once resumed (no starting deadline).
    await create('suspended', { jobTemplate: TEMPLATES.held, suspend: false });
    await jobsAre('suspended', [runOf('suspended', missed)]);
    await activeAre('suspended', [runOf('suspended', missed)]);
  });
});
