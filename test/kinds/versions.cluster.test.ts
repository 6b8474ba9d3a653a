import { KubeObject } from '../../src/kube/objects';
import { suiteNamespace } from '../../src/testing/cluster';
import { installCrds, testObjects } from '../support/manifests';

// The real kinds in both of their versions on the real API server, which converts through the
// run's conversion webhook (the engine's /convert): the originals' manifests go in as they are
// written, read the same in v1, read in v2's layout, and an edit in either shows in the other.

type Json = KubeObject & { spec?: Record<string, unknown>; [field: string]: unknown };
const objects = testObjects();
const space = suiteNamespace('versions');

beforeAll(() => installCrds(objects));

const inVersion = (o: KubeObject, apiVersion: string) => objects.get<Json>({ ...o, apiVersion });
const fieldsOf = (o: Json) => Object.fromEntries(Object.entries(o).filter(([field]) => !['apiVersion', 'kind', 'metadata', 'status'].includes(field)));

describe('CopyratorRule in v1 and v2', () => {
  it('takes the original sample rule (top-level fields) in v1, reads it back exactly so, and in v2 under spec', async () => {
    const sample = { apiVersion: 'test.com/v1', kind: 'CopyratorRule', metadata: { name: 'sample', namespace: space.name }, ruleType: 'configmap', selector: { copyrator: 'true' }, namespace: 'default' };
    await objects.create(sample);
    const v1 = await inVersion(sample, 'test.com/v1');
    expect(fieldsOf(v1)).toEqual({ ruleType: 'configmap', selector: { copyrator: 'true' }, namespace: 'default' });
    expect(v1.metadata.annotations).toBeUndefined();
    const v2 = await inVersion(sample, 'test.com/v2');
    expect(fieldsOf(v2)).toEqual({ spec: { ruleType: 'configmap', selector: { copyrator: 'true' }, namespaces: ['default'] } });
  });

  it('keeps a clone\u2019s namespace list beside namespaces through v2, and shows an edit made in v2 in v1\u2019s usual layout', async () => {
    const clone = { apiVersion: 'test.com/v1', kind: 'CopyratorRule', metadata: { name: 'clone', namespace: space.name }, spec: { ruleType: 'secret', selector: { a: 'b' }, namespace: ['dev'], namespaces: ['prod'] } };
    await objects.create(clone);
    expect((await inVersion(clone, 'test.com/v2')).spec).toEqual({ ruleType: 'secret', selector: { a: 'b' }, namespaces: ['dev', 'prod'] });
    expect((await inVersion(clone, 'test.com/v1')).spec).toEqual(clone.spec);
    const v2 = await inVersion(clone, 'test.com/v2');
    await objects.rest.request('PUT', `/apis/test.com/v2/namespaces/${space.name}/copyrators/clone`, { body: { ...v2, spec: { ...v2.spec, namespaces: ['dev', 'prod', 'stage'] } } });
    expect((await inVersion(clone, 'test.com/v1')).spec).toEqual({ ruleType: 'secret', selector: { a: 'b' }, namespace: ['dev', 'prod', 'stage'] });
  });

  it('serves the rule in flant.com/v2 too, converted the same', async () => {
    const flant = { apiVersion: 'flant.com/v1', kind: 'CopyratorRule', metadata: { name: 'flant', namespace: space.name }, ruleType: 'configmap', selector: { copyrator: 'true' } };
    await objects.create(flant);
    expect((await inVersion(flant, 'flant.com/v2')).spec).toEqual({ ruleType: 'configmap', selector: { copyrator: 'true' } });
  });
});

describe('Database in v1 and v2', () => {
  const sampleDb = { name: 'name-of-database', port: 5432, 'storage-size': '50G', image: 'super-great-docker-image', replicas: 3 };

  it('takes the SampleDB in v1 with storage-size, reads it in v2 as storageSize, and a v2 edit in v1', async () => {
    const db = { apiVersion: 'stable.imaginedata.com/v1', kind: 'Database', metadata: { name: 'sampledb', namespace: space.name }, spec: sampleDb };
    await objects.create(db);
    const v2 = await inVersion(db, 'stable.imaginedata.com/v2');
    expect(v2.spec).toMatchObject({ name: 'name-of-database', storageSize: '50G', replicas: 3 });
    expect(v2.spec).not.toHaveProperty('storage-size');
    await objects.rest.request('PUT', `/apis/stable.imaginedata.com/v2/namespaces/${space.name}/databases/sampledb`, { body: { ...v2, spec: { ...v2.spec, replicas: 2 } } });
    expect((await inVersion(db, 'stable.imaginedata.com/v1')).spec).toMatchObject({ 'storage-size': '50G', replicas: 2 });
  });

  it('keeps storage-size unchangeable in v1 and storageSize in v2, each naming its own field', async () => {
    const db = { apiVersion: 'stable.imaginedata.com/v2', kind: 'Database', metadata: { name: 'fixed', namespace: space.name }, spec: { name: 'orders', storageSize: '1Gi' } };
    await objects.create(db);
    for (const [apiVersion, field] of [['stable.imaginedata.com/v2', 'storageSize'], ['stable.imaginedata.com/v1', 'storage-size']]) {
      const live = await inVersion(db, apiVersion);
      const refused = await objects.rest
        .request('PUT', `/apis/${apiVersion}/namespaces/${space.name}/databases/fixed`, { body: { ...live, spec: { ...live.spec, [field]: '2Gi' } } })
        .then(() => 'accepted', (err: Error) => err.message);
      expect(refused).toContain(`spec.${field}`);
      expect(refused).toContain('cannot change');
    }
  });
});

describe('server-side apply of a manifest moved from v1 to v2 by its manager (a team\u2019s Git after the upgrade)', () => {
  // The API server prunes the object to what the manager owned in v1 and converts that partial object (no spec, or part of one) through the webhook.
  it('applies a Database written in v1 again in v2, the same fields', async () => {
    const v1 = { apiVersion: 'stable.imaginedata.com/v1', kind: 'Database', metadata: { name: 'moved', namespace: space.name }, spec: { name: 'moved', 'storage-size': '1Gi', replicas: 1 } };
    await objects.apply(v1);
    const applied = await objects.apply<Json>({ ...v1, apiVersion: 'stable.imaginedata.com/v2', spec: { name: 'moved', storageSize: '1Gi', replicas: 2 } });
    expect(applied.spec).toMatchObject({ storageSize: '1Gi', replicas: 2 });
    expect((await inVersion(v1, 'stable.imaginedata.com/v1')).spec).toMatchObject({ 'storage-size': '1Gi', replicas: 2 });
  });

  it('applies the original sample rule (top-level fields) again in v2 under spec', async () => {
    const v1 = { apiVersion: 'test.com/v1', kind: 'CopyratorRule', metadata: { name: 'moved', namespace: space.name }, ruleType: 'configmap', selector: { copyrator: 'true' }, namespace: 'default' };
    await objects.apply(v1);
    const applied = await objects.apply<Json>({ apiVersion: 'test.com/v2', kind: 'CopyratorRule', metadata: v1.metadata, spec: { ruleType: 'configmap', selector: { copyrator: 'true' }, namespaces: ['default', 'prod'] } });
    expect(applied.spec).toEqual({ ruleType: 'configmap', selector: { copyrator: 'true' }, namespaces: ['default', 'prod'] });
    expect(fieldsOf(await inVersion(v1, 'test.com/v1'))).toEqual({ spec: { ruleType: 'configmap', selector: { copyrator: 'true' }, namespace: ['default', 'prod'] } });
  });
});
