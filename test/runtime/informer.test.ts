import { KubeObject } from '../../src/kube/objects';
import { KubeRest } from '../../src/kube/rest';
import { Informer } from '../../src/runtime/informer';
import { createLogger } from '../../src/runtime/log';
import { createTestNamespace, deleteNamespace, eventually, testKubeConfig } from '../../src/testing/cluster';
import { testObjects } from '../support/manifests';

describe('Informer', () => {
  const kc = testKubeConfig();
  const objects = testObjects();
  let namespace: string;
  let informer: Informer;
  const logged: string[] = [];

  beforeAll(async () => {
    namespace = await createTestNamespace(kc, 'informer');
  });
  afterAll(async () => {
    informer?.stop();
    await deleteNamespace(kc, namespace);
  });

  it('lists, then follows changes, and a failing handler stops neither it nor the other handlers', async () => {
    const configMap = (name: string, data: Record<string, string> = {}): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace, labels: { watched: 'yes' } }, data });
    await objects.apply(configMap('before'));
    const log = createLogger({ level: 'error', write: (line) => logged.push(line) });
    informer = new Informer(new KubeRest(kc), { path: `/api/v1/namespaces/${namespace}/configmaps`, labelSelector: 'watched=yes', pageSize: 1 }, log);
    const seen: string[] = [];
    informer.on(() => {
      throw new Error('a broken handler');
    });
    informer.on((type, object) => seen.push(`${type} ${object.metadata.name}`));
    informer.start();

    await eventually('the initial list', async () => (informer.hasSynced ? true : undefined));
    await objects.apply(configMap('after'));
    await objects.apply(configMap('after', { changed: 'yes' }));
    await objects.delete(configMap('before'));
    await eventually('every change', async () => (seen.length >= 4 ? seen : undefined));
    expect(seen).toEqual(['added before', 'added after', 'updated after', 'deleted before']);
    expect([...informer.cache.keys()]).toEqual([`${namespace}/after`]);
    // Listed objects carry their identity like watched ones, so they can be compared and deleted.
    const listed = new Informer(new KubeRest(kc), { path: `/api/v1/namespaces/${namespace}/configmaps`, labelSelector: 'watched=yes' }, log);
    listed.start();
    await eventually('a second list', async () => (listed.hasSynced ? true : undefined));
    listed.stop();
    expect(listed.cache.get(`${namespace}/after`)).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap' });
    expect(JSON.parse(logged[0])).toMatchObject({ level: 'error', msg: 'an event handler failed', error: { message: 'a broken handler' } });
  });

  it('caches metadata only when asked, so a Secret’s values never reach the cache', async () => {
    const secrets = new Informer(new KubeRest(kc), { path: `/api/v1/namespaces/${namespace}/secrets`, metadataOnly: true }, createLogger({ level: 'error', write: () => undefined }));
    secrets.start();
    await secrets.waitForSync(30_000);
    expect(secrets.cache.size).toBe(0); // an empty metadata LIST says items: null
    await objects.apply({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'kept-secret', namespace }, stringData: { password: 'hunter2' } } as KubeObject);
    const seen = await eventually('the Secret’s metadata', async () => secrets.cache.get(`${namespace}/kept-secret`));
    secrets.stop();
    expect(seen.metadata.name).toBe('kept-secret');
    expect(JSON.stringify(seen)).not.toContain('hunter2');
    expect(seen.data).toBeUndefined();
  });

  it('keeps of each listed and watched object only what its keep function returns', async () => {
    const labelled = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace, labels: { kept: 'yes', dropped: 'yes' } }, data: { big: 'x'.repeat(1000) } });
    await objects.apply(labelled('listed'));
    const keep = (o: KubeObject): KubeObject => ({ apiVersion: o.apiVersion, kind: o.kind, metadata: { name: o.metadata.name, namespace: o.metadata.namespace, resourceVersion: o.metadata.resourceVersion, labels: { kept: o.metadata.labels!.kept } } });
    const slim = new Informer(new KubeRest(kc), { path: `/api/v1/namespaces/${namespace}/configmaps`, labelSelector: 'kept=yes', keep }, createLogger({ level: 'error', write: () => undefined }));
    const handed: KubeObject[] = [];
    slim.on((_type, object) => handed.push(object));
    slim.start();
    await slim.waitForSync(30_000);
    await objects.apply(labelled('watched'));
    const watched = await eventually('the watched one', async () => slim.cache.get(`${namespace}/watched`));
    slim.stop();
    for (const object of [slim.cache.get(`${namespace}/listed`)!, watched, ...handed]) {
      expect(Object.keys(object).sort()).toEqual(['apiVersion', 'kind', 'metadata']);
      expect(object.metadata.labels).toEqual({ kept: 'yes' });
      expect(object.metadata.resourceVersion).toMatch(/^\d+$/);
      expect(object.metadata.uid).toBeUndefined();
    }
  });

  it('says why its first LIST failed when a caller waits for it', async () => {
    const nowhere = new Informer(new KubeRest(kc), { path: '/api/v1/namespaces/x/no-such-things' }, createLogger({ level: 'error', write: () => undefined }));
    nowhere.start();
    await expect(nowhere.waitForSync(2000)).rejects.toThrow(/could not list \/api\/v1\/namespaces\/x\/no-such-things within 2 s: GET .*HTTP 404/);
    nowhere.stop();
  });
});
