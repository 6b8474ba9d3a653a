import { Discovery } from '../../src/kube/discovery';
import { KubeObject } from '../../src/kube/objects';
import { KubeRest } from '../../src/kube/rest';
import { createLogger } from '../../src/runtime/log';
import { KindWatches } from '../../src/runtime/watches';
import { createTestNamespace, deleteNamespace, eventually, testKubeConfig } from '../../src/testing/cluster';
import { testObjects } from '../support/manifests';

describe('KindWatches: shared label-selected watches of related collections', () => {
  const kc = testKubeConfig();
  const objects = testObjects();
  const rest = new KubeRest(kc);
  const log = createLogger({ level: 'error', write: () => undefined });
  let namespace: string;
  let watches: KindWatches;
  const queued: string[][] = [];
  const configMaps = { apiGroup: '', resource: 'configmaps' };
  const configMap = (name: string, labels: Record<string, string>): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace, labels }, data: { a: name } });

  beforeAll(async () => {
    namespace = await createTestNamespace(kc, 'watches');
    watches = new KindWatches(rest, { child: () => undefined, related: (owners) => queued.push(owners === 'all' ? ['all'] : [...owners].sort()) }, log);
    watches.addQueried((await new Discovery(rest).resolve('', 'configmaps'))!);
    watches.start();
  });
  afterAll(async () => {
    watches?.stop();
    await deleteNamespace(kc, namespace);
  });

  it('gives owners asking the same query one watch, queues exactly them on a change, and stops it when none asks', async () => {
    await objects.apply(configMap('picked', { pick: 'a' }));
    await objects.apply(configMap('other', { pick: 'b' }));
    const query = { namespace, labels: { pick: 'a' } };
    await watches.ensure('ns/one', [{ collection: configMaps, query }]);
    await watches.ensure('ns/two', [{ collection: configMaps, query }]);
    expect(watches.queryWatches).toBe(1);
    expect(watches.list(configMaps, query).map((o) => o.metadata.name)).toEqual(['picked']);
    expect(queued).toEqual([]); // the first LIST queues no one: the owners asking are reconciling already

    await objects.apply(configMap('picked-later', { pick: 'a' }));
    await eventually('the owners to be queued', async () => (queued.length ? queued : undefined));
    expect(queued[0]).toEqual(['ns/one', 'ns/two']);
    expect(watches.list(configMaps, query).map((o) => o.metadata.name).sort()).toEqual(['picked', 'picked-later']);

    await watches.ensure('ns/one', [{ collection: configMaps, query: { namespace, labels: { pick: 'b' } } }]);
    expect(watches.queryWatches).toBe(2);
    watches.release('ns/two');
    expect(watches.queryWatches).toBe(1);
    await watches.ensure('ns/one', []);
    expect(watches.queryWatches).toBe(0);
  });

  it('finds an owner\u2019s children by their owner labels, and follows relabelling and deletion', async () => {
    const children = new KindWatches(rest, { child: () => undefined, related: () => undefined }, log);
    children.addChildren((await new Discovery(rest).resolve('', 'configmaps'))!, 'test-kind=children', [namespace]);
    children.start();
    await children.waitForSync();
    const owner = (name: string) => ({ 'cdk8s-operators.io/owner-name': name, 'cdk8s-operators.io/owner-namespace': namespace });
    const child = (name: string, ownerName: string) => configMap(name, { 'test-kind': 'children', ...owner(ownerName) });
    await objects.apply(child('a-1', 'a'));
    await objects.apply(child('a-2', 'a'));
    await objects.apply(child('b-1', 'b'));
    const names = (ownerName: string) => children.childrenLabelled(owner(ownerName)).map((c) => c.metadata.name).sort();
    await eventually('three children cached', async () => (names('a').length + names('b').length === 3 ? true : undefined));
    expect([names('a'), names('b')]).toEqual([['a-1', 'a-2'], ['b-1']]);
    await objects.apply(child('a-2', 'b'));
    await objects.delete(child('a-1', 'a'));
    await eventually('the index to follow', async () => (names('a').length === 0 && names('b').length === 2 ? true : undefined));
    expect(names('b')).toEqual(['a-2', 'b-1']);
    children.stop();
  });

  it('watches a child collection in each namespace given, one watch each, and reads their caches as one; a child elsewhere is not watched', async () => {
    const [other, outside] = [await createTestNamespace(kc, 'watches-other'), await createTestNamespace(kc, 'watches-outside')];
    const children = new KindWatches(rest, { child: () => undefined, related: () => undefined }, log);
    try {
      children.addChildren((await new Discovery(rest).resolve('', 'configmaps'))!, 'test-kind=per-namespace', [namespace, other]);
      expect(children.childCollections.map((c) => c.path)).toEqual([`/api/v1/namespaces/${namespace}/configmaps`, `/api/v1/namespaces/${other}/configmaps`]);
      children.start();
      await children.waitForSync();
      const child = (name: string, ns: string): KubeObject => ({ ...configMap(name, { 'test-kind': 'per-namespace' }), metadata: { name, namespace: ns, labels: { 'test-kind': 'per-namespace' } } });
      for (const ns of [namespace, other, outside]) await objects.apply(child(`in-${ns}`, ns));
      const listed = () => children.list(configMaps).map((o) => o.metadata.namespace).sort();
      await eventually('both namespaces cached', async () => (listed().length === 2 ? true : undefined));
      expect(listed()).toEqual([namespace, other].sort());
      expect(children.get(configMaps, `${other}/in-${other}`)?.metadata.name).toBe(`in-${other}`);
      expect(children.informerOf(child('x', other))).not.toBe(children.informerOf(child('x', namespace)));
      expect(children.informerOf(child('x', outside))).toBeUndefined();
    } finally {
      children.stop();
      await Promise.all([other, outside].map((ns) => deleteNamespace(kc, ns)));
    }
  });

  it('queues no owner for the echo of its own write of a child, but for every other change of it', async () => {
    const seen: string[] = [];
    const children = new KindWatches(rest, { child: (c) => seen.push(`${c.metadata.name}@${c.metadata.resourceVersion}`), related: () => undefined }, log);
    children.addChildren((await new Discovery(rest).resolve('', 'configmaps'))!, 'test-kind=echoes', [namespace]);
    children.start();
    await children.waitForSync();
    const child = (name: string, data: string) => ({ ...configMap(name, { 'test-kind': 'echoes' }), data: { a: data } });
    const cachedVersion = (name: string) => children.informerOf(configMap(name, {}))!.cache.get(`${namespace}/${name}`)?.metadata.resourceVersion;

    // Ours: the watch delivers exactly what the write answered (before the answer is read or
    // after), and no one is queued.
    const ours = await children.write(child('ours', 'one'), () => objects.apply<KubeObject>(child('ours', 'one')));
    await eventually('our write cached', async () => (cachedVersion('ours') === ours.metadata.resourceVersion ? true : undefined));
    // Writes not recorded as ours (someone else's): a new child, then a change to ours. Both queue the owner.
    const theirs = await objects.apply<KubeObject>(child('theirs', 'one'));
    await eventually('their child seen', async () => (seen.length ? true : undefined));
    const changed = await objects.apply<KubeObject>(child('ours', 'two'));
    await eventually('the change seen', async () => (seen.length === 2 ? true : undefined));
    expect(seen).toEqual([`theirs@${theirs.metadata.resourceVersion}`, `ours@${changed.metadata.resourceVersion}`]);
    // A write whose echo never comes (it changed nothing) is no reason to drop the next change.
    await children.write(child('ours', 'two'), () => objects.apply<KubeObject>(child('ours', 'two')));
    const third = await objects.apply<KubeObject>(child('ours', 'three'));
    await eventually('the next change seen', async () => (seen.length === 3 ? true : undefined));
    expect(seen[2]).toBe(`ours@${third.metadata.resourceVersion}`);
    children.stop();
  });

  it('starts no watch for a query whose labels could spell a selector operator', async () => {
    const before = watches.queryWatches;
    await expect(watches.ensure('ns/injected', [{ collection: configMaps, query: { namespace, labels: { 'pick!': 'a' } } }])).rejects.toThrow('"pick!" is no label key');
    await expect(watches.ensure('ns/injected', [{ collection: configMaps, query: { namespace, labels: { pick: 'a,other=b' } } }])).rejects.toThrow('the value of pick is no label value');
    expect(watches.queryWatches).toBe(before);
  });

  it('refuses to read a collection the kind never declared', () => {
    expect(() => watches.list({ apiGroup: 'apps', resource: 'deployments' })).toThrow('apps/deployments is not watched for this kind: declare it in manages or watches');
  });
});
