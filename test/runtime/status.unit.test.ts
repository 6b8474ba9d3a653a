import { CustomResource } from '../../src/core/kind';
import { Condition } from '../../src/core/status';
import { KINDS } from '../../src/kinds';
import { observedOnce, statusPatch, verdictConditions } from '../../src/runtime/status';

const database = KINDS.find((k) => k.kind === 'Database')!;
const object = (status?: Record<string, unknown>): CustomResource => ({
  apiVersion: 'stable.imaginedata.com/v1',
  kind: 'Database',
  metadata: { name: 'orders', namespace: 'team-a', generation: 2 },
  spec: {},
  ...(status ? { status } : {}),
});
const types = (conditions: Condition[]) => conditions.map((c) => `${c.type}=${c.status} ${c.reason}`);
/** The status after one write of `verdict` onto `before`. */
const written = (before: CustomResource, verdict: Parameters<typeof verdictConditions>[2]) => ({ ...before, status: { ...(before.status as object), ...statusPatch(before, verdictConditions(database, before, verdict), {}) } });

describe('the status writer', () => {
  it('says Reconciling beside Ready=False for progress, Stalled for one of the kind\u2019s failure reasons or the engine\u2019s, neither when Ready', () => {
    expect(types(verdictConditions(database, object(), { status: 'False', reason: 'Creating', message: 'creating the StatefulSet' }))).toEqual(['Ready=False Creating', 'Reconciling=True Creating']);
    expect(types(verdictConditions(database, object(), { status: 'False', reason: 'Downgrade', message: 'refused' }))).toEqual(['Ready=False Downgrade', 'Stalled=True Downgrade']);
    expect(types(verdictConditions(database, object(), { status: 'False', reason: 'InvalidSpec', message: 'spec.port: ...' }))).toEqual(['Ready=False InvalidSpec', 'Stalled=True InvalidSpec']);
    expect(types(verdictConditions(database, object(), { status: 'True', reason: 'Ready', message: '2 of 2 replicas ready' }))).toEqual(['Ready=True Ready']);
  });

  it('clears Reconciling and Stalled when they no longer hold, keeps other conditions, and writes nothing when nothing changed', () => {
    const other = { type: 'BackupsCurrent', status: 'True', reason: 'Scheduled', message: '', lastTransitionTime: '2026-11-24T00:00:00Z' };
    const progressing = written(object({ conditions: [other] }), { status: 'False', reason: 'Creating', message: 'creating' });
    expect(types(progressing.status.conditions as Condition[])).toEqual(['BackupsCurrent=True Scheduled', 'Ready=False Creating', 'Reconciling=True Creating']);
    const failing = written(progressing, { status: 'False', reason: 'Downgrade', message: 'refused' });
    expect(types(failing.status.conditions as Condition[])).toEqual(['BackupsCurrent=True Scheduled', 'Ready=False Downgrade', 'Stalled=True Downgrade']);
    // Ready stayed False: its transition time stays too.
    expect((failing.status.conditions as Condition[])[1].lastTransitionTime).toBe((progressing.status.conditions as Condition[])[1].lastTransitionTime);
    const ready = written(failing, { status: 'True', reason: 'Ready', message: 'ready' });
    expect(types(ready.status.conditions as Condition[])).toEqual(['BackupsCurrent=True Scheduled', 'Ready=True Ready']);
    expect(statusPatch(ready, verdictConditions(database, ready, { status: 'True', reason: 'Ready', message: 'ready' }), {})).toBeUndefined();
    expect(statusPatch(failing, verdictConditions(database, failing, { status: 'False', reason: 'Downgrade', message: 'refused' }), {})).toBeUndefined();
  });

  it('tells an object a controller of ours acted on from a new one, whose status the CRD defaults to observedGeneration 0', () => {
    expect(observedOnce(object())).toBe(false);
    expect(observedOnce(object({ observedGeneration: 0 }))).toBe(false);
    expect(observedOnce(object({ observedGeneration: 1, conditions: [] }))).toBe(true);
  });
});
