import * as k8s from '@kubernetes/client-node';
import { CustomResource } from '../../src/core/contract/kind';
import { validateResource } from '../../src/core/contract/validation';
import { Manifest, renderChildren } from '../../src/core/render';
import { KubeObject } from '../../src/kube/objects';
import { KubeError } from '../../src/kube/rest';
import { databaseKind, DatabaseObservation, DatabaseSpec } from '../../src/kinds/database';
import { deleteNamespace, eventually, ignoreNotFound, testKubeConfig } from '../../src/testing/cluster';
import { startStorageProvisioner, StorageProvisioner } from '../support/storage-provisioner';
import { installCrds, testObjects } from '../support/manifests';
import { randomBytes } from 'node:crypto';

// The construct tests check what the children say; these check that the real API server takes
// them as they are (names, immutable fields, quantities) and that every pod passes the
// restricted Pod Security profile, in every state the controller can render.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const PASSWORD = 'pw-3Zq8Kc1vT7xN2mR5yH9wB4dF6gJ0sL';
const CREDENTIALS = { password: PASSWORD, replicationPassword: 'rp-9Tq2Lw7Xc4Vb1Nm8Kj5Hg3Fd6Sa0Pz' };
/** The operator pattern's SampleDB, as written there. */
const SAMPLE_DB = { name: 'name-of-database', port: 5432, 'storage-size': '50G', image: 'super-great-docker-image', replicas: 3 };
const LONG_NAME = `${'a'.repeat(250)}-xy`;
const spec = { name: 'orders', 'storage-size': '1Gi', backup: { schedule: '0 3 * * *' } };

const STATES: [string, Record<string, unknown>, DatabaseObservation | undefined, string?][] = [
  ['a preview', spec, undefined],
  ['the first create', spec, CREDENTIALS],
  ['a pending upgrade', { ...spec, image: 'postgres:17.2-bookworm' }, { ...CREDENTIALS, currentImage: 'postgres:17.1' }],
  ['a deletion with Snapshot', spec, { ...CREDENTIALS, deleting: true }],
  ['the SampleDB as written: three servers, an image without a version', SAMPLE_DB, CREDENTIALS],
  ['the SampleDB with a held change of image', { ...SAMPLE_DB, image: 'postgres:17' }, { ...CREDENTIALS, currentImage: 'super-great-docker-image' }],
  ['a 253-character name with standbys and a pending upgrade', { ...spec, replicas: 2, image: 'postgres:17.2-bookworm' }, { ...CREDENTIALS, currentImage: 'postgres:17.1' }, LONG_NAME],
  ['a 253-character name being deleted', spec, { ...CREDENTIALS, deleting: true }, LONG_NAME],
];

function children(namespace: string, raw: Record<string, unknown>, observation?: DatabaseObservation, name = 'orders'): Manifest[] {
  const object = { apiVersion: 'stable.imaginedata.com/v1', kind: 'Database', metadata: { name, namespace }, spec: raw };
  const result = validateResource(databaseKind, object);
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return renderChildren(databaseKind, { ...object, spec: result.spec } as CustomResource<DatabaseSpec>, observation);
}

/** A Pod made from a workload's template, so Pod Security admission judges exactly what the workload would run. */
function podOf(workload: Json, namespace: string): KubeObject {
  const template = workload.kind === 'CronJob' ? workload.spec.jobTemplate.spec.template : workload.spec.template;
  // As the StatefulSet controller does, each claim template becomes a volume of the pod.
  const claims = (workload.spec.volumeClaimTemplates ?? []).map((t: Json) => ({ name: t.metadata.name, persistentVolumeClaim: { claimName: `${t.metadata.name}-${workload.metadata.name}-0` } }));
  const spec = { ...template.spec, volumes: [...template.spec.volumes, ...claims] };
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: `${workload.kind.toLowerCase()}-pod`, namespace, labels: template.metadata.labels }, spec };
}

describe('Database children on the API server', () => {
  const kc = testKubeConfig();
  const objects = testObjects();
  const namespace = `database-${randomBytes(3).toString('hex')}`;
  let provisioner: StorageProvisioner;

  beforeAll(async () => {
    provisioner = await startStorageProvisioner(kc, namespace);
    await installCrds(objects);
    await kc.makeApiClient(k8s.CoreV1Api).createNamespace({
      body: { metadata: { name: namespace, labels: { 'pod-security.kubernetes.io/enforce': 'restricted', 'pod-security.kubernetes.io/enforce-version': 'latest' } } },
    });
  });
  afterAll(async () => {
    await deleteNamespace(kc, namespace).catch(ignoreNotFound);
    await provisioner.stop();
  });

  describe.each(STATES)('for %s', (_state, raw, observation, name) => {
    const rendered = () => children(namespace, raw, observation, name);

    it('are all accepted as they are', async () => {
      for (const child of rendered()) {
        await expect(objects.create(child as KubeObject, { dryRun: true }).then((o) => `${o.kind}/${o.metadata.name}`)).resolves.toBe(`${child.kind}/${child.metadata.name}`);
      }
    });

    it('run only pods that the restricted Pod Security profile admits', async () => {
      for (const workload of rendered().filter((c) => ['StatefulSet', 'Job', 'CronJob'].includes(c.kind))) {
        await expect(objects.create(podOf(workload, namespace), { dryRun: true }).then((o) => o.kind)).resolves.toBe('Pod');
      }
    });
  });

  it('lets replicas, port, image and backup change, but not name or storage-size', async () => {
    const stored = await objects.create<Json>({ apiVersion: 'stable.imaginedata.com/v1', kind: 'Database', metadata: { name: 'immutable', namespace }, spec } as KubeObject);
    const update = (changes: Record<string, unknown>) =>
      objects.rest.request<Json>('PUT', `/apis/stable.imaginedata.com/v1/namespaces/${namespace}/databases/immutable`, {
        body: { ...stored, spec: { ...stored.spec, ...changes } },
        query: { dryRun: 'All' },
      });
    await expect(update({ replicas: 3, port: 6543, image: 'postgres:17.2', backup: { schedule: '@hourly' } })).resolves.toMatchObject({ spec: { replicas: 3 } });
    for (const [changes, field] of [
      [{ name: 'renamed' }, 'spec.name'],
      [{ 'storage-size': '2Gi' }, 'spec.storage-size'],
    ] as const) {
      const error = await update(changes).then(() => undefined, (err: unknown) => err);
      expect(error).toBeInstanceOf(KubeError);
      expect((error as KubeError).code).toBe(422);
      expect((error as KubeError).status?.message).toContain(field);
    }
  });

  it('rejects a Database whose name cannot name a Service, naming metadata', async () => {
    for (const name of ['my.db', '9db']) {
      const error = await objects
        .create({ apiVersion: 'stable.imaginedata.com/v1', kind: 'Database', metadata: { name, namespace }, spec } as KubeObject, { dryRun: true })
        .then(() => undefined, (err: unknown) => err);
      expect(error).toBeInstanceOf(KubeError);
      expect((error as KubeError).status?.message).toContain('metadata');
    }
    await expect(objects.create({ apiVersion: 'stable.imaginedata.com/v1', kind: 'Database', metadata: { name: 'orders-2', namespace }, spec } as KubeObject, { dryRun: true })).resolves.toBeDefined();
  });

  it('accepts the SampleDB\u2019s own sample in stable.imaginedata.co as in stable.imaginedata.com, and refuses a group the kind is not served in ("no matches for kind")', async () => {
    const sample = { apiVersion: 'stable.imaginedata.co/v1', kind: 'Database', metadata: { name: 'my-first-crd-database', namespace }, spec: SAMPLE_DB };
    await expect(objects.create(sample as KubeObject, { dryRun: true })).resolves.toMatchObject({ apiVersion: 'stable.imaginedata.co/v1', kind: 'Database' });
    await expect(objects.create({ ...sample, apiVersion: 'stable.imaginedata.com/v1' } as KubeObject, { dryRun: true })).resolves.toMatchObject({ kind: 'Database' });
    // The same schema in both groups: what one refuses, the other refuses too, naming the field.
    const error = await objects.create({ ...sample, spec: { ...SAMPLE_DB, port: 0 } } as KubeObject, { dryRun: true }).then(() => undefined, (err: unknown) => err);
    expect((error as KubeError).status?.message).toContain('spec.port');
    const unknown = { ...sample, apiVersion: 'stable.imaginedata.org/v1' };
    for (const attempt of [
      () => objects.create(unknown as KubeObject, { dryRun: true }),
      () => objects.rest.request('POST', `/apis/stable.imaginedata.org/v1/namespaces/${namespace}/databases`, { body: unknown, query: { dryRun: 'All' } }),
    ]) {
      const refused = await attempt().then(() => undefined, (err: unknown) => err);
      expect(refused).toBeInstanceOf(KubeError);
      expect((refused as KubeError).code).toBe(404);
      expect((refused as KubeError).path).toContain('/apis/stable.imaginedata.org/v1');
    }
  });

  it('run the SampleDB as written: a primary and two standbys ready on bound data volumes of 50G, and the init Job done', async () => {
    for (const child of children(namespace, SAMPLE_DB, CREDENTIALS, 'sampledb')) await objects.create(child as KubeObject);
    const statefulSet = (name: string) => objects.get<Json>({ apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name, namespace } });
    const ready = await eventually(
      'the SampleDB\u2019s StatefulSets to be ready',
      async () => {
        const [primary, standbys] = await Promise.all([statefulSet('sampledb'), statefulSet('sampledb-standby')]);
        const counts = [primary.status?.readyReplicas ?? 0, standbys.status?.readyReplicas ?? 0];
        return counts[0] === 1 && counts[1] === 2 ? counts : undefined;
      },
      120_000,
    );
    expect(ready).toEqual([1, 2]);
    const claims = await objects.rest.request<Json>('GET', `/api/v1/namespaces/${namespace}/persistentvolumeclaims`);
    expect(claims.items.map((c: Json) => [c.metadata.name, c.status.phase, c.spec.resources.requests.storage]).sort()).toEqual([
      ['data-sampledb-0', 'Bound', '50G'],
      ['data-sampledb-standby-0', 'Bound', '50G'],
      ['data-sampledb-standby-1', 'Bound', '50G'],
      ['sampledb-backup', 'Bound', '50G'],
    ]);
    await eventually('the init Job to succeed', async () => {
      const job = await objects.get<Json>({ apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'sampledb-init', namespace } });
      return job.status?.succeeded === 1 ? true : undefined;
    });
  }, 180_000);
});
