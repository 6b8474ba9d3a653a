import * as k8s from '@kubernetes/client-node';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createTestNamespace, deleteNamespace, eventually, isStatus, testKubeConfig } from '../../src/testing/cluster';
import { PROVISIONED_BY_LABEL, startStorageProvisioner, StorageProvisioner } from './storage-provisioner';

describe('the test cluster\u2019s storage provisioner', () => {
  const kc = testKubeConfig();
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const apps = kc.makeApiClient(k8s.AppsV1Api);
  let namespace: string;
  let provisioner: StorageProvisioner;

  beforeAll(async () => {
    namespace = await createTestNamespace(kc, 'storage');
    provisioner = await startStorageProvisioner(kc, namespace);
  });
  afterAll(async () => {
    await deleteNamespace(kc, namespace);
    await provisioner.stop();
  });

  it('lets a StatefulSet with a volumeClaimTemplate become Ready, its pods running with bound claims', async () => {
    const labels = { app: 'with-claims' };
    await apps.createNamespacedStatefulSet({
      namespace,
      body: {
        metadata: { name: 'with-claims' },
        spec: {
          replicas: 2,
          serviceName: 'with-claims',
          selector: { matchLabels: labels },
          template: { metadata: { labels }, spec: { containers: [{ name: 'app', image: 'registry.invalid/app:1', volumeMounts: [{ name: 'data', mountPath: '/data' }] }] } },
          volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '50G' } } } }],
        },
      },
    });
    await eventually(
      'StatefulSet with-claims to have 2 ready replicas',
      async () => ((await apps.readNamespacedStatefulSet({ namespace, name: 'with-claims' })).status?.readyReplicas === 2 ? true : undefined),
      90_000,
    );
    const pods = (await core.listNamespacedPod({ namespace, labelSelector: 'app=with-claims' })).items;
    expect(pods.map((p) => [p.metadata?.name, p.status?.phase, p.spec?.nodeName]).sort()).toEqual([
      ['with-claims-0', 'Running', 'kwok-node-0'],
      ['with-claims-1', 'Running', 'kwok-node-0'],
    ]);
    for (const ordinal of [0, 1]) {
      const claim = await core.readNamespacedPersistentVolumeClaim({ namespace, name: `data-with-claims-${ordinal}` });
      expect(claim.status?.phase).toBe('Bound');
      const volume = await core.readPersistentVolume({ name: claim.spec!.volumeName! });
      expect(volume.metadata?.labels?.[PROVISIONED_BY_LABEL]).toBe('true');
      expect(volume.spec?.capacity?.storage).toBe('50G');
      expect(volume.spec?.claimRef).toMatchObject({ namespace, name: `data-with-claims-${ordinal}`, uid: claim.metadata?.uid });
      expect(existsSync(volume.spec!.hostPath!.path)).toBe(true);
      expect(volume.spec!.hostPath!.path.startsWith(join(provisioner.root, '/'))).toBe(true);
    }
  });

  it('deletes a volume when its claim goes', async () => {
    const claim = await core.createNamespacedPersistentVolumeClaim({
      namespace,
      body: { metadata: { name: 'short-lived' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } },
    });
    const volumeName = await eventually('claim short-lived to be Bound', async () => {
      const current = await core.readNamespacedPersistentVolumeClaim({ namespace, name: 'short-lived' });
      return current.status?.phase === 'Bound' ? current.spec!.volumeName! : undefined;
    });
    expect(volumeName).toBe(`pvc-${claim.metadata?.uid}`);
    await core.deleteNamespacedPersistentVolumeClaim({ namespace, name: 'short-lived' });
    await eventually(`volume ${volumeName} to be deleted`, async () =>
      core.readPersistentVolume({ name: volumeName }).then(
        () => undefined,
        (err: unknown) => (isStatus(err, 404) ? true : Promise.reject(err)),
      ),
    );
  });
});
