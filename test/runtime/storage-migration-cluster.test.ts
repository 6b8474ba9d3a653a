import * as k8s from '@kubernetes/client-node';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crdManifest } from '../../src/bundle/crd';
import { crdName } from '../../src/core/groups';
import { AnyKind } from '../../src/core/contract/kind';
import { CRDS_PATH } from '../../src/kube/discovery';
import { KubeObject, ObjectClient } from '../../src/kube/objects';
import { KubeRest } from '../../src/kube/rest';
import { migrateStoredVersions, storageMigrationApi, svmName } from '../../src/runtime/conversion/migrate';
import { createLogger } from '../../src/runtime/log';
import { ControlPlaneState, startControlPlane, stopControlPlane } from '../../src/testing/controlplane/controlplane';
import { eventually } from '../../src/testing/cluster';
import { LocalConversion, startLocalConversion } from '../support/conversion';
import { etcdOf, firstRelease, installServedCrd, storedApiVersion } from '../support/storage-migration';
import { defineVersionedTestKind } from '../../src/testing/test-kind';
import { PRODUCT_NAMES } from '../../src/product';

/**
 * Which way src/runtime/conversion/migrate.ts migrates, on control planes of this file's own:
 * one that serves the StorageVersionMigration API and runs its migrator (test/controlplane's
 * storageVersionMigration: the default of Kubernetes 1.37; on 1.36 kube-apiserver's runtime
 * config and feature gate and kube-controller-manager's storage-version-migrator-controller,
 * as a cluster's admin turns them on), where the cluster migrates; and one without them, where
 * the controller migrates itself. storage-migration.test.ts tests the controller's own way in
 * detail on the shared control plane.
 */

type Crd = KubeObject & { spec: Record<string, unknown>; status?: { storedVersions?: string[] } };
const kind = defineVersionedTestKind('SvmMigrant', { render: () => undefined }) as unknown as AnyKind;
const namespace = 'svm-migration';
const names = Array.from({ length: 5 }, (_, i) => `s${i}`);

/** A control plane of this file's own with the kind served in v1 only, `specs` stored in v1, then the CRD serving v1 and v2 through a local webhook. */
interface Plane {
  dir: string;
  plane: ControlPlaneState;
  rest: KubeRest;
  objects: ObjectClient;
  webhook: LocalConversion;
}

async function planeWithV1Objects(prefix: string, storageVersionMigration: boolean, specs: Record<string, unknown>[]): Promise<Plane> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const started = Date.now();
  const plane = await startControlPlane(dir, { storageVersionMigration });
  process.stdout.write(`${prefix} control plane (${plane.release?.version}) started in ${Date.now() - started} ms\n`);
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(plane.kubeconfig);
  const rest = new KubeRest(kc);
  const objects = new ObjectClient(rest, 'svm-tests');
  const webhook = await startLocalConversion([kind]);
  await installServedCrd(objects, rest, crdManifest(firstRelease(kind)) as unknown as Crd, ['v1']);
  await objects.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
  for (const [i, name] of names.entries()) await objects.create({ apiVersion: `${kind.group}/v1`, kind: kind.kind, metadata: { name, namespace }, spec: specs[i] });
  await installServedCrd(objects, rest, crdManifest(kind, { url: webhook.url, caBundle: webhook.caBundle }) as unknown as Crd, ['v1', 'v2']);
  return { dir, plane, rest, objects, webhook };
}

async function stopPlane(setUp: Plane | undefined): Promise<void> {
  if (!setUp) return;
  await stopControlPlane(setUp.dir);
  await setUp.webhook.close();
  rmSync(setUp.dir, { recursive: true, force: true });
}

describe('storage version migration by the cluster\u2019s StorageVersionMigration API', () => {
  let setUp: Plane | undefined;
  let plane: ControlPlaneState;
  let rest: KubeRest;
  let objects: ObjectClient;
  const logLines: Record<string, unknown>[] = [];
  const log = createLogger({ level: 'debug', write: (line) => void logLines.push(JSON.parse(line) as Record<string, unknown>) });
  const storedVersions = async () => (await rest.request<Crd>('GET', `${CRDS_PATH}/${crdName(kind)}`)).status?.storedVersions;

  beforeAll(async () => {
    setUp = await planeWithV1Objects('svm-', true, names.map((_, i) => ({ size: i + 1, ...(i % 2 ? {} : { tag: `t${i}` }) })));
    ({ plane, rest, objects } = setUp);
  }, 120_000);

  afterAll(() => stopPlane(setUp));

  it('finds the API by discovery, migrates by a StorageVersionMigration, and storedVersions ends with the hub alone', async () => {
    // GA and served by default from 1.37; beta (on here by flags) in 1.35-1.36.
    const groupVersion = plane.release!.minor >= 37 ? 'storagemigration.k8s.io/v1' : 'storagemigration.k8s.io/v1beta1';
    expect(await storageMigrationApi(rest)).toEqual({ groupVersion });
    expect(await storedVersions()).toEqual(['v1', 'v2']);
    const etcd = etcdOf(plane)!;
    for (const name of names) expect(await storedApiVersion(etcd, kind, namespace, name)).toBe(`${kind.group}/v1`);
    const before = await Promise.all(names.map((name) => rest.request<{ spec: unknown }>('GET', `/apis/${kind.group}/v2/namespaces/${namespace}/${kind.plural}/${name}`)));

    const started = Date.now();
    const migration = migrateStoredVersions(rest, { kinds: [kind], fieldManager: PRODUCT_NAMES.storageMigrationManager, log, pollMs: 250 });
    // The migrator starts once the garbage collector's cache of the resource has seen the
    // resourceVersion the migration recorded; of a resource nobody writes, that cache hears
    // only at the API server's next progress notification (minutes). One write brings it there.
    const crdNow = await rest.request<{ metadata: { name: string; resourceVersion: string; generation?: number } }>('GET', `${CRDS_PATH}/${crdName(kind)}`);
    const svmPath = `/apis/${groupVersion}/storageversionmigrations/${svmName(crdNow, 'v2')}`;
    await eventually('the StorageVersionMigration to record its resourceVersion', async () => (await rest.request<{ status?: { resourceVersion?: string } } | undefined>('GET', svmPath, { notFoundAsUndefined: true }))?.status?.resourceVersion);
    await objects.create({ apiVersion: `${kind.group}/v2`, kind: kind.kind, metadata: { name: 'written-meanwhile', namespace }, spec: { size: 9 } });
    const [result] = await migration;
    process.stdout.write(`svm: migrated by the cluster in ${Date.now() - started} ms\n`);

    expect(result).toMatchObject({ crd: crdName(kind), outcome: 'migrated', path: 'storage-version-migration', storageVersion: 'v2', objects: { migrated: 0, conflicts: 0, gone: 0, failed: 0 } });
    expect(await storedVersions()).toEqual(['v2']);
    // Rewritten by kube-controller-manager, not by us: every object is in v2 in etcd, and reads as before.
    for (const name of names) expect(await storedApiVersion(etcd, kind, namespace, name)).toBe(`${kind.group}/v2`);
    const after = await Promise.all(names.map((name) => rest.request<{ spec: unknown }>('GET', `/apis/${kind.group}/v2/namespaces/${namespace}/${kind.plural}/${name}`)));
    expect(after.map((o) => o.spec)).toEqual(before.map((o) => o.spec));
    const crd = await rest.request<{ metadata: { name: string; resourceVersion: string; generation?: number } }>('GET', `${CRDS_PATH}/${crdName(kind)}`);
    const svm = await rest.request<{ spec: unknown; status: { conditions: { type: string; status: string }[] } }>('GET', svmPath);
    expect(svmName(crd, 'v2')).toBe(svmName(crdNow, 'v2'));
    expect(svm.spec).toEqual({ resource: { group: kind.group, resource: kind.plural } });
    expect(svm.status.conditions).toContainEqual(expect.objectContaining({ type: 'Succeeded', status: 'True' }));
    expect(logLines.filter((l) => l.crd === crdName(kind) && l.level === 'warn')).toEqual([]);

    // Run again: nothing to do, no second migration.
    const [again] = await migrateStoredVersions(rest, { kinds: [kind], fieldManager: PRODUCT_NAMES.storageMigrationManager, log, pollMs: 250 });
    expect(again.outcome).toBe('current');
  }, 120_000);
});

describe('storage version migration where the cluster serves no StorageVersionMigration API', () => {
  let setUp: Plane | undefined;
  const log = createLogger({ level: 'warn', write: () => undefined });

  beforeAll(async () => {
    setUp = await planeWithV1Objects('no-svm-', false, names.map(() => ({ size: 1 })));
  }, 120_000);

  afterAll(() => stopPlane(setUp));

  it('finds none by discovery and rewrites the objects itself, as on clusters before 1.37', async () => {
    const { plane, rest } = setUp!;
    expect(await storageMigrationApi(rest)).toBeUndefined();
    const [result] = await migrateStoredVersions(rest, { kinds: [kind], fieldManager: PRODUCT_NAMES.storageMigrationManager, log });
    expect(result).toMatchObject({ outcome: 'migrated', path: 'controller', objects: { migrated: names.length, failed: 0 } });
    const etcd = etcdOf(plane)!;
    for (const name of names) expect(await storedApiVersion(etcd, kind, namespace, name)).toBe(`${kind.group}/v2`);
    expect((await rest.request<Crd>('GET', `${CRDS_PATH}/${crdName(kind)}`)).status?.storedVersions).toEqual(['v2']);
  }, 60_000);
});
