import * as k8s from '@kubernetes/client-node';
import { X509Certificate } from 'node:crypto';
import { join } from 'node:path';
import { KubeObject, ObjectClient } from '../../src/kube/objects';
import { eventually } from '../../src/testing/cluster';
import { databaseObjects, Json } from '../support/database-objects';
import { ControllerProcess, startController } from '../support/controller-process';
import { PrivateCluster, startPrivateCluster } from '../support/private-cluster';
import { eventsIn, gone, readyOf, Resource, whenReady } from '../support/resources';
import { startStorageProvisioner, StorageProvisioner } from '../support/storage-provisioner';

// A private control plane: Databases run pods and claims, and a controller is killed mid-deletion.
const ns = 'databases';
let cluster: PrivateCluster;
let objects: ObjectClient;
let provisioner: StorageProvisioner;
let controller: ControllerProcess;
let logs = '';

const { database, child, statefulSet, job, get, exists } = databaseObjects(ns, () => objects);
const ready = (o: KubeObject, status: 'True' | 'False', reason?: string, timeoutMs = 120_000) => whenReady(objects, o, status, reason, controller.logFile, timeoutMs);
/**
 * A change of the pod template rolls a StatefulSet's pods one at a time, and the fake node
 * holds each terminating pod for a random part of its 60 s grace period (kwok's pod-delete
 * stage), as a slow kubelet may: three pods take up to about three minutes.
 */
const ROLL_THREE_PODS_MS = 240_000;
const jobDone = (j: Json) => j.status?.conditions?.some((c: { type: string; status: string }) => c.type === 'Complete' && c.status === 'True');
const claimsOf = async (prefix: string) =>
  (await objects.rest.request<{ items: Json[] }>('GET', `/api/v1/namespaces/${ns}/persistentvolumeclaims`)).items.map((c) => c.metadata.name).filter((n) => n.startsWith(prefix));

function serve(): ControllerProcess {
  return startController(['--kubeconfig', cluster.plane.kubeconfig, '--kinds', 'databases', '--leader-election=false', '--http-port', '0'], join(cluster.dir, `controller-${Date.now()}.log`));
}

/** Waits for `phase` in status (and the Ready reason, when given). */
function whenPhase(o: KubeObject, phase: string, reason?: string): Promise<Json> {
  return eventually(`${o.metadata.name} in phase ${phase}${reason ? ` (${reason})` : ''}; log ${controller.logFile}`, async () => {
    const current = await get(o);
    return current.status?.phase === phase && (!reason || readyOf(current as Resource)?.reason === reason) && current.status?.observedGeneration === current.metadata.generation ? current : undefined;
  }, 120_000);
}

beforeAll(async () => {
  cluster = await startPrivateCluster('e2e-database', ns);
  objects = cluster.objects;
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(cluster.plane.kubeconfig);
  provisioner = await startStorageProvisioner(kc);
  controller = serve();
}, 120_000);

afterAll(async () => {
  await controller?.stop();
  await provisioner?.stop().catch(() => undefined);
  await cluster?.stop();
});

describe('Database', () => {
  it('runs the operator pattern\u2019s SampleDB as written: a primary, two standbys, claims of 50G, the init Job; Creating, then Ready', async () => {
    await objects.apply(database('sample', { name: 'name-of-database', port: 5432, 'storage-size': '50G', image: 'super-great-docker-image', replicas: 3 }));
    const first = await eventually('a first status', async () => ((await get(database('sample'))).status?.phase ? get(database('sample')) : undefined));
    expect(['Creating', 'NotReady', 'Ready']).toContain(first.status.phase);
    const served = await ready(database('sample'), 'True', 'Ready');
    expect(served.status).toMatchObject({ phase: 'Ready', readyReplicas: 3, currentImage: 'super-great-docker-image' });

    const secret = await get(child('Secret', 'sample-credentials'));
    const password = Buffer.from(secret.data!.password, 'base64').toString();
    expect(password.length).toBeGreaterThanOrEqual(32);
    expect(Buffer.from(secret.data!['replication-password'], 'base64').toString().length).toBeGreaterThanOrEqual(32);
    // Clients get the owner role, TLS from the Database's own CA, and a policy admitting only labelled pods.
    const app = await get(child('Secret', 'sample-app'));
    const appData = (key: string) => Buffer.from(app.data![key], 'base64').toString();
    expect([appData('username'), appData('host'), appData('port'), appData('dbname')]).toEqual(['app', `sample.${ns}.svc`, '5432', 'name-of-database']);
    const appPassword = appData('password');
    expect(appPassword.length).toBeGreaterThanOrEqual(32);
    expect(appData('uri')).toBe(`postgresql://app:${appPassword}@sample.${ns}.svc:5432/name-of-database?sslmode=require`);
    const tls = await get(child('Secret', 'sample-tls'));
    expect(tls.type).toBe('kubernetes.io/tls');
    expect(Object.keys(tls.data!).sort()).toEqual(['ca.crt', 'superuser.crt', 'superuser.key', 'tls.crt', 'tls.key']);
    const serving = new X509Certificate(Buffer.from(tls.data!['tls.crt'], 'base64'));
    expect(serving.verify(new X509Certificate(Buffer.from(tls.data!['ca.crt'], 'base64')).publicKey)).toBe(true);
    expect(serving.subjectAltName).toContain(`DNS:sample.${ns}.svc`);
    const policy = await get(child('NetworkPolicy', 'sample', 'networking.k8s.io/v1'));
    expect(policy.spec.ingress).toEqual([{ from: [{ podSelector: { matchLabels: { 'databases.cdk8s-operators.io/client': 'sample' } } }], ports: [{ protocol: 'TCP', port: 5432 }] }]);
    const pods = (await objects.rest.request<{ items: Json[] }>('GET', `/api/v1/namespaces/${ns}/pods`)).items.filter((p) => p.metadata.name.startsWith('sample'));
    expect(pods.length).toBeGreaterThanOrEqual(4);
    for (const pod of pods) expect([pod.metadata.name, pod.metadata.labels?.['databases.cdk8s-operators.io/client']]).toEqual([pod.metadata.name, 'sample']);
    expect((await get(statefulSet('sample'))).spec.replicas).toBe(1);
    expect((await get(statefulSet('sample-standby'))).spec.replicas).toBe(2);
    for (const name of ['sample', 'sample-headless', 'sample-readonly']) expect(await exists(child('Service', name))).toBe(true);
    expect(jobDone(await get(job('sample-init')))).toBe(true);
    const claims = await claimsOf('data-sample');
    expect(claims).toHaveLength(3);
    expect((await get(child('PersistentVolumeClaim', claims[0]))).spec.resources.requests.storage).toBe('50G');

    // The password is generated once and never replaced, whatever else changes.
    await objects.apply(database('sample', { name: 'name-of-database', port: 5433, 'storage-size': '50G', image: 'super-great-docker-image', replicas: 3 }));
    await ready(database('sample'), 'True', 'Ready', ROLL_THREE_PODS_MS);
    const again = await get(child('Secret', 'sample-credentials'));
    expect(again.metadata.resourceVersion).toBe(secret.metadata.resourceVersion);
    for (const [name, before] of [['sample-app', app], ['sample-tls', tls]] as const) expect((await get(child('Secret', name))).metadata.resourceVersion).toBe(before.metadata.resourceVersion);
    logs = controller.logs().map((l) => JSON.stringify(l)).join('\n');
    for (const value of [password, appPassword, Buffer.from(tls.data!['tls.key'], 'base64').toString().split('\n')[1]]) expect(logs).not.toContain(value);
  }, 120_000 + ROLL_THREE_PODS_MS);

  it('reports the last scheduled backup', async () => {
    await objects.apply(database('nightly', { name: 'orders', 'storage-size': '1Gi', image: 'postgres:17.1', backup: { schedule: '0 3 * * *', retention: 3 } }));
    await ready(database('nightly'), 'True', 'Ready');
    const when = '2026-11-24T03:00:07Z';
    await objects.rest.request('PATCH', `/apis/batch/v1/namespaces/${ns}/cronjobs/nightly-backup/status`, { body: { status: { lastSuccessfulTime: when } }, contentType: 'application/merge-patch+json' });
    await eventually('status.lastBackupTime', async () => ((await get(database('nightly'))).status?.lastBackupTime === when ? true : undefined));
  });

  it('upgrades to a newer minor only after the upgrade Job succeeded, and holds a new major, a downgrade and a libc switch', async () => {
    await objects.apply(database('nightly', { name: 'orders', 'storage-size': '1Gi', image: 'postgres:17.2', backup: { schedule: '0 3 * * *', retention: 3 } }));
    // The StatefulSet is read before the Job: once it runs 17.2 the Job must have run (and may be gone since).
    let ranFirst = false;
    for (;;) {
      const image = (await get(statefulSet('nightly'))).spec.template.spec.containers[0].image;
      const upgrade = await get(job('nightly-upgrade-17.2')).catch(() => undefined);
      if (image === 'postgres:17.2') {
        expect(upgrade === undefined || jobDone(upgrade)).toBe(true);
        break;
      }
      if (upgrade && !jobDone(upgrade)) ranFirst = true; // running while the server still runs 17.1
    }
    expect(ranFirst).toBe(true);
    const upgraded = await ready(database('nightly'), 'True', 'Ready');
    expect(upgraded.status?.currentImage).toBe('postgres:17.2');
    expect((await get(statefulSet('nightly'))).spec.template.spec.containers[0].image).toBe('postgres:17.2');

    for (const [image, reason] of [['postgres:18.1', 'MajorUpgrade'], ['postgres:17.1', 'Downgrade'], ['postgres:17.2-alpine', 'LibcChange']]) {
      await objects.apply(database('nightly', { name: 'orders', 'storage-size': '1Gi', image, backup: { schedule: '0 3 * * *', retention: 3 } }));
      const held = await whenPhase(database('nightly'), 'Held', reason);
      expect(held.status.currentImage).toBe('postgres:17.2');
      expect((await get(statefulSet('nightly'))).spec.template.spec.containers[0].image).toBe('postgres:17.2');
    }
  }, 240_000);

  it('takes the final snapshot while the server runs, then removes the servers and their data, keeps the backups, and is gone', async () => {
    await objects.apply(database('keeper', { name: 'orders', 'storage-size': '1Gi', image: 'postgres:17.1' }));
    await ready(database('keeper'), 'True', 'Ready');
    await objects.delete(database('keeper'));
    // The server is read before the Job: the snapshot must be seen running while the server is still there.
    let ranWithServer = false;
    for (;;) {
      const serverThere = await exists(statefulSet('keeper'));
      const snapshot = await get(job('keeper-snapshot')).catch(() => undefined);
      if (!serverThere) break;
      if (snapshot && !jobDone(snapshot)) ranWithServer = true;
    }
    expect(ranWithServer).toBe(true);
    await eventually('the Database to be gone', async () => ((await gone(objects, database('keeper'))) ? true : undefined), 120_000);
    await eventually('the data claims to go with the StatefulSet', async () => ((await claimsOf('data-keeper')).length === 0 ? true : undefined), 120_000);
    for (const name of ['keeper-credentials', 'keeper-app', 'keeper-tls']) expect([name, await exists(child('Secret', name))]).toEqual([name, false]);
    expect(await exists(child('PersistentVolumeClaim', 'keeper-backup'))).toBe(true);
    expect((await get(child('PersistentVolumeClaim', 'keeper-backup'))).metadata.ownerReferences).toBeUndefined();
  }, 240_000);

  it('with deletionPolicy Delete is removed at once, and still keeps the backup volume', async () => {
    await objects.apply(database('scratch', { name: 'orders', 'storage-size': '1Gi', image: 'postgres:17.1', deletionPolicy: 'Delete', backup: { schedule: '0 3 * * *' } }));
    await ready(database('scratch'), 'True', 'Ready');
    await objects.delete(database('scratch'));
    await eventually('the Database to be gone', async () => ((await gone(objects, database('scratch'))) ? true : undefined));
    expect(await exists(job('scratch-snapshot'))).toBe(false);
    expect(await exists(child('PersistentVolumeClaim', 'scratch-backup'))).toBe(true);
  });

  it('finishes a deletion after the controller was killed in the middle of it', async () => {
    await objects.apply(database('interrupted', { name: 'orders', 'storage-size': '1Gi', image: 'postgres:17.1' }));
    await ready(database('interrupted'), 'True', 'Ready');
    await objects.delete(database('interrupted'));
    await eventually('the snapshot Job to be created', async () => ((await exists(job('interrupted-snapshot'))) ? true : undefined));
    await controller.kill();
    const deleting = await get(database('interrupted'));
    expect(deleting.metadata.finalizers).toContain('stable.imaginedata.com/snapshot');
    controller = serve();
    await eventually('the Database to be gone', async () => ((await gone(objects, database('interrupted'))) ? true : undefined), 120_000);
    expect(jobDone(await get(job('interrupted-snapshot')).catch(() => ({}) as Json)) || !(await exists(job('interrupted-snapshot')))).toBe(true);
    expect(await exists(statefulSet('interrupted'))).toBe(false);
    expect(await exists(child('PersistentVolumeClaim', 'interrupted-backup'))).toBe(true);
    const events = await eventsIn(objects, ns);
    expect(events.filter((e) => e.regarding.name === 'interrupted').map((e) => e.reason)).toContain('Deleting');
  }, 240_000);
});
