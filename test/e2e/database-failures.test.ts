import * as k8s from '@kubernetes/client-node';
import { join } from 'node:path';
import { KubeObject, ObjectClient } from '../../src/kube/objects';
import { eventually } from '../../src/testing/cluster';
import { jobHolds, watchDataClaims } from '../support/data-claims';
import { databaseObjects, Json } from '../support/database-objects';
import { ControllerProcess, startController } from '../support/controller-process';
import { failJobPods, FailingJobs } from '../support/failing-pods';
import { PrivateCluster, startPrivateCluster } from '../support/private-cluster';
import { eventsIn, gone, readyOf, Resource, whenReady } from '../support/resources';
import { startStorageProvisioner, StorageProvisioner } from '../support/storage-provisioner';

// A Database's Jobs failing for real: the Job controller retries their Pods (backoffLimit 3),
// which kwok's pod-fail stage fails, until the Job fails. A private control plane, as the
// controller of test/e2e/database.test.ts owns every Database of its cluster.
const ns = 'failing';
const JOB_TIMEOUT_MS = 240_000;
let cluster: PrivateCluster;
let kc: k8s.KubeConfig;
let objects: ObjectClient;
let provisioner: StorageProvisioner;
let controller: ControllerProcess;
let failing: FailingJobs;

const { database, child, statefulSet, job, get, exists } = databaseObjects(ns, () => objects);
const ready = (o: KubeObject) => whenReady(objects, o, 'True', 'Ready', controller.logFile, 120_000);
const spec = (image: string, more: Record<string, unknown> = {}) => ({ name: 'orders', 'storage-size': '1Gi', image, ...more });
const imageOf = async (name: string) => (await get(statefulSet(name))).spec.template.spec.containers[0].image as string;
const claimsOf = async (prefix: string) =>
  (await objects.rest.request<{ items: Json[] }>('GET', `/api/v1/namespaces/${ns}/persistentvolumeclaims`)).items.filter((c) => c.metadata.name.startsWith(prefix));

/** Waits for `phase` with the Ready reason `reason` for the current generation, and returns the Database. */
function whenPhase(o: KubeObject, phase: string, reason: string, timeoutMs = JOB_TIMEOUT_MS): Promise<Json> {
  return eventually(
    `${o.metadata.name} in phase ${phase} (${reason}); log ${controller.logFile}`,
    async () => {
      const current = await get(o);
      return current.status?.phase === phase && readyOf(current as Resource)?.reason === reason && current.status?.observedGeneration === current.metadata.generation ? current : undefined;
    },
    timeoutMs,
  );
}

/**
 * The Database's Warning Events of `reason`, once there is one: the engine records the Event after the status write the test
 * waited for, so a single read can come too early.
 */
function warnings(name: string, reason: string) {
  return eventually(`a Warning ${reason} for ${name}`, async () => {
    const found = (await eventsIn(objects, ns)).filter((e) => e.regarding.kind === 'Database' && e.regarding.name === name && e.type === 'Warning' && e.reason === reason);
    return found.length > 0 ? found : undefined;
  });
}

beforeAll(async () => {
  cluster = await startPrivateCluster('e2e-database-failures', ns);
  objects = cluster.objects;
  kc = new k8s.KubeConfig();
  kc.loadFromFile(cluster.plane.kubeconfig);
  provisioner = await startStorageProvisioner(kc);
  failing = await failJobPods(kc, ns, []);
  controller = startController(['--kubeconfig', cluster.plane.kubeconfig, '--kinds', 'databases', '--leader-election=false', '--http-port', '0'], join(cluster.dir, 'controller.log'));
}, 120_000);

afterAll(async () => {
  failing?.stop();
  await controller?.stop();
  await provisioner?.stop().catch(() => undefined);
  await cluster?.stop();
});

describe('a Database whose Jobs fail', () => {
  let servingPod: Json;
  let template: number;
  let claims: Awaited<ReturnType<typeof watchDataClaims>>;

  // Each failure takes the Job controller a minute and a half (four Pods, 10 + 20 + 40 s of
  // back-off between them), so both are started at once and each test then checks its own.
  beforeAll(async () => {
    const names = ['stubborn', 'fragile', 'abandoned'];
    await Promise.all(names.map((name) => objects.apply(database(name, spec('postgres:17.1')))));
    await Promise.all(names.map((name) => ready(database(name))));
    servingPod = await get(child('Pod', 'stubborn-0'));
    template = (await get(statefulSet('stubborn'))).metadata.generation!;
    claims = await watchDataClaims(kc, ns, ['fragile']);
    for (const name of ['stubborn-upgrade-17.2', 'fragile-snapshot', 'abandoned-snapshot']) failing.fail(name);

    await objects.apply(database('stubborn', spec('postgres:17.2')));
    await Promise.all(['fragile', 'abandoned'].map((name) => objects.delete(database(name))));
  }, 300_000);
  afterAll(() => claims?.stop());

  it('keeps the running version serving when the upgrade Job fails (Held, UpgradeFailed), and upgrades once set back and forward again', async () => {
    await whenPhase(database('stubborn'), 'Upgrading', 'Upgrading', 30_000);
    const held = await whenPhase(database('stubborn'), 'Held', 'UpgradeFailed');

    const upgrade = await get(job('stubborn-upgrade-17.2'));
    expect(jobHolds(upgrade, 'Failed')).toBe(true);
    // The Job controller's own retries: backoffLimit 3, so four Pods, each failed.
    expect(upgrade.status.failed).toBe(4);
    expect(upgrade.status.succeeded ?? 0).toBe(0);
    expect(held.status).toMatchObject({ currentImage: 'postgres:17.1', readyReplicas: 1 });
    expect(readyOf(held as Resource)).toMatchObject({ status: 'False', message: expect.stringContaining('failed') });
    // The old version was never stopped: the same StatefulSet template, the same Pod, Ready.
    expect(await imageOf('stubborn')).toBe('postgres:17.1');
    expect((await get(statefulSet('stubborn'))).metadata.generation).toBe(template);
    const pod = await get(child('Pod', 'stubborn-0'));
    expect(pod.metadata.uid).toBe(servingPod.metadata.uid);
    expect(pod.status.conditions.find((c: { type: string }) => c.type === 'Ready').status).toBe('True');
    expect(await warnings('stubborn', 'UpgradeFailed')).toHaveLength(1);

    // Setting the image back ends the hold and removes the failed Job ...
    failing.spare('stubborn-upgrade-17.2');
    await objects.apply(database('stubborn', spec('postgres:17.1')));
    await ready(database('stubborn'));
    await eventually('the failed upgrade Job to be removed', async () => ((await exists(job('stubborn-upgrade-17.2'))) ? undefined : true));
    // ... so the same upgrade, asked for again once its cause is fixed, runs a new Job and rolls.
    await objects.apply(database('stubborn', spec('postgres:17.2')));
    const upgraded = await eventually('the roll to postgres:17.2', async () => ((await imageOf('stubborn')) === 'postgres:17.2' ? true : undefined), JOB_TIMEOUT_MS);
    expect(upgraded).toBe(true);
    expect((await ready(database('stubborn'))).status?.currentImage).toBe('postgres:17.2');
  }, 600_000);

  it('keeps the servers, their data and the finalizer when the final snapshot fails (Failed, SnapshotFailed); a new snapshot Job or deletionPolicy Delete finishes the deletion', async () => {
    const [fragile] = await Promise.all(['fragile', 'abandoned'].map((name) => whenPhase(database(name), 'Failed', 'SnapshotFailed')));

    const snapshot = await get(job('fragile-snapshot'));
    expect(jobHolds(snapshot, 'Failed')).toBe(true);
    expect(snapshot.status.failed).toBe(4);
    expect(fragile.metadata.finalizers).toContain('stable.imaginedata.com/snapshot');
    expect(readyOf(fragile as Resource)?.message).toContain('deletionPolicy: Delete');
    // Everything the data lives on is still there, and the server still serves it.
    expect(await exists(statefulSet('fragile'))).toBe(true);
    const data = await claimsOf('data-fragile-');
    expect(data.map((c) => [c.metadata.name, c.metadata.deletionTimestamp, c.status.phase])).toEqual([['data-fragile-0', undefined, 'Bound']]);
    expect(fragile.status.readyReplicas).toBe(1);
    expect(await warnings('fragile', 'SnapshotFailed')).toHaveLength(1);
    // No retry of its own: the Database waits for a person, and writes nothing meanwhile.
    const { resourceVersion } = (await get(database('fragile'))).metadata;
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    expect((await get(database('fragile'))).metadata.resourceVersion).toBe(resourceVersion);
    expect(await exists(job('fragile-snapshot'))).toBe(true);

    // Once the cause is fixed, deleting the failed Job takes a new snapshot; only then does the data go.
    failing.spare('fragile-snapshot');
    await objects.delete(job('fragile-snapshot'));
    // Or the person gives up on the snapshot.
    await objects.rest.request('PATCH', `/apis/stable.imaginedata.com/v1/namespaces/${ns}/databases/abandoned`, { body: { spec: { deletionPolicy: 'Delete' } }, contentType: 'application/merge-patch+json' });

    for (const name of ['fragile', 'abandoned']) {
      await eventually(`Database ${name} to be gone`, async () => ((await gone(objects, database(name))) ? true : undefined), JOB_TIMEOUT_MS);
      await eventually(`the data of ${name} to go`, async () => ((await claimsOf(`data-${name}-`)).length === 0 ? true : undefined), 120_000);
      expect(await exists(child('PersistentVolumeClaim', `${name}-backup`))).toBe(true);
    }
    expect(claims.early).toEqual([]);
  }, 600_000);
});
