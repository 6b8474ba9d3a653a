import { ApiObject } from 'cdk8s';
import { KEEP_ON_DELETE_ANNOTATION } from '../../src/core/child-policy';
import { KubeJson } from '../../src/core/kind';
import { childLabels } from '../../src/core/names';
import { eventually } from '../support/cluster';
import { whenReady } from '../support/resources';
import { childrenOf, defineTestKind, serveTestKindForSuite } from '../support/test-kind';

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
    const made = { ...configMap('made-from-template'), metadata: { ...configMap('made-from-template').metadata, labels: childLabels(prunedKind, owner as never), ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'maker', uid: maker.metadata.uid, controller: true }] }, data: { run: '1' } };
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
