import { AnyKind, Clock, KubeJson } from '../../src/core/kind';
import { eventually } from '../support/cluster';
import { loadFixtureKind } from '../support/fixture-kind';
import { serveTestKindForSuite } from '../support/test-kind';

// The kubebuilder book's CronJob (test/kinds/fixtures/cronjob/), served by the engine on the
// control plane, whose Job controller and kwok's fake node run the Jobs. The engine's clock is
// the test's: it jumps to just before each scheduled minute, and the kind's wakeAt starts the run.

const fixture = loadFixtureKind('cronjob');
const kind = fixture.module<{ kind: AnyKind }>('index').kind;
afterAll(() => fixture.remove());

/** The real time, moved forward as the test says: each jump is a minute or more of the CronJob's time in a second or two of ours. */
let offsetMs = 0;
const clock: Clock = { now: () => new Date(Date.now() + offsetMs) };
const MINUTE = 60_000;
/** How far before a scheduled time the clock is set: the resync (1 s) asks wakeAt, whose timer starts the run. */
const LEAD_MS = 1_500;
const jumpTo = (at: Date) => void (offsetMs = Math.max(offsetMs, at.getTime() - Date.now()));
/** The next whole minute of the test's clock, and the ones after. */
const minute = (n = 1) => new Date((Math.floor(clock.now().getTime() / MINUTE) + n) * MINUTE);
const unix = (at: Date) => at.getTime() / 1000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const served = serveTestKindForSuite(kind, 'cronjob', undefined, { resyncMs: 1_000, clock });

type Job = KubeJson & { spec: { suspend?: boolean }; status?: { conditions?: { type: string; status: string }[] } };
type CronJob = KubeJson & { status?: { active?: { name: string; uid: string }[]; lastScheduleTime?: string; conditions?: { type: string; status: string; reason: string; message: string }[] } };

/** A Job that stays active (suspended) until the test lets it run, one that completes, one whose pod fails. */
const TEMPLATES = {
  held: { spec: { suspend: true, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'run', image: 'busybox:1.37.0' }] } } } },
  completing: { spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'run', image: 'busybox:1.37.0' }] } } } },
  failing: {
    spec: { backoffLimit: 0, template: { metadata: { labels: { 'test.cdk8s-operators.io/fail': 'true' } }, spec: { restartPolicy: 'Never', containers: [{ name: 'run', image: 'busybox:1.37.0' }] } } },
  },
};

/** The CronJobs of the running test, deleted after it: the next test's clock starts again from the real time. */
const applied = new Set<string>();
afterEach(async () => {
  for (const name of applied) await served.objects.delete(cronJob(name, {}));
  applied.clear();
});
/**
 * A CronJob counts its runs from its creation, which the API server stamps with the real time:
 * each test starts the clock there, far enough from the next minute for the test to set it.
 */
beforeEach(async () => {
  offsetMs = 0;
  const intoMinuteMs = Date.now() % MINUTE;
  if (intoMinuteMs > 50_000) await sleep(MINUTE - intoMinuteMs + 500);
});
async function create(name: string, spec: Record<string, unknown>): Promise<void> {
  applied.add(name);
  await served.objects.apply(cronJob(name, spec));
}

function cronJob(name: string, spec: Record<string, unknown>) {
  return { apiVersion: `${kind.group}/${kind.version}`, kind: 'CronJob', metadata: { name, namespace: served.namespace }, spec: { schedule: '* * * * *', ...spec } };
}

async function jobsOf(name: string): Promise<Job[]> {
  const list = await served.objects.rest.request<{ items: Job[] }>('GET', `/apis/batch/v1/namespaces/${served.namespace}/jobs`);
  return list.items.filter((job) => job.metadata.name.startsWith(`${name}-`)).sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
}
const jobNames = async (name: string) => (await jobsOf(name)).map((job) => job.metadata.name);
const finished = (job: Job) => job.status?.conditions?.find((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True')?.type;

/** Waits until the CronJob's Jobs are exactly these (by name). */
const jobsAre = (name: string, expected: string[]) =>
  eventually(`the Jobs of ${name} to be ${expected.join(', ') || 'none'}`, async () => {
    const names = await jobNames(name);
    return JSON.stringify(names) === JSON.stringify([...expected].sort()) ? names : undefined;
  });
const statusOf = (name: string) => served.objects.get<CronJob>(cronJob(name, {}));
/** Waits until the CronJob's status holds this. */
const statusHas = (name: string, what: string, holds: (status: NonNullable<CronJob['status']>) => boolean) =>
  eventually(`${name}: ${what}`, async () => {
    const status = (await statusOf(name)).status;
    return status && holds(status) ? status : undefined;
  });
const ready = (status: NonNullable<CronJob['status']>) => status.conditions?.find((c) => c.type === 'Ready');
const runOf = (name: string, at: Date) => `${name}-${unix(at)}`;

describe('the kubebuilder CronJob', () => {
  it('starts a Job at each scheduled time, named after the time, and shows the active ones and the last run', async () => {
    await create('every', { jobTemplate: TEMPLATES.held });
    const [first, second] = [minute(1), minute(2)];
    jumpTo(new Date(first.getTime() - LEAD_MS));
    await sleep(700);
    expect(await jobNames('every')).toEqual([]); // not before its time
    await jobsAre('every', [runOf('every', first)]);
    const [job] = await jobsOf('every');
    expect(job.metadata.annotations).toMatchObject({ 'batch.tutorial.kubebuilder.io/scheduled-at': first.toISOString().replace('.000Z', 'Z') });
    expect(job.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'CronJob', name: 'every', controller: true })]);
    await statusHas('every', 'one active Job, the last run the first', (s) => s.active?.length === 1 && s.lastScheduleTime === job.metadata.annotations!['batch.tutorial.kubebuilder.io/scheduled-at']);

    jumpTo(new Date(second.getTime() - LEAD_MS));
    await jobsAre('every', [runOf('every', first), runOf('every', second)]);
    const status = await statusHas('every', 'both Jobs active', (s) => s.active?.length === 2 && s.lastScheduleTime === second.toISOString().replace('.000Z', 'Z'));
    expect(status.active!.map((ref) => ref.name)).toEqual([runOf('every', first), runOf('every', second)]);
    expect(ready(status)).toMatchObject({ status: 'True', reason: 'Scheduled', message: `next run at ${minute(1).toISOString().replace('.000Z', 'Z')}` });
  });

  it('starts only the latest missed run, and none missed by more than startingDeadlineSeconds', async () => {
    await create('missed', { jobTemplate: TEMPLATES.held });
    await create('deadline', { jobTemplate: TEMPLATES.held, startingDeadlineSeconds: 30 });
    await statusHas('deadline', 'reconciled once', (s) => ready(s)?.status === 'True');
    const last = minute(4);
    // Four runs missed, the last 45 s ago.
    jumpTo(new Date(last.getTime() + 45_000));
    await jobsAre('missed', [runOf('missed', last)]);
    await sleep(2_500);
    expect(await jobNames('deadline')).toEqual([]);
    const next = minute(1);
    jumpTo(new Date(next.getTime() - LEAD_MS));
    await jobsAre('deadline', [runOf('deadline', next)]);
  });

  it('Forbid starts no Job while one is active, and the skipped run once it finished', async () => {
    await create('forbid', { jobTemplate: TEMPLATES.held, concurrencyPolicy: 'Forbid' });
    const [first, second] = [minute(1), minute(2)];
    jumpTo(new Date(first.getTime() - LEAD_MS));
    await jobsAre('forbid', [runOf('forbid', first)]);
    jumpTo(new Date(second.getTime() + 1_000));
    await sleep(2_500);
    expect(await jobNames('forbid')).toEqual([runOf('forbid', first)]);
    expect((await statusOf('forbid')).status).toMatchObject({ lastScheduleTime: first.toISOString().replace('.000Z', 'Z'), active: [{ name: runOf('forbid', first) }] });
    // The Job runs (the Job controller and kwok's node) and completes: the skipped run starts, late.
    await served.objects.rest.request('PATCH', `/apis/batch/v1/namespaces/${served.namespace}/jobs/${runOf('forbid', first)}`, { body: { spec: { suspend: false } }, contentType: 'application/merge-patch+json' });
    await jobsAre('forbid', [runOf('forbid', first), runOf('forbid', second)]);
    const [done] = await jobsOf('forbid');
    expect(finished(done)).toBe('Complete');
  });

  it('Replace deletes the active Job and starts the new one', async () => {
    await create('replace', { jobTemplate: TEMPLATES.held, concurrencyPolicy: 'Replace' });
    const [first, second] = [minute(1), minute(2)];
    jumpTo(new Date(first.getTime() - LEAD_MS));
    await jobsAre('replace', [runOf('replace', first)]);
    jumpTo(new Date(second.getTime() - LEAD_MS));
    await jobsAre('replace', [runOf('replace', second)]);
    await statusHas('replace', 'only the new Job active', (s) => JSON.stringify(s.active?.map((ref) => ref.name)) === JSON.stringify([runOf('replace', second)]));
  });

  it('keeps the newest finished Jobs within both history limits, also once the schedule is invalid', async () => {
    await create('history', { jobTemplate: TEMPLATES.completing, successfulJobsHistoryLimit: 2 });
    await create('failures', { jobTemplate: TEMPLATES.failing, failedJobsHistoryLimit: 1 });
    const runs: Date[] = [];
    for (let n = 0; n < 3; n++) {
      const at = minute(1);
      runs.push(at);
      jumpTo(new Date(at.getTime() - LEAD_MS));
      for (const name of ['history', 'failures']) {
        await eventually(`${name}'s run at ${at.toISOString()} to finish`, async () => {
          const job = (await jobsOf(name)).find((j) => j.metadata.name === runOf(name, at));
          return job && finished(job) ? true : undefined;
        });
      }
    }
    await jobsAre('history', [runOf('history', runs[1]), runOf('history', runs[2])]);
    await jobsAre('failures', [runOf('failures', runs[2])]);
    expect((await jobsOf('failures')).map(finished)).toEqual(['Failed']);

    await create('history', { jobTemplate: TEMPLATES.completing, successfulJobsHistoryLimit: 2, schedule: '61 * * * *' });
    const invalid = await statusHas('history', 'Ready False for the schedule', (s) => ready(s)?.reason === 'InvalidSchedule');
    expect(ready(invalid)).toMatchObject({ status: 'False', message: expect.stringMatching(/^spec\.schedule: cannot parse "61 \* \* \* \*": /) });
    expect(invalid.conditions).toEqual(expect.arrayContaining([expect.objectContaining({ type: 'Stalled', status: 'True', reason: 'InvalidSchedule' })]));
    // Still enforced: a lower limit deletes the older Job.
    await create('history', { jobTemplate: TEMPLATES.completing, successfulJobsHistoryLimit: 1, schedule: '61 * * * *' });
    await jobsAre('history', [runOf('history', runs[2])]);
    jumpTo(new Date(minute(1).getTime() + 1_000));
    await sleep(2_500);
    expect(await jobNames('history')).toEqual([runOf('history', runs[2])]);
  });

  it('starts no Job while suspended', async () => {
    await create('suspended', { jobTemplate: TEMPLATES.held, suspend: true });
    const missed = minute(1);
    jumpTo(new Date(missed.getTime() + 1_000));
    await sleep(2_500);
    expect(await jobNames('suspended')).toEqual([]);
    expect(ready((await statusOf('suspended')).status!)).toMatchObject({ status: 'True', reason: 'Scheduled', message: 'suspended: starts no Job' });
    // As in the tutorial, the run missed meanwhile starts once resumed (no starting deadline).
    await create('suspended', { jobTemplate: TEMPLATES.held, suspend: false });
    await jobsAre('suspended', [runOf('suspended', missed)]);
  });

  it('made each Job once, with no warning from the engine (no rewritten render, no write held back)', () => {
    // A status write racing the test's deletion of its CronJob answers 404, which the engine logs and retries once.
    const deletedMeanwhile = (line: Record<string, unknown>) => /\/status: HTTP 404: /.test((line.error as { message?: string } | undefined)?.message ?? '');
    const warnings = served.logLines.filter((line) => (line.level === 'warn' || line.level === 'error') && !deletedMeanwhile(line)).map((line) => JSON.stringify(line));
    expect(warnings).toEqual([]);
  });
});
