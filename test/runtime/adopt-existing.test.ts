import { ApiObject } from 'cdk8s';
import { ADOPT_EXISTING_ANNOTATION } from '../../src/core/kit/child-policy';
import { KubeJson, OwnerReference } from '../../src/core/contract/kind';
import { eventually } from '../../src/testing/cluster';
import { gone, whenReady } from '../support/resources';
import { childrenOf, defineTestKind, serveTestKindForSuite } from '../../src/testing/test-kind';

/**
 * A kind that renders, beside its own ConfigMap, one an earlier operator made for it under a
 * name the object's labels give (as a status field would): marked adopt-existing.
 */
const adopterKind = defineTestKind('Adopter', {
  manages: [childrenOf('', 'configmaps')],
  render: (scope, resource) => {
    const data = { size: String(resource.spec.size) };
    new ApiObject(scope, 'own', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: resource.metadata.name }, data });
    const earlier = resource.metadata.labels?.earlier;
    if (earlier) new ApiObject(scope, 'earlier', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: earlier, annotations: { [ADOPT_EXISTING_ANNOTATION]: 'true' } }, data });
  },
});

describe('a child marked adopt-existing', () => {
  const served = serveTestKindForSuite(adopterKind, 'adopt-existing');
  const object = (name: string, size: number, earlier: string) => ({
    apiVersion: 'adopter.test.cdk8s-operators.io/v1',
    kind: 'Adopter',
    metadata: { name, namespace: served.namespace, labels: { earlier } },
    spec: { size },
  });
  const configMap = (name: string, ownerReferences: OwnerReference[] = []) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: served.namespace, ownerReferences }, data: { size: 'old', kept: 'yes' } });
  const read = (name: string) => served.objects.find<KubeJson & { data?: Record<string, string> }>({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: served.namespace } });
  /**
   * An earlier operator's object carries none of our labels, so no watch sees it appear: the
   * owner's next reconcile finds it. Here a change of the owner makes one; else the periodic resync.
   */
  const nudge = (owner: KubeJson) => served.objects.apply({ apiVersion: owner.apiVersion, kind: owner.kind, metadata: { name: owner.metadata.name, namespace: served.namespace, annotations: { nudge: String(Date.now()) } } });
  /** A controller ownerReference to `owner`, as another operator would write it. */
  const ownedBy = (owner: KubeJson, controller = true) => ({ apiVersion: owner.apiVersion, kind: owner.kind, name: owner.metadata.name, uid: owner.metadata.uid!, controller, blockOwnerDeletion: true });

  it('is taken over and kept up to date when an earlier operator made it for this owner', async () => {
    const owner = await served.objects.create<KubeJson>(object('adopts', 1, 'adopts-x7k2p'));
    await served.objects.create(configMap('adopts-x7k2p', [ownedBy(owner)]));
    await nudge(owner);
    await whenReady(served.objects, owner, 'True');
    await eventually('the earlier ConfigMap to hold size 1', async () => ((await read('adopts-x7k2p'))?.data?.size === '1' ? true : undefined));
    // Keys the render does not name stay as they were.
    expect((await read('adopts-x7k2p'))?.data).toEqual({ size: '1', kept: 'yes' });

    await served.objects.apply({ ...object('adopts', 2, 'adopts-x7k2p') });
    await eventually('the earlier ConfigMap to follow the spec', async () => ((await read('adopts-x7k2p'))?.data?.size === '2' ? true : undefined));
  });

  it('is never created, and stays deleted once someone deletes it', async () => {
    const owner = await served.objects.create<KubeJson>(object('never', 1, 'never-b8c9d'));
    await whenReady(served.objects, owner, 'True');
    expect(await read('never-b8c9d')).toBeUndefined();
    expect((await read('never'))?.data).toEqual({ size: '1' });

    await served.objects.create(configMap('never-b8c9d', [ownedBy(owner)]));
    await served.objects.apply(object('never', 2, 'never-b8c9d'));
    await eventually('the earlier ConfigMap to be taken over', async () => ((await read('never-b8c9d'))?.data?.size === '2' ? true : undefined));
    await served.objects.delete({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'never-b8c9d', namespace: served.namespace } });
    await served.objects.apply(object('never', 3, 'never-b8c9d'));
    await eventually('the own ConfigMap to follow', async () => ((await read('never'))?.data?.size === '3' ? true : undefined));
    expect(await read('never-b8c9d')).toBeUndefined();
  });

  it('is written only while it is the object the cache saw: an apply never makes it anew once deleted, nor writes over its replacement', async () => {
    const earlier = await served.objects.create<KubeJson>(configMap('stale-q4m1z'));
    const uid = earlier.metadata.uid!;
    const applied = await served.objects.applyToExisting<KubeJson & { data?: Record<string, string> }>({ ...configMap('stale-q4m1z'), data: { size: '1' } }, uid);
    expect(applied?.data).toEqual({ size: '1', kept: 'yes' });

    await served.objects.delete(earlier);
    await eventually('the ConfigMap to be gone', async () => ((await read('stale-q4m1z')) ? undefined : true));
    expect(await served.objects.applyToExisting({ ...configMap('stale-q4m1z'), data: { size: '2' } }, uid)).toBeUndefined();
    expect(await read('stale-q4m1z')).toBeUndefined();

    await served.objects.create(configMap('stale-q4m1z'));
    await expect(served.objects.applyToExisting({ ...configMap('stale-q4m1z'), data: { size: '3' } }, uid)).rejects.toMatchObject({ code: 422, message: expect.stringMatching(/uid/) });
    expect((await read('stale-q4m1z'))?.data).toEqual({ size: 'old', kept: 'yes' });
  });

  it('is a conflict, left alone, when it is someone else\u2019s: not owned, or controlled by another owner', async () => {
    const other = await served.objects.create<KubeJson>(object('other', 1, 'nobody'));
    const owner = await served.objects.create<KubeJson>(object('strict', 1, 'strict-mine'));
    await served.objects.create(configMap('strict-mine'));
    await nudge(owner);
    await whenReady(served.objects, owner, 'False', 'Conflict');
    expect((await read('strict-mine'))?.data).toEqual({ size: 'old', kept: 'yes' });

    const second = await served.objects.create<KubeJson>(object('second', 1, 'second-theirs'));
    await served.objects.create(configMap('second-theirs', [ownedBy(second, false), ownedBy(other)]));
    await nudge(second);
    await whenReady(served.objects, second, 'False', 'Conflict');
    expect((await read('second-theirs'))?.data).toEqual({ size: 'old', kept: 'yes' });
    expect(await gone(served.objects, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'second-theirs', namespace: served.namespace } })).toBe(false);
  });
});
