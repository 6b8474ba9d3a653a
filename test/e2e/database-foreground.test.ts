import * as k8s from '@kubernetes/client-node';
import { join } from 'node:path';
import { ObjectClient } from '../../src/kube/objects';
import { eventually } from '../support/cluster';
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

beforeAll(async () => {
  cluster = await startPrivateCluster('e2e-database-cascade', ns);
  objects = cluster.objects;
  kc = new k8s.KubeConfig();
  kc.loadFromFile(cluster.plane.kubeconfig);
  provisioner = await startStorageProvisioner(kc);
  controller = startController(['--kubeconfig', cluster.plane.kubeconfig, '--kinds', 'databases', '--leader-election=false', '--http-port', '0'], join(cluster.dir, 'controller.log'));
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
      await eventually(`every child of ${name} to be gone`, async () => {
        const left = [];
        for (const c of children(name)) if (await exists(c)) left.push(`${c.kind}/${c.metadata.name}`);
        return left.length === 0 ? true : undefined;
      }, 120_000);
      const backup = await get(child('PersistentVolumeClaim', `${name}-backup`));
      expect((backup as Json).metadata.ownerReferences).toBeUndefined();
    }
  }, 600_000);
});
