import * as k8s from '@kubernetes/client-node';
import { join } from 'node:path';
import { ObjectClient } from '../../src/kube/objects';
import { KubeRest } from '../../src/kube/rest';
import { withWebhookClientConfig } from '../../src/bundle/crd';
import { ControlPlaneState, startControlPlane, startWatchdog, stopControlPlane } from '../controlplane/controlplane';
import { freePort } from '../controlplane/processes';
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
  /**
   * Where the controller serves conversion on loopback. No Service routes to a process of
   * this machine, so the CRDs applied here point at it (`localCrds`), as a local tooling does.
   */
  readonly webhookUrl: string;
  /** The manifests with each CRD converting by webhook pointed at `webhookUrl` (no caBundle: the controller injects it). */
  localCrds<T extends { kind?: unknown }>(manifests: readonly T[]): T[];
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
    const webhookPort = await freePort();
    const webhookUrl = `https://127.0.0.1:${webhookPort}/convert`;
    const webhook = [`--webhook-url=${webhookUrl}`, `--webhook-port=${webhookPort}`, '--webhook-host=127.0.0.1'];
    controller = startController([`--kubeconfig=${plane.kubeconfig}`, '--leader-election=false', '--http-port=0', ...webhook], join(dir, 'controller.log'), { EXCHANGE_RATE_URL: provider.url });
    const localCrds = <T extends { kind?: unknown }>(manifests: readonly T[]) => manifests.map((m) => withWebhookClientConfig(m, { url: webhookUrl }));
    return { plane, kc, objects: new ObjectClient(new KubeRest(kc), fieldManager), controller, webhookUrl, localCrds, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
