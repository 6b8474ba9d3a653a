import * as k8s from '@kubernetes/client-node';
import { createTestNamespace, deleteNamespace, eventually, isStatus, testKubeConfig } from '../support/cluster';

// What envtest cannot do: these need the garbage collector, the namespace, StatefulSet and
// Job controllers, the scheduler and kwok's fake node.
describe('the local control plane', () => {
  const kc = testKubeConfig();
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const apps = kc.makeApiClient(k8s.AppsV1Api);
  const batch = kc.makeApiClient(k8s.BatchV1Api);
  let namespace: string;

  beforeAll(async () => {
    namespace = await createTestNamespace(kc, 'controlplane');
  });
  afterAll(async () => {
    await deleteNamespace(kc, namespace);
  });

  it('runs the tests on Node 24', () => {
    expect(process.version).toMatch(/^v24\./);
  });

  it('answers /readyz through the ESM-only Kubernetes client', async () => {
    await expect(new k8s.Health(kc).readyz({})).resolves.toBe(true);
  });

  it('garbage-collects a ConfigMap whose owner is deleted', async () => {
    const owner = await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'owner' } } });
    const ownerReferences = [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata!.uid!, controller: true }];
    await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'child', ownerReferences } } });

    await core.deleteNamespacedConfigMap({ namespace, name: 'owner' });

    await eventually('the owned ConfigMap to be collected', async () =>
      core.readNamespacedConfigMap({ namespace, name: 'child' }).then(
        () => undefined,
        (err) => (isStatus(err, 404) ? true : Promise.reject(err)),
      ),
    );
  });

  it('completes a namespace deletion', async () => {
    const doomed = await createTestNamespace(kc, 'doomed');
    await core.createNamespacedConfigMap({ namespace: doomed, body: { metadata: { name: 'content' } } });

    await core.deleteNamespace({ name: doomed });

    await eventually('the namespace to be gone', async () =>
      core.readNamespace({ name: doomed }).then(
        () => undefined,
        (err) => (isStatus(err, 404) ? true : Promise.reject(err)),
      ),
    );
  });

  it('schedules a StatefulSet Pod onto the fake node and reports it Ready', async () => {
    const labels = { app: 'web' };
    await apps.createNamespacedStatefulSet({
      namespace,
      body: {
        metadata: { name: 'web' },
        spec: {
          serviceName: 'web',
          replicas: 1,
          selector: { matchLabels: labels },
          template: { metadata: { labels }, spec: { containers: [{ name: 'web', image: 'registry.invalid/web:1' }] } },
        },
      },
    });

    const pod = await eventually('pod web-0 to be Ready', async () => {
      const p = await core.readNamespacedPod({ namespace, name: 'web-0' });
      return p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ? p : undefined;
    });
    expect(pod.spec?.nodeName).toBe('kwok-node-0');
    await eventually('the StatefulSet to count one ready replica', async () => {
      const s = await apps.readNamespacedStatefulSet({ namespace, name: 'web' });
      return s.status?.readyReplicas === 1 ? s : undefined;
    });
  });

  it('runs a Job to completion', async () => {
    await batch.createNamespacedJob({
      namespace,
      body: {
        metadata: { name: 'once' },
        spec: {
          template: { spec: { restartPolicy: 'Never', containers: [{ name: 'once', image: 'registry.invalid/once:1' }] } },
        },
      },
    });

    const job = await eventually('job once to complete', async () => {
      const j = await batch.readNamespacedJob({ namespace, name: 'once' });
      return j.status?.conditions?.some((c) => c.type === 'Complete' && c.status === 'True') ? j : undefined;
    });
    expect(job.status?.succeeded).toBe(1);
  });
});
