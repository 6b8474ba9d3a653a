import * as k8s from '@kubernetes/client-node';
import { join } from 'node:path';
import { ObjectClient } from '../../src/kube/objects';
import { eventually } from '../../src/testing/cluster';
import { ControllerProcess, startController } from '../support/controller-process';
import { watchDataClaims } from '../support/data-claims';
import { databaseObjects, Json } from '../support/database-objects';
import { PrivateCluster, startPrivateCluster } from '../support/private-cluster';
import { deleteWithPropagation, gone, whenReady } from '../support/resources';
import { startStorageProvisioner, StorageProvisioner } from '../support/storage-provisioner';

// Deleting a Database with either propagation policy (kubectl's --cascade=foreground, Argo CD's
// prune) keeps its data until the final snapshot succeeded. A private control plane, as each
// Database controller owns every Database of its cluster.
const ns = 'cascade';
let cluster: PrivateCluster;
let kc: k8s.KubeConfig;
let objects: ObjectClient;
let provisioner: StorageProvisioner;
let controller: ControllerProcess;

const { database, child, statefulSet, job, get, exists } = databaseObjects(ns, () => objects);
const ownerKinds = async (o: Parameters<typeof get>[0]) => ((await get(o)).metadata.ownerReferences as { kind: string }[] | undefined)?.map((r) => r.kind);
/** Every child a Database of `name` with one replica and a backup schedule has while it serves. */
const children = (name: string) => [
  child('Secret', `${name}-credentials`),
  child('Secret', `${name}-app`),
  child('Secret', `${name}-tls`),
  child('Service', name),
  child('Service', `${name}-headless`),
  statefulSet(name),
  child('NetworkPolicy', name, 'networking.k8s.io/v1'),
  child('NetworkPolicy', `${name}-jobs`, 'networking.k8s.io/v1'),
  job(`${name}-init`),
  child('CronJob', `${name}-backup`, 'batch/v1'),
  job(`${name}-snapshot`),
  child('PersistentVolumeClaim', `data-${name}-0`),
];

/**
 * The garbage collector watches a kind only once its discovery found the CRD (it looks every
 * 30 s), and acts on a foreground deletion only then: before that, no child would be taken
 * early and the test would prove nothing. A Database deleted in the foreground goes only once
 * the collector removed its `foregroundDeletion` finalizer.
 */
async function untilTheGarbageCollectorFollowsDatabases(): Promise<void> {
  const probe = database('probe', { name: 'orders', 'storage-size': '1Gi', image: 'postgres:17.1', deletionPolicy: 'Delete' });
  await objects.apply(probe);
  await eventually('the probe\u2019s StatefulSet', async () => ((await exists(statefulSet('probe'))) ? true : undefined), 120_000);
  await deleteWithPropagation(objects, probe, 'Foreground');
  await eventually('the garbage collector to finish a foreground deletion of a Database', async () => ((await gone(objects, probe)) ? true : undefined), 120_000);
}

const controllerArgs = () => ['--kubeconfig', cluster.plane.kubeconfig, '--kinds', 'databases', '--leader-election=false', '--http-port', '0'];

/** Fails, naming them, while any of `refs` exists. */
async function noneLeft(refs: readonly Parameters<typeof get>[0][]): Promise<true> {
  const left = [];
  for (const c of refs) if (await exists(c)) left.push(`${c.kind}/${c.metadata.name}`);
  // Thrown, so that a timeout names what is left.
  if (left.length) throw new Error(`left: ${left.join(', ')}`);
  return true;
}

beforeAll(async () => {
  cluster = await startPrivateCluster('e2e-database-cascade', ns);
  objects = cluster.objects;
  kc = new k8s.KubeConfig();
  kc.loadFromFile(cluster.plane.kubeconfig);
  provisioner = await startStorageProvisioner(kc);
  controller = startController(controllerArgs(), join(cluster.dir, 'controller.log'));
}, 120_000);

afterAll(async () => {
  await controller?.stop();
  await provisioner?.stop().catch(() => undefined);
  await cluster?.stop();
});

describe('deleting a Database', () => {
  it('with foreground or background propagation: the data claim stays until the final snapshot succeeded, then the Database and its children go, the backups stay', async () => {
    const policies = { fore: 'Foreground', back: 'Background' } as const;
    const names = Object.keys(policies) as (keyof typeof policies)[];
    for (const name of names) await objects.apply(database(name, { name: 'orders', 'storage-size': '1Gi', image: 'postgres:17.1', backup: { schedule: '0 3 * * *' } }));
    for (const name of names) await whenReady(objects, database(name), 'True', 'Ready', controller.logFile, 180_000);
    // What the snapshot needs has no owner for the garbage collector to follow; the rest keeps it.
    expect(await ownerKinds(statefulSet('fore'))).toBeUndefined();
    expect(await ownerKinds(child('Secret', 'fore-credentials'))).toBeUndefined();
    expect(await ownerKinds(job('fore-init'))).toEqual(['Database']);

    await untilTheGarbageCollectorFollowsDatabases();
    const claims = await watchDataClaims(kc, ns, names);
    try {
      for (const name of names) await deleteWithPropagation(objects, database(name), policies[name]);
      for (const name of names) {
        // A data claim marked for deletion ends the wait at once: the check below names it.
        await eventually(`Database ${name} to be gone; log ${controller.logFile}`, async () => (claims.early.length || (await gone(objects, database(name))) ? true : undefined), 240_000);
      }
      expect(claims.early).toEqual([]);
      expect([...claims.snapshotDone].sort()).toEqual(['back', 'fore']);
    } finally {
      claims.stop();
    }
    for (const name of names) {
      await eventually(`every child of ${name} to be gone`, () => noneLeft(children(name)), 120_000);
      const backup = await get(child('PersistentVolumeClaim', `${name}-backup`));
      expect((backup as Json).metadata.ownerReferences).toBeUndefined();
    }
  }, 600_000);

  // A soak finding: a scale-down the controller saw only with the deletion pruned the standbys,
  // and their data claims went before the final snapshot. The controller is stopped while both
  // changes are made, so that it sees them at once, as a busy one does.
  it('scaled from 2 replicas to 1 and deleted at once: the standbys\u2019 data claim stays until the final snapshot succeeded', async () => {
    const name = 'scaled';
    const spec = { name: 'orders', 'storage-size': '1Gi', image: 'postgres:17.1' };
    await objects.apply(database(name, { ...spec, replicas: 2 }));
    await whenReady(objects, database(name), 'True', 'Ready', controller.logFile, 180_000);
    const standbyClaim = child('PersistentVolumeClaim', `data-${name}-standby-0`);
    expect(await exists(standbyClaim)).toBe(true);

    await controller.stop();
    const claims = await watchDataClaims(kc, ns, [name]);
    try {
      await objects.apply(database(name, { ...spec, replicas: 1 }));
      await deleteWithPropagation(objects, database(name), 'Background');
      controller = startController(controllerArgs(), controller.logFile);
      await eventually(`Database ${name} to be gone; log ${controller.logFile}`, async () => (claims.early.length || (await gone(objects, database(name))) ? true : undefined), 240_000);
      expect(claims.early).toEqual([]);
      expect([...claims.snapshotDone]).toEqual([name]);
    } finally {
      claims.stop();
    }
    const standbys = [statefulSet(`${name}-standby`), child('Service', `${name}-readonly`), standbyClaim];
    await eventually(`every child of ${name} to be gone`, () => noneLeft([...children(name).filter((c) => c.kind !== 'CronJob'), ...standbys]), 120_000);
  }, 600_000);
});
