import { dirname } from 'node:path';
import { crdManifest } from '../../src/bundle/crd';
import { crdName } from '../../src/core/groups';
import { AnyKind } from '../../src/core/contract/kind';
import { CRDS_PATH } from '../../src/kube/discovery';
import { KubeObject } from '../../src/kube/objects';
import { KubeRest } from '../../src/kube/rest';
import { chooseStorageMigrationVersion, keepMigratingStoredVersions, migrateStoredVersions, StorageMigrationOptions, storageMigrationApi } from '../../src/runtime/conversion/migrate';
import { createLogger } from '../../src/runtime/log';
import { Metrics } from '../../src/runtime/metrics';
import { readState } from '../../src/testing/controlplane/controlplane';
import { serverRelease } from '../support/server-release';
import { createTestNamespace, deleteNamespace, eventually, testKubeConfig } from '../../src/testing/cluster';
import { LocalConversion, startLocalConversion } from '../support/conversion';
import { testObjects } from '../support/manifests';
import { defineVersionedTestKind, metricValue } from '../../src/testing/test-kind';
import { etcdOf, firstRelease, installServedCrd, storedApiVersion } from '../support/storage-migration';
import { PRODUCT_NAMES } from '../../src/product';

/**
 * Storage version migration on the real control plane: a kind's CRD as it was (v1 alone,
 * stored), objects in it, then the CRD of the new release (v2 the storage version, v1 still
 * served, converting by webhook): the migration rewrites every object in v2 and prunes
 * storedVersions. The conversion webhook is the engine's conversion server on loopback with a
 * certificate of the test's (test/support/conversion.ts), not the controller's certificate keeper.
 */

type Crd = KubeObject & { spec: Record<string, unknown>; status?: { storedVersions?: string[]; conditions?: { type: string; status: string }[] } };
type Migrant = KubeObject & { spec: Record<string, unknown>; metadata: { resourceVersion?: string; generation?: number; labels?: Record<string, string> } };

const requests: Record<string, number> = {};
/** Counts its requests by method, to show what a run costs. */
const rest = new KubeRest(testKubeConfig(), (method) => void (requests[method] = (requests[method] ?? 0) + 1));
const counting = async <T>(run: () => Promise<T>): Promise<{ result: T; sent: Record<string, number> }> => {
  for (const method of Object.keys(requests)) delete requests[method];
  const result = await run();
  return { result, sent: { ...requests } };
};
const objects = testObjects();
const migrant = defineVersionedTestKind('Migrant', { render: () => undefined }) as unknown as AnyKind;
const clash = defineVersionedTestKind('Clash', { render: () => undefined }) as unknown as AnyKind;
const refused = defineVersionedTestKind('Refused', { render: () => undefined }) as unknown as AnyKind;

const installCrd = (crd: Crd, servedVersions: readonly string[]) => installServedCrd(objects, rest, crd, servedVersions);

/** The CRD of the new release: v2 stored, v1 served, converting by the test's webhook. */
function newReleaseCrd(kind: AnyKind, webhook: { url: string; caBundle: string }): Crd {
  const crd = crdManifest(kind, { url: webhook.url, caBundle: webhook.caBundle }) as unknown as Crd;
  return crd;
}

const storedVersions = async (kind: AnyKind) => (await rest.request<Crd>('GET', `${CRDS_PATH}/${crdName(kind)}`)).status?.storedVersions;
const objectPath = (kind: AnyKind, version: string, namespace: string, name: string) => `/apis/${kind.group}/${version}/namespaces/${namespace}/${kind.plural}/${name}`;
const read = (kind: AnyKind, version: string, namespace: string, name: string) => rest.request<Migrant>('GET', objectPath(kind, version, namespace, name));

/** The object without what any write changes. */
function content(object: Migrant): unknown {
  const { resourceVersion: _rv, managedFields: _mf, ...metadata } = object.metadata;
  return { ...object, metadata };
}

/** The control plane's etcd, from its state file beside the kubeconfig, or undefined for a cluster this test did not start. */
function etcdUrl(): string | undefined {
  return etcdOf(readState(dirname(process.env.TEST_KUBECONFIG!)));
}

describe('storage version migration', () => {
  let namespace: string;
  let webhook: LocalConversion;
  const etcd = etcdUrl();
  const names = Array.from({ length: 7 }, (_, i) => `m${i}`);
  const logLines: Record<string, unknown>[] = [];
  const log = createLogger({ level: 'debug', write: (line) => void logLines.push(JSON.parse(line) as Record<string, unknown>) });
  const metrics = new Metrics({ prefix: PRODUCT_NAMES.metricPrefix });
  // The controller's own way, whatever the cluster serves (storage-migration-cluster.test.ts proves the choice and the cluster's way).
  const options = (kind: AnyKind, more: Partial<StorageMigrationOptions> = {}): StorageMigrationOptions => ({ kinds: [kind], fieldManager: PRODUCT_NAMES.storageMigrationManager, log, metrics, pageSize: 3, path: 'controller', ...more });
  const before = new Map<string, { v1: Migrant; v2: Migrant }>();
  const cleanups: (() => Promise<unknown>)[] = [];

  beforeAll(async () => {
    namespace = await createTestNamespace(testKubeConfig(), 'storage-migration');
    webhook = await startLocalConversion([migrant, clash, refused]);
    for (const kind of [migrant, clash, refused]) {
      await installCrd(crdManifest(firstRelease(kind)) as unknown as Crd, ['v1']);
      for (const [i, name] of names.entries()) {
        await objects.create({
          apiVersion: `${kind.group}/v1`,
          kind: kind.kind,
          metadata: { name, namespace, labels: { index: String(i) }, annotations: { note: `object ${i}` } },
          spec: { size: i + 1, ...(i % 2 ? {} : { tag: `t${i}` }) },
        });
      }
      expect(await storedVersions(kind)).toEqual(['v1']);
      await installCrd(newReleaseCrd(kind, webhook), ['v1', 'v2']);
      await eventually(`${kind.plural}: v2 among storedVersions`, async () => ((await storedVersions(kind))?.includes('v2') ? true : undefined));
    }
    for (const name of names) before.set(name, { v1: await read(migrant, 'v1', namespace, name), v2: await read(migrant, 'v2', namespace, name) });
  }, 180_000);

  afterAll(async () => {
    for (const cleanup of cleanups) await cleanup().catch(() => undefined);
    for (const kind of [migrant, clash, refused]) await rest.request('DELETE', `${CRDS_PATH}/${crdName(kind)}`).catch(() => undefined);
    await deleteNamespace(testKubeConfig(), namespace);
    await webhook?.close();
  });

  it('finds the StorageVersionMigration API where the release serves it by default (1.37: v1), and none before', async () => {
    const { minor } = await serverRelease(rest);
    expect(await storageMigrationApi(rest)).toEqual(minor >= 37 ? { groupVersion: 'storagemigration.k8s.io/v1' } : undefined);
    // Where discovery lists the group, its newest version this project knows.
    expect(chooseStorageMigrationVersion({ versions: [{ version: 'v1alpha1' }] })).toBe('v1alpha1');
    expect(chooseStorageMigrationVersion({ versions: [{ version: 'v1beta1' }, { version: 'v1alpha1' }] })).toBe('v1beta1');
    expect(chooseStorageMigrationVersion({ versions: [{ version: 'v1' }, { version: 'v1beta1' }] })).toBe('v1');
    expect(chooseStorageMigrationVersion({ versions: [{ version: 'v2alpha1' }] })).toBeUndefined();
    expect(chooseStorageMigrationVersion(undefined)).toBeUndefined();
  });

  it('rewrites every object in v2, page by page, and prunes storedVersions to v2; each object reads as before in v1 and in v2', async () => {
    expect(await storedVersions(migrant)).toEqual(['v1', 'v2']);
    // On a control plane the tests started, where each object is stored is read from etcd itself.
    if (readState(dirname(process.env.TEST_KUBECONFIG!))) expect(etcd).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    if (etcd) for (const name of names) expect(await storedApiVersion(etcd, migrant, namespace, name)).toBe(`${migrant.group}/v1`);

    const { result: [result], sent } = await counting(() => migrateStoredVersions(rest, options(migrant)));

    // The CRD, discovery of storagemigration.k8s.io (404), 3 pages of 3, the CRD again, the status patch.
    expect(sent).toEqual({ GET: 5, PUT: 7, PATCH: 1 }); // the CRD, 3 pages, the CRD again before the patch
    expect(result).toMatchObject({ crd: crdName(migrant), outcome: 'migrated', path: 'controller', storedVersions: ['v1', 'v2'], storageVersion: 'v2', objects: { migrated: 7, conflicts: 0, gone: 0, failed: 0 } });
    expect(await storedVersions(migrant)).toEqual(['v2']);
    if (etcd) for (const name of names) expect(await storedApiVersion(etcd, migrant, namespace, name)).toBe(`${migrant.group}/v2`);
    for (const name of names) {
      const after = { v1: await read(migrant, 'v1', namespace, name), v2: await read(migrant, 'v2', namespace, name) };
      const was = before.get(name)!;
      // Written (a new resourceVersion), and nothing else changed: not even the generation.
      expect(after.v2.metadata.resourceVersion).not.toBe(was.v2.metadata.resourceVersion);
      expect(content(after.v1)).toEqual(content(was.v1));
      expect(content(after.v2)).toEqual(content(was.v2));
    }
    expect(metricValue(metrics, 'cdk8s_operators_storage_migration_objects_total', { crd: crdName(migrant), result: 'migrated' })).toBe(7);
    // One line for the CRD, with its counts and duration, and nothing of the objects.
    const lines = logLines.filter((l) => l.crd === crdName(migrant));
    expect(lines).toEqual([expect.objectContaining({ level: 'info', msg: 'storage migrated', outcome: 'migrated', migrated: 7, durationMs: expect.any(Number) })]);
    expect(JSON.stringify(lines)).not.toContain('object 1');
  });

  it('does nothing when run again', async () => {
    const versions = await Promise.all(names.map(async (name) => (await read(migrant, 'v2', namespace, name)).metadata.resourceVersion));
    const { result: [result], sent } = await counting(() => migrateStoredVersions(rest, options(migrant)));
    expect(sent).toEqual({ GET: 1 }); // the CRD, nothing else
    expect(result).toMatchObject({ outcome: 'current', storedVersions: ['v2'], objects: { migrated: 0, conflicts: 0, gone: 0, failed: 0 } });
    expect(await Promise.all(names.map(async (name) => (await read(migrant, 'v2', namespace, name)).metadata.resourceVersion))).toEqual(versions);
    expect(metricValue(metrics, 'cdk8s_operators_storage_migration_objects_total', { crd: crdName(migrant), result: 'migrated' })).toBe(7);
  });

  it('keeps storedVersions when cut short (the leader stopped)', async () => {
    const stop = new AbortController();
    let written = 0;
    const [result] = await migrateStoredVersions(rest, options(clash, { concurrency: 1, signal: stop.signal, beforeWrite: () => void (++written === 3 && stop.abort()) }));
    expect(result).toMatchObject({ outcome: 'failed', error: 'stopped before the end' });
    expect(result.objects.migrated).toBeLessThan(7);
    expect(await storedVersions(clash)).toEqual(['v1', 'v2']);
  });

  it('finishes on the next run, skipping an object written by someone else meanwhile (409 Conflict): that write stored it in v2 already', async () => {
    const [result] = await migrateStoredVersions(rest, options(clash, {
      beforeWrite: async (object) => {
        if (object.metadata.name !== 'm4') return;
        await rest.request('PATCH', objectPath(clash, 'v2', namespace, 'm4'), { body: { metadata: { labels: { touched: 'yes' } } }, contentType: 'application/merge-patch+json' });
      },
    }));
    expect(result).toMatchObject({ outcome: 'migrated', path: 'controller', objects: { migrated: 6, conflicts: 1, gone: 0, failed: 0 } });
    expect(await storedVersions(clash)).toEqual(['v2']);
    expect((await read(clash, 'v1', namespace, 'm4')).metadata.labels).toEqual({ index: '4', touched: 'yes' });
    if (etcd) for (const name of names) expect(await storedApiVersion(etcd, clash, namespace, name)).toBe(`${clash.group}/v2`);
    expect(metricValue(metrics, 'cdk8s_operators_storage_migration_objects_total', { crd: crdName(clash), result: 'conflict' })).toBe(1);
  });

  it('tries a CRD again while its objects cannot be written back (refused by admission), keeping storedVersions until every object is written', async () => {
    // A ValidatingAdmissionPolicy refusing every update of the kind's objects, as a webhook or policy that is not ready would.
    const hold = `hold-${namespace}`;
    const policy = { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name: hold }, spec: { failurePolicy: 'Fail', matchConstraints: { resourceRules: [{ apiGroups: [refused.group], apiVersions: ['*'], resources: [refused.plural], operations: ['UPDATE'] }] }, validations: [{ expression: 'false', message: 'held by the test' }] } };
    const binding = { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name: hold }, spec: { policyName: hold, validationActions: ['Deny'] } };
    cleanups.push(() => objects.delete(policy), () => objects.delete(binding));
    await objects.apply(policy);
    await objects.apply(binding);
    const m0 = await read(refused, 'v2', namespace, 'm0');
    await eventually('the policy to refuse updates', async () => {
      const denied = await rest.request('PUT', objectPath(refused, 'v2', namespace, 'm0'), { body: m0, query: { dryRun: 'All' } }).then(() => false, () => true);
      return denied ? true : undefined;
    });

    const stop = new AbortController();
    const running = keepMigratingStoredVersions(rest, { ...options(refused, { signal: stop.signal }), retryDelaysMs: [300] });
    const failure = await eventually('a failed try', async () => logLines.find((l) => l.crd === crdName(refused) && l.outcome === 'failed'));
    expect(failure).toMatchObject({ level: 'warn', failed: 7, migrated: 0, error: '7 object(s) could not be written back (see the warnings before)' });
    // Each refused object is named, with the API server's reason, and none of its content.
    expect(logLines.filter((l) => l.crd === crdName(refused) && l.msg === 'storage migration: an object could not be written back')).toEqual(
      expect.arrayContaining(names.map((name) => expect.objectContaining({ level: 'warn', namespace, name, error: expect.stringContaining('held by the test') }))),
    );
    expect(await storedVersions(refused)).toEqual(['v1', 'v2']);

    await objects.delete(binding);
    const results = await running;
    expect(results).toEqual([expect.objectContaining({ crd: crdName(refused), outcome: 'migrated', objects: { migrated: 7, conflicts: 0, gone: 0, failed: 0 } })]);
    expect(await storedVersions(refused)).toEqual(['v2']);
    if (etcd) for (const name of names) expect(await storedApiVersion(etcd, refused, namespace, name)).toBe(`${refused.group}/v2`);
  });
});
