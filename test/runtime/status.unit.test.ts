import { CustomResource } from '../../src/core/contract/kind';
import { SYSTEM_CLOCK } from '../../src/core/contract/clock';
import { Condition } from '../../src/core/kit/status';
import { KINDS } from '../../src/kinds';
import { kindConditions, observedOnce, statusPatch, verdictConditions, withRemovals } from '../../src/runtime/status';
import { FieldSet } from '../../src/kube/create-then-apply';
import { keepsStatusWritesOf, statusWrittenBy } from '../../src/runtime/status-ownership';

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
const written = (before: CustomResource, verdict: Parameters<typeof verdictConditions>[2]) => ({ ...before, status: { ...(before.status as object), ...statusPatch(before, verdictConditions(database, before, verdict, SYSTEM_CLOCK), {}) } });

describe('the status writer', () => {
  it('says Reconciling beside Ready=False for progress, Stalled for one of the kind\u2019s failure reasons or the engine\u2019s, neither when Ready', () => {
    expect(types(verdictConditions(database, object(), { status: 'False', reason: 'Creating', message: 'creating the StatefulSet' }, SYSTEM_CLOCK))).toEqual(['Ready=False Creating', 'Reconciling=True Creating']);
    expect(types(verdictConditions(database, object(), { status: 'False', reason: 'Downgrade', message: 'refused' }, SYSTEM_CLOCK))).toEqual(['Ready=False Downgrade', 'Stalled=True Downgrade']);
    expect(types(verdictConditions(database, object(), { status: 'False', reason: 'InvalidSpec', message: 'spec.port: ...' }, SYSTEM_CLOCK))).toEqual(['Ready=False InvalidSpec', 'Stalled=True InvalidSpec']);
    expect(types(verdictConditions(database, object(), { status: 'True', reason: 'Ready', message: '2 of 2 replicas ready' }, SYSTEM_CLOCK))).toEqual(['Ready=True Ready']);
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
    expect(statusPatch(ready, verdictConditions(database, ready, { status: 'True', reason: 'Ready', message: 'ready' }, SYSTEM_CLOCK), {})).toBeUndefined();
    expect(statusPatch(failing, verdictConditions(database, failing, { status: 'False', reason: 'Downgrade', message: 'refused' }, SYSTEM_CLOCK), {})).toBeUndefined();
  });

  it('tells an object a controller of ours acted on from a new one, whose status the CRD defaults to observedGeneration 0', () => {
    expect(observedOnce(object())).toBe(false);
    expect(observedOnce(object({ observedGeneration: 0 }))).toBe(false);
    expect(observedOnce(object({ observedGeneration: 1, conditions: [] }))).toBe(true);
  });

  it('stamps a transition with the clock it is given, and keeps the time while the status stays', () => {
    const at = (iso: string) => ({ now: () => new Date(iso) });
    const failing = written(object(), { status: 'False', reason: 'Creating', message: 'creating' });
    expect(verdictConditions(database, object(), { status: 'False', reason: 'Creating', message: 'creating' }, at('2061-01-02T03:04:05Z'))[0].lastTransitionTime).toBe('2061-01-02T03:04:05Z');
    const kept = verdictConditions(database, failing, { status: 'False', reason: 'Rolling', message: 'rolling' }, at('2062-01-01T00:00:00Z'));
    expect(kept[0].lastTransitionTime).toBe((failing.status.conditions as Condition[])[0].lastTransitionTime);
  });

  it('adds the kind\u2019s own conditions after the engine\u2019s, replaces them by type, and refuses the engine\u2019s types, a type twice or a type that is no word', () => {
    const clock = { now: () => new Date('2061-01-01T00:00:00Z') };
    const ready = verdictConditions(database, object(), { status: 'True', reason: 'Ready', message: 'ready' }, clock);
    const own = kindConditions(database, object(), [{ type: 'Available', status: 'True', reason: 'Up', message: 'up' }], clock);
    const before = object({ conditions: [{ type: 'Available', status: 'False', reason: 'Down', message: 'down', lastTransitionTime: '2026-01-01T00:00:00Z' }] });
    expect(types(statusPatch(before, [...ready, ...own], {})!.conditions as Condition[])).toEqual(['Ready=True Ready', 'Available=True Up']);
    expect(own[0]).toMatchObject({ lastTransitionTime: '2061-01-01T00:00:00Z', observedGeneration: 2 });
    const condition = (type: string) => ({ type, status: 'True' as const, reason: 'R', message: '' });
    expect(() => kindConditions(database, object(), [condition('Ready')], clock)).toThrow('Database: controller.conditions returned the condition Ready, which the engine writes');
    expect(() => kindConditions(database, object(), [condition('Up'), condition('Up')], clock)).toThrow('returned the condition Up twice');
    expect(() => kindConditions(database, object(), [condition('not a word')], clock)).toThrow('a CamelCase word is expected');
  });

  it('removes a field the operator wrote before and the kind leaves out now, inside objects and maps too, but never the engine\u2019s, one its schema defaults, nor one another writer put there', () => {
    const text = { type: 'string' as const, description: '' };
    const schema = { type: 'object' as const, description: '', properties: { defaulted: { ...text, default: 'x' }, on_create: { type: 'object' as const, description: '', additionalProperties: text } } };
    const previous = { observedGeneration: 2, conditions: [], active: ['a'], last: 't1', defaulted: 'x', detail: { a: '1', b: '2', theirs: '3' }, labels: { k: 'v' }, on_create: { 'configmap-name': 'theirs' } };
    // As managedFields says it: the operator wrote everything above but `detail.theirs` and `on_create`.
    const written = { 'f:observedGeneration': {}, 'f:conditions': {}, 'f:active': {}, 'f:last': {}, 'f:defaulted': {}, 'f:detail': { '.': {}, 'f:a': {}, 'f:b': {} }, 'f:labels': { '.': {}, 'f:k': {} } };
    expect(withRemovals(previous, { last: 't2', detail: { a: '1' }, labels: {} }, schema, written)).toEqual({ active: null, last: 't2', detail: { a: '1', b: null }, labels: { k: null } });
    expect(withRemovals(undefined, { last: 't2' }, schema, written)).toEqual({ last: 't2' });
    // A status the operator never wrote (managedFields has none of its entries) loses nothing.
    expect(withRemovals(previous, { last: 't2' }, schema, undefined)).toEqual({ last: 't2' });
  });

  it('reads what the operator wrote from managedFields: its status entries in the object\u2019s apiVersion, a shard\u2019s too, no one else\u2019s', () => {
    const entry = (manager: string, fields: FieldSet, apiVersion = 'stable.imaginedata.com/v1') => ({ manager, operation: 'Update', apiVersion, subresource: 'status' as string | undefined, fieldsType: 'FieldsV1', fieldsV1: { 'f:status': fields } });
    const resource = {
      ...object({}),
      metadata: {
        ...object().metadata,
        managedFields: [
          entry('cdk8s-operators', { 'f:a': {} }),
          entry('cdk8s-operators-shard-1', { 'f:b': {} }),
          entry('cdk8s-operators', { 'f:old': {} }, 'stable.imaginedata.com/v1alpha1'),
          entry('kopf', { 'f:on_create': {} }),
          { ...entry('cdk8s-operators', { 'f:spec': {} }), subresource: undefined },
        ],
      },
    };
    expect(statusWrittenBy('cdk8s-operators', resource)).toEqual({ 'f:a': {}, 'f:b': {} });
    expect(statusWrittenBy('someone-else', resource)).toBeUndefined();
    expect(resource.metadata.managedFields.filter(keepsStatusWritesOf('cdk8s-operators')).map((e) => e.manager)).toEqual(['cdk8s-operators', 'cdk8s-operators-shard-1', 'cdk8s-operators']);
  });
});
