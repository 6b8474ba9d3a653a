import { AnyKind } from '../../src/core/contract/kind';
import { validateAsWritten } from '../../src/core/contract/validation';
import { ValidationCases } from '../../src/core/contract/validation-cases';
import { FixtureKind, loadFixtureKind } from '../support/fixture-kind';
import { objectOf } from './cases';

// The kubebuilder book's CronJob (test/kinds/fixtures/cronjob/): its decisions, without a cluster.
// test/kinds/cronjob.test.ts proves the same on the control plane.

interface SeenJob {
  name: string;
  scheduledAt: Date;
  finished?: 'Complete' | 'Failed';
}
interface Plan {
  keep: SeenJob[];
  run?: SeenJob;
  lastScheduleTime?: Date;
  next?: Date;
  problem?: { reason: string; message: string };
}
type PlanFn = (cronJob: unknown, jobs: SeenJob[], now: Date) => Plan;

let fixture: FixtureKind;
let plan: PlanFn;
beforeAll(() => {
  fixture = loadFixtureKind('cronjob');
  const planned = fixture.module<{ plan: PlanFn }>('plan').plan;
  // Every field named, so that a test can say one is absent.
  plan = (...args) => {
    const { keep, run, lastScheduleTime, next, problem } = planned(...args);
    return { keep, run, lastScheduleTime, next, problem };
  };
});
afterAll(() => fixture.remove());

const at = (time: string) => new Date(`2030-01-01T${time}Z`);
const CREATED = '2030-01-01T00:00:30Z';
const cronJob = (spec: Record<string, unknown>, lastScheduleTime?: string) => ({
  metadata: { name: 'hello', namespace: 'team-a', creationTimestamp: CREATED },
  spec: { schedule: '* * * * *', concurrencyPolicy: 'Allow', suspend: false, successfulJobsHistoryLimit: 3, failedJobsHistoryLimit: 1, jobTemplate: { spec: {} }, ...spec },
  status: lastScheduleTime ? { lastScheduleTime } : undefined,
});
const job = (time: string, finished?: SeenJob['finished']): SeenJob => ({ name: `hello-${at(time).getTime() / 1000}`, scheduledAt: at(time), ...(finished ? { finished } : {}) });
const names = (jobs: SeenJob[]) => jobs.map((j) => j.name).sort();

describe('the CronJob\u2019s plan', () => {
  it('starts nothing before the first scheduled time, then a run at it', () => {
    expect(plan(cronJob({}), [], at('00:00:59'))).toMatchObject({ run: undefined, next: at('00:01:00') });
    expect(plan(cronJob({}), [], at('00:01:00'))).toMatchObject({ run: job('00:01:00'), lastScheduleTime: at('00:01:00'), next: at('00:02:00') });
  });

  it('starts only the latest of missed runs, and none missed by more than the starting deadline', () => {
    expect(plan(cronJob({}), [job('00:01:00', 'Complete')], at('00:05:10')).run).toEqual(job('00:05:00'));
    expect(plan(cronJob({ startingDeadlineSeconds: 5 }), [job('00:01:00', 'Complete')], at('00:05:10'))).toMatchObject({ run: undefined, next: at('00:06:00') });
  });

  it('does not start a run twice: its Job, or the status, remembers it', () => {
    expect(plan(cronJob({}), [job('00:01:00')], at('00:01:30')).run).toBeUndefined();
    expect(plan(cronJob({ successfulJobsHistoryLimit: 0 }, '2030-01-01T00:01:00Z'), [], at('00:01:30')).run).toBeUndefined();
  });

  it('Forbid skips a run while a Job is active; Replace leaves the active one out', () => {
    expect(plan(cronJob({ concurrencyPolicy: 'Forbid' }), [job('00:01:00')], at('00:02:00'))).toMatchObject({ run: undefined, lastScheduleTime: at('00:01:00') });
    const replaced = plan(cronJob({ concurrencyPolicy: 'Replace' }), [job('00:01:00')], at('00:02:00'));
    expect(replaced).toMatchObject({ run: job('00:02:00'), keep: [] });
    expect(plan(cronJob({}), [job('00:01:00')], at('00:02:00'))).toMatchObject({ run: job('00:02:00'), keep: [job('00:01:00')] });
  });

  it('keeps the newest finished Jobs within each history limit, whatever the schedule', () => {
    const jobs = ['00:01:00', '00:02:00', '00:03:00'].map((t) => job(t, 'Complete')).concat(job('00:04:00', 'Failed'), job('00:05:00', 'Failed'), job('00:06:00'));
    const spec = { successfulJobsHistoryLimit: 2, failedJobsHistoryLimit: 1 };
    const kept = names([job('00:02:00'), job('00:03:00'), job('00:05:00'), job('00:06:00')]);
    expect(names(plan(cronJob(spec), jobs, at('00:06:30')).keep)).toEqual(kept);
    const invalid = plan(cronJob({ ...spec, schedule: '61 * * * *' }), jobs, at('00:06:30'));
    expect(names(invalid.keep)).toEqual(kept);
    expect(invalid).toMatchObject({ run: undefined, next: undefined, problem: { reason: 'InvalidSchedule' } });
    expect(invalid.problem!.message).toMatch(/^spec\.schedule: cannot parse "61 \* \* \* \*": /);
  });

  it('refuses what standard Cron refuses: six fields, or four', () => {
    for (const schedule of ['* * * * * *', '* * * *']) expect(plan(cronJob({ schedule }), [], at('00:01:00')).problem?.reason).toBe('InvalidSchedule');
  });

  it('starts nothing while suspended, and wakes for nothing', () => {
    expect(plan(cronJob({ suspend: true }), [job('00:01:00')], at('00:05:00'))).toMatchObject({ run: undefined, next: undefined, keep: [job('00:01:00')] });
  });

  it('gives up past 100 missed runs, naming the starting deadline', () => {
    expect(plan(cronJob({}), [], at('02:00:00')).problem).toEqual({ reason: 'TooManyMissedRuns', message: expect.stringContaining('spec.startingDeadlineSeconds') });
  });
});

describe('the CronJob\u2019s validation table, as the controller checks it', () => {
  it('accepts each valid case and refuses each invalid one naming its field, a Job template by Kubernetes\u2019 own schema', () => {
    const kind = fixture.module<{ kind: AnyKind }>('index').kind;
    const { valid, invalid } = fixture.module<{ validationCases: ValidationCases }>('validation-cases').validationCases;
    for (const { name, body } of valid) expect([name, validateAsWritten(kind, objectOf(kind, 'nightly', body, 'default')).ok]).toEqual([name, true]);
    for (const { name, body, field } of invalid) {
      const result = validateAsWritten(kind, objectOf(kind, 'nightly', body, 'default'));
      expect([name, result.ok ? [] : result.errors.map((e) => e.field)]).toEqual([name, expect.arrayContaining([field])]);
    }
  });
});
