import { ApiObject } from 'cdk8s';
import { WriteBudget } from '../../src/runtime/write-budget';
import { eventually } from '../../src/testing/cluster';
import { eventsIn, whenReady } from '../support/resources';
import { childrenOf, defineTestKind, metricValue, serveTestKindForSuite } from '../../src/testing/test-kind';

describe('WriteBudget', () => {
  it('allows `limit` writes of a child within the window, then says how long until the oldest leaves it', () => {
    let now = 1_000;
    const budget = new WriteBudget(3, 60_000, () => now);
    for (let n = 0; n < 3; n++) {
      expect(budget.waitMs('a')).toBe(0);
      budget.spend('a');
      now += 1_000;
    }
    expect(budget.waitMs('a')).toBe(57_000);
    expect(budget.waitMs('b')).toBe(0);
    now += 57_000;
    expect(budget.waitMs('a')).toBe(0);
  });

  it('forgets children not written within the window', () => {
    let now = 0;
    const budget = new WriteBudget(10, 60_000, () => now);
    for (let n = 0; n < 999; n++) budget.spend(`child-${n}`);
    now = 61_000;
    budget.spend('late');
    expect(budget.size).toBe(1);
  });
});

/** A kind whose render differs on every call, as a timestamp or counter in a render would make it. */
let renders = 0;
const restlessKind = defineTestKind('Restless', {
  manages: [childrenOf('', 'configmaps')],
  render: (scope, resource) =>
    void new ApiObject(scope, 'config', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: resource.metadata.name, annotations: { 'test/render': String(++renders) } }, data: { size: String(resource.spec.size) } }),
});

describe('a kind whose render never converges, served by the real engine', () => {
  const served = serveTestKindForSuite(restlessKind, 'write-budget');

  it('writes the child at most 10 times a minute instead of on every event, and names the field that keeps changing', async () => {
    const object = { apiVersion: 'restless.test.cdk8s-operators.io/v1', kind: 'Restless', metadata: { name: 'restless', namespace: served.namespace }, spec: { size: 1 } };
    await served.objects.apply(object);
    await whenReady(served.objects, object, 'True');
    const applies = () => metricValue(served.metrics, 'cdk8s_operators_child_writes_total', { kind: 'Restless', action: 'apply' });
    // The echo of our own write queues nothing; someone else's change does, here a stream of them.
    let touches = 0;
    const touch = () => served.objects.apply({ ...object, metadata: { ...object.metadata, annotations: { 'test/touch': String(++touches) } } });
    await eventually('the budget to be spent', async () => (applies() >= 10 ? true : void (await touch())));
    for (let n = 0; n < 10; n++) {
      await touch();
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    expect(applies()).toBe(10);
    const held = await eventually('the ChildWritesHeld Warning', async () => (await eventsIn(served.objects, served.namespace)).find((e) => e.reason === 'ChildWritesHeld'));
    expect(held.type).toBe('Warning');
    expect(held.note).toContain('ConfigMap ' + served.namespace + '/restless was written 10 times within 60 s and its render still differs at metadata.annotations.test/render');
    expect(served.logLines.filter((l) => l.msg === 'held back writes to a child that changes on every render')).toHaveLength(1);
  });
});
