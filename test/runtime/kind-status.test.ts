import { Clock, KubeJson } from '../../src/core/contract/kind';
import { commonStatusProperties } from '../../src/core/kit/status';
import { s } from '../../src/schema';
import { eventually } from '../../src/testing/cluster';
import { testObjects } from '../support/manifests';
import { gone, whenReady } from '../support/resources';
import { defineTestKind, serveTestKindForSuite } from '../../src/testing/test-kind';

/** A clock some 35 years ahead: a condition stamped with the real time shows it at once. */
const AHEAD_MS = Date.parse('2061-07-28T00:00:00Z') - Date.parse('2026-01-01T00:00:00Z');
const aheadClock: Clock = { now: () => new Date(Date.now() + AHEAD_MS) };

const text = (description: string) => s.optional(s.string({ description }));

/**
 * A kind whose status and conditions follow its size: at 2 a list, a note and two details, and
 * its Sized condition True; at 1 one detail only, Sized False. Steady is True all along. The
 * object `fleeting` deletes itself while observed, so that its status write finds it gone.
 */
const reportedKind = defineTestKind('Reported', {
  status: s.object(
    {
      ...commonStatusProperties,
      items: s.optional(s.array(s.string({ description: 'An item.' }), { description: 'Items.' })),
      note: text('A note.'),
      detail: s.optional(s.object({ a: text('A.'), b: text('B.') }, { description: 'Details.' })),
    },
    { description: 'What the size says.' },
  ),
  controller: {
    observer: () => async (resource) => {
      if (resource.metadata.name !== 'fleeting') return;
      const objects = testObjects();
      await objects.delete(resource);
      await eventually('the object to be gone', async () => ((await gone(objects, resource)) ? true : undefined));
    },
    status: (resource) => (resource.spec.size > 1 ? { items: ['x', 'y'], note: 'two', detail: { a: '1', b: '2' } } : { detail: { a: '1' } }),
    conditions: (resource) => [
      resource.spec.size > 1 ? { type: 'Sized', status: 'True', reason: 'Large', message: 'two or more' } : { type: 'Sized', status: 'False', reason: 'Small', message: 'one' },
      { type: 'Steady', status: 'True', reason: 'Always', message: 'always' },
    ],
  },
  render: () => undefined,
});

type Reported = KubeJson & { status?: { items?: string[]; note?: string; detail?: Record<string, string>; conditions?: { type: string; status: string; reason: string; lastTransitionTime: string }[] } };

describe('the status a kind writes (resync 1 s, the engine\u2019s clock 35 years ahead)', () => {
  const served = serveTestKindForSuite(reportedKind, 'kind-status', undefined, { resyncMs: 1_000, clock: aheadClock });
  const object = (name: string, size: number) => ({ apiVersion: 'reported.test.cdk8s-operators.io/v1', kind: 'Reported', metadata: { name, namespace: served.namespace }, spec: { size } });
  const conditionOf = (o: Reported, type: string) => o.status?.conditions?.find((c) => c.type === type);
  const year = (time: string | undefined) => new Date(time ?? 0).getUTCFullYear();

  it('removes a field it leaves out, keeps its own conditions\u2019 transition times while they hold, stamps every condition with the engine\u2019s clock, and settles', async () => {
    await served.objects.apply(object('sized', 2));
    const large = (await whenReady(served.objects, object('sized', 2), 'True')) as Reported;
    expect(large.status).toMatchObject({ items: ['x', 'y'], note: 'two', detail: { a: '1', b: '2' } });
    expect(conditionOf(large, 'Sized')).toMatchObject({ status: 'True', reason: 'Large', message: 'two or more', observedGeneration: 1 });
    for (const type of ['Ready', 'Sized', 'Steady']) expect(year(conditionOf(large, type)?.lastTransitionTime)).toBeGreaterThanOrEqual(2061);

    await served.objects.apply(object('sized', 1));
    const small = (await whenReady(served.objects, object('sized', 1), 'True')) as Reported;
    expect(small.status?.items).toBeUndefined();
    expect(small.status?.note).toBeUndefined();
    expect(small.status?.detail).toEqual({ a: '1' });
    expect(conditionOf(small, 'Sized')).toMatchObject({ status: 'False', reason: 'Small' });
    expect(year(conditionOf(small, 'Sized')?.lastTransitionTime)).toBeGreaterThanOrEqual(2061);
    expect(conditionOf(small, 'Steady')?.lastTransitionTime).toBe(conditionOf(large, 'Steady')?.lastTransitionTime);
    expect(conditionOf(small, 'Ready')?.lastTransitionTime).toBe(conditionOf(large, 'Ready')?.lastTransitionTime);
    expect(small.status?.conditions?.map((c) => c.type)).toEqual(['Ready', 'Sized', 'Steady']);

    // Reconciled every second: nothing more to write.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect((await served.objects.get<KubeJson>(object('sized', 1))).metadata.resourceVersion).toBe(small.metadata.resourceVersion);
  });

  it('never removes a field another writer put there, though the schema declares it and the kind leaves it out', async () => {
    await served.objects.apply(object('shared', 1));
    await whenReady(served.objects, object('shared', 1), 'True');
    const path = `/apis/reported.test.cdk8s-operators.io/v1/namespaces/${served.namespace}/reporteds/shared/status`;
    await served.objects.rest.request('PATCH', path, { body: { status: { note: 'theirs' } }, contentType: 'application/merge-patch+json', query: { fieldManager: 'someone-else' } });
    // Reconciled every second: a few status writes' worth of time.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(((await served.objects.get<Reported>(object('shared', 1))).status)?.note).toBe('theirs');
  });

  it('takes a status write to an object deleted meanwhile for the deletion it is: no error, no retry', async () => {
    const before = served.logLines.length;
    await served.objects.apply(object('fleeting', 1));
    await eventually('the object to be gone', async () => ((await gone(served.objects, object('fleeting', 1))) ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const complaints = served.logLines.slice(before).filter((line) => line.level === 'error' || line.level === 'warn');
    expect(complaints).toEqual([]);
  });
});
