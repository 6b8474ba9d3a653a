import * as k8s from '@kubernetes/client-node';
import { join } from 'node:path';
import { ObjectClient } from '../../src/kube/objects';
import { KubeRest } from '../../src/kube/rest';
import { ControlPlaneState, startControlPlane, startWatchdog, stopControlPlane } from '../controlplane/controlplane';
import { ControllerProcess, startController } from './controller-process';
import { FakeRateProvider, startRateProvider } from './rate-provider';

/**
 * A control plane of a test file's own, started as `npm run cluster:up` starts one (a default
 * StorageClass and its provisioner included), with the controller running from source and
 * serving every namespace, and a fake rate provider: what a user's cluster with the operator
 * installed is to a sync or a first apply. Nothing of ours is installed yet.
 */
export interface OperatorCluster {
  readonly plane: ControlPlaneState;
  readonly kc: k8s.KubeConfig;
  readonly objects: ObjectClient;
  readonly controller: ControllerProcess;
  stop(): Promise<void>;
}

/** Starts it under `dir` (control plane in `dir/cluster`, the controller's log `dir/controller.log`); `fieldManager` applies. */
export async function startOperatorCluster(dir: string, fieldManager: string): Promise<OperatorCluster> {
  const planeDir = join(dir, 'cluster');
  let provider: FakeRateProvider | undefined;
  let controller: ControllerProcess | undefined;
  const stop = async () => {
    await controller?.stop();
    await provider?.close();
    await stopControlPlane(planeDir);
  };
  try {
    const plane = await startControlPlane(planeDir, { storage: true });
    // Should the test process die before its afterAll, the control plane stops anyway.
    startWatchdog(plane.processes);
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(plane.kubeconfig);
    provider = await startRateProvider();
    controller = startController([`--kubeconfig=${plane.kubeconfig}`, '--leader-election=false', '--http-port=0'], join(dir, 'controller.log'), { EXCHANGE_RATE_URL: provider.url });
    return { plane, kc, objects: new ObjectClient(new KubeRest(kc), fieldManager), controller, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
