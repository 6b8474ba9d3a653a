import { ApiObject } from 'cdk8s';
import { KEEP_ON_DELETE_ANNOTATION } from '../../src/core/kit/child-policy';
import { KubeJson } from '../../src/core/contract/kind';
import { childLabels } from '../../src/core/kit/names';
import { withOwner } from '../../src/core/ownership';
import { eventually } from '../../src/testing/cluster';
import { testObjects } from '../support/manifests';
import { whenReady } from '../support/resources';
import { childrenOf, defineTestKind, serveTestKindForSuite } from '../../src/testing/test-kind';

/** A kind with a ConfigMap per object, a second one while its size is above 1, and one kept on delete while above 2. */
const prunedKind = defineTestKind('Pruned', {
  manages: [childrenOf('', 'configmaps')],
  render: (scope, resource) => {
    new ApiObject(scope, 'main', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: resource.metadata.name }, data: { size: String(resource.spec.size) } });
    if (resource.spec.size > 1) new ApiObject(scope, 'extra', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${resource.metadata.name}-extra` }, data: {} });
    if (resource.spec.size > 2) new ApiObject(scope, 'kept', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${resource.metadata.name}-kept`, annotations: { [KEEP_ON_DELETE_ANNOTATION]: 'true' } }, data: {} });
  },
});

describe('pruning', () => {
  const served = serveTestKindForSuite(prunedKind, 'prune');
  const object = (name: string, size: number) => ({ apiVersion: 'pruned.test.cdk8s-operators.io/v1', kind: 'Pruned', metadata: { name, namespace: served.namespace }, spec: { size } });
  const configMap = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: served.namespace } });
  const read = (name: string) => served.objects.find<KubeJson & { data?: Record<string, string> }>(configMap(name));

  it('deletes a child no longer rendered, but never one kept on delete, nor what another controller made from a template carrying the owner\u2019s labels', async () => {
    const owner = await served.objects.create<KubeJson>(object('owner', 2));
    await whenReady(served.objects, owner, 'True');
    expect(await read('owner-extra')).toBeDefined();
    // As a CronJob makes a Job from its jobTemplate: the owner's labels, and the maker as its controller.
    const maker = await served.objects.create<KubeJson>({ ...configMap('maker'), data: {} });
    const made = { ...configMap('made-from-template'), metadata: { ...configMap('made-from-template').metadata, labels: childLabels(prunedKind, owner as never), ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'maker', uid: maker.metadata.uid!, controller: true }] }, data: { run: '1' } };
    await served.objects.create(made);

    await served.objects.apply(object('owner', 1));
    await eventually('the extra ConfigMap to be pruned', async () => ((await read('owner-extra')) ? undefined : true));
    await served.objects.apply(object('owner', 3));
    await eventually('the extra and the kept ConfigMaps', async () => ((await read('owner-extra')) && (await read('owner-kept')) ? true : undefined));
    await served.objects.apply(object('owner', 1));
    // Ready at the new generation: that reconcile's prune is done.
    await whenReady(served.objects, object('owner', 1), 'True');
    expect(await read('owner-extra')).toBeUndefined();
    expect(await read('owner-kept')).toBeDefined();
    expect((await read('made-from-template'))?.data).toEqual({ run: '1' });
    const pruned = `ConfigMap ${served.namespace}/owner-extra`;
    expect(served.logLines.filter((line) => line.msg === 'pruned a child no longer rendered').map((line) => line.child)).toEqual([pruned, pruned]);
  });
});

const CONFIGMAPS = { apiGroup: '', resource: 'configmaps' };
/** The observations that made their owner's `<name>-late` child, once each; and those that saw it. */
const madeLate = new Set<string>();
const sawLate: string[] = [];

/**
 * A kind whose child `<name>-late` reaches the cache while an observation runs, as a Job the
 * previous reconcile created may: that observation (size 2) does not see it and its render leaves
 * it out; the next one sees it and renders it. Only a prune acting on what it saw keeps it.
 */
const latecomerKind = defineTestKind('Latecomer', {
  manages: [childrenOf('', 'configmaps')],
  controller: {
    observer:
      ({ caches }) =>
      async (resource) => {
        const late = `${resource.metadata.namespace}/${resource.metadata.name}-late`;
        const saw = caches.get(CONFIGMAPS, late) !== undefined;
        if (!saw && resource.spec.size > 1 && !madeLate.has(late)) {
          madeLate.add(late);
          const child = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${resource.metadata.name}-late`, namespace: resource.metadata.namespace, labels: childLabels(latecomerKind, resource) }, data: { made: 'late' } };
          await testObjects().create(withOwner(child, resource, latecomerKind));
          await eventually('the late child in the cache', async () => (caches.get(CONFIGMAPS, late) ? true : undefined), 10_000);
        }
        if (saw) sawLate.push(late);
        return { saw };
      },
  },
  render: (scope, resource, observation) => {
    new ApiObject(scope, 'main', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: resource.metadata.name }, data: { made: 'render' } });
    if ((observation as { saw?: boolean } | undefined)?.saw) new ApiObject(scope, 'late', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${resource.metadata.name}-late` }, data: { made: 'late' } });
  },
});

describe('pruning on what the reconcile saw', () => {
  const served = serveTestKindForSuite(latecomerKind, 'prune-seen');
  const object = (size: number) => ({ apiVersion: 'latecomer.test.cdk8s-operators.io/v1', kind: 'Latecomer', metadata: { name: 'owner', namespace: served.namespace }, spec: { size } });
  const late = () => served.objects.find<KubeJson>({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'owner-late', namespace: served.namespace } });

  it('never deletes a child that reached the cache after the reconcile took its look, and leaves the next reconcile to decide on it', async () => {
    await served.objects.apply(object(1));
    await whenReady(served.objects, object(1), 'True');
    await served.objects.apply(object(2));
    // The reconcile whose observation made it, and whose render left it out, is done.
    await whenReady(served.objects, object(2), 'True');
    expect(await late()).toBeDefined();
    // The next reconcile (queued by the child's own event) saw it, and renders it.
    await eventually('an observation that saw the late child', async () => (sawLate.length ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await late()).toBeDefined();
    expect(served.logLines.filter((line) => line.msg === 'pruned a child no longer rendered')).toEqual([]);
  });
});
