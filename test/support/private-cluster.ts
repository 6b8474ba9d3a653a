import * as k8s from '@kubernetes/client-node';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ObjectClient } from '../../src/kube/objects';
import { KubeRest } from '../../src/kube/rest';
import { ControlPlaneState, startControlPlane, stopControlPlane } from '../../src/testing/controlplane/controlplane';
import { installCrds } from './manifests';
import { FakeRateProvider, startRateProvider } from './rate-provider';

/**
 * A control plane of a test file's own, with our CRDs, a namespace and a fake rate
 * provider: for tests that restart the API server or loosen a CRD, which must not disturb
 * the test files running beside them on the shared one.
 */
export interface PrivateCluster {
  readonly dir: string;
  readonly plane: ControlPlaneState;
  readonly objects: ObjectClient;
  readonly provider: FakeRateProvider;
  stop(): Promise<void>;
}

export async function startPrivateCluster(name: string, namespace: string): Promise<PrivateCluster> {
  const dir = mkdtempSync(join(tmpdir(), `${name}-`));
  const plane = await startControlPlane(dir);
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(plane.kubeconfig);
  const objects = new ObjectClient(new KubeRest(kc), 'e2e-tests');
  await installCrds(objects);
  await objects.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
  const provider = await startRateProvider();
  return {
    dir,
    plane,
    objects,
    provider,
    stop: async () => {
      await provider.close();
      await stopControlPlane(dir);
    },
  };
}
