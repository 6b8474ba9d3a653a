import * as k8s from '@kubernetes/client-node';
import { FAIL_LABEL } from '../../src/testing/controlplane/kwok-stages';
import { createTestNamespace, deleteNamespace, eventually, isStatus, testKubeConfig } from '../../src/testing/cluster';

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

  // kwok-stages/pod-fail.yaml: the failures the Job and StatefulSet controllers see from a kubelet.
  describe(`a Pod labelled ${FAIL_LABEL}: "true"`, () => {
    const failing = { [FAIL_LABEL]: 'true' };

    it('fails as a crashed container: phase Failed, exit code 1, reason Error, never Ready', async () => {
      await core.createNamespacedPod({
        namespace,
        body: {
          metadata: { name: 'crash', labels: failing },
          spec: { restartPolicy: 'Never', containers: [{ name: 'a', image: 'registry.invalid/a:1' }, { name: 'b', image: 'registry.invalid/b:1' }] },
        },
      });

      const pod = await eventually('pod crash to fail', async () => {
        const p = await core.readNamespacedPod({ namespace, name: 'crash' });
        return p.status?.phase === 'Failed' ? p : undefined;
      });
      expect(pod.status?.containerStatuses?.map((c) => [c.name, c.state?.terminated?.exitCode, c.state?.terminated?.reason])).toEqual([
        ['a', 1, 'Error'],
        ['b', 1, 'Error'],
      ]);
      expect(pod.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('False');
      expect(pod.status?.podIP).toBeTruthy();
    });

    it('fails a Pod already Running when it is labelled later', async () => {
      await core.createNamespacedPod({
        namespace,
        body: { metadata: { name: 'late' }, spec: { containers: [{ name: 'late', image: 'registry.invalid/late:1' }] } },
      });
      await eventually('pod late to run', async () => {
        const p = await core.readNamespacedPod({ namespace, name: 'late' });
        return p.status?.phase === 'Running' ? p : undefined;
      });

      await core.patchNamespacedPod({ namespace, name: 'late', body: { metadata: { labels: failing } } }, k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch));

      const pod = await eventually('pod late to fail', async () => {
        const p = await core.readNamespacedPod({ namespace, name: 'late' });
        return p.status?.phase === 'Failed' ? p : undefined;
      });
      expect(pod.status?.containerStatuses?.[0].state?.terminated?.exitCode).toBe(1);
    });

    it('fails a Job once its backoffLimit is spent, one failed Pod per try', async () => {
      await batch.createNamespacedJob({
        namespace,
        body: {
          metadata: { name: 'doomed' },
          spec: {
            backoffLimit: 1,
            template: { metadata: { labels: failing }, spec: { restartPolicy: 'Never', containers: [{ name: 'doomed', image: 'registry.invalid/doomed:1' }] } },
          },
        },
      });

      const job = await eventually(
        'job doomed to fail',
        async () => {
          const j = await batch.readNamespacedJob({ namespace, name: 'doomed' });
          return j.status?.conditions?.some((c) => c.type === 'Failed' && c.status === 'True') ? j : undefined;
        },
        120_000,
      );
      expect(job.status?.conditions?.find((c) => c.type === 'Failed')?.reason).toBe('BackoffLimitExceeded');
      expect(job.status?.failed).toBe(2);
      expect(job.status?.succeeded ?? 0).toBe(0);
    }, 150_000);

    it("fails a StatefulSet's Pod, which the StatefulSet never counts ready", async () => {
      const labels = { app: 'sinking' };
      await apps.createNamespacedStatefulSet({
        namespace,
        body: {
          metadata: { name: 'sinking' },
          spec: {
            serviceName: 'sinking',
            replicas: 1,
            selector: { matchLabels: labels },
            template: { metadata: { labels: { ...labels, ...failing } }, spec: { containers: [{ name: 'db', image: 'registry.invalid/db:1' }] } },
          },
        },
      });

      // The StatefulSet controller replaces a failed Pod at once, so watch the Events kwok records.
      await eventually('pod sinking-0 to have failed', async () => {
        const events = await core.listNamespacedEvent({ namespace, fieldSelector: 'involvedObject.name=sinking-0,reason=Failed' });
        return events.items.length > 0 ? events : undefined;
      });
      const set = await apps.readNamespacedStatefulSet({ namespace, name: 'sinking' });
      expect(set.status?.readyReplicas ?? 0).toBe(0);
      // It would fail and be replaced for as long as it lives.
      await apps.deleteNamespacedStatefulSet({ namespace, name: 'sinking' });
    });
  });
});
