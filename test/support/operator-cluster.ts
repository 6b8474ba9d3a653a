import * as k8s from '@kubernetes/client-node';
import { join } from 'node:path';
import { ObjectClient } from '../../src/kube/objects';
import { KubeRest } from '../../src/kube/rest';
import { withWebhookClientConfig } from '../../src/bundle/crd';
import { ControlPlaneState, startControlPlane, startWatchdog, stopControlPlane } from '../../src/testing/controlplane/controlplane';
import { freePort } from '../../src/testing/controlplane/processes';
import { ControllerProcess, startController } from './controller-process';
import { FakeRateProvider, startRateProvider } from './rate-provider';

/**
 * A control plane of a test file's own, started as `npm run cluster:up` starts one (a default
 * StorageClass and its provisioner included), and a fake rate provider: what a user's cluster
 * is before the operator runs. Nothing of ours is installed yet.
 */
export interface LocalCluster {
  readonly plane: ControlPlaneState;
  readonly kc: k8s.KubeConfig;
  readonly objects: ObjectClient;
  /** Where a controller answers ExchangeRates' rate requests (its EXCHANGE_RATE_URL). */
  readonly rateProviderUrl: string;
  /**
   * Where a controller started with `webhookArgs` serves conversion on loopback. No Service
   * routes to a process of this machine, so the CRDs applied here point at it (`localCrds`), as a local tooling does.
   */
  readonly webhookUrl: string;
  /** The controller's flags that serve conversion at `webhookUrl` and point its CRDs there. */
  readonly webhookArgs: readonly string[];
  /** The manifests with each CRD converting by webhook pointed at `webhookUrl` (no caBundle: the controller injects it). */
  localCrds<T extends { kind?: unknown }>(manifests: readonly T[]): T[];
  /** Stops the provider and the control plane (stop controllers first). */
  stop(): Promise<void>;
}

/** A LocalCluster with the controller running from source and serving every namespace. */
export interface OperatorCluster extends LocalCluster {
  readonly controller: ControllerProcess;
}

/** Starts it under `dir` (control plane in `dir/cluster`); `fieldManager` applies. */
export async function startLocalCluster(dir: string, fieldManager: string): Promise<LocalCluster> {
  const planeDir = join(dir, 'cluster');
  let provider: FakeRateProvider | undefined;
  const stop = async () => {
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
    const webhookArgs = ['--conversion-webhook=true', `--webhook-url=${webhookUrl}`, `--webhook-port=${webhookPort}`, '--webhook-host=127.0.0.1'];
    const localCrds = <T extends { kind?: unknown }>(manifests: readonly T[]) => manifests.map((m) => withWebhookClientConfig(m, { url: webhookUrl }));
    return { plane, kc, objects: new ObjectClient(new KubeRest(kc), fieldManager), rateProviderUrl: provider.url, webhookUrl, webhookArgs, localCrds, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Starts it under `dir` with the controller from source (its log `dir/controller.log`). */
export async function startOperatorCluster(dir: string, fieldManager: string): Promise<OperatorCluster> {
  const cluster = await startLocalCluster(dir, fieldManager);
  const args = [`--kubeconfig=${cluster.plane.kubeconfig}`, '--leader-election=false', '--http-port=0', ...cluster.webhookArgs];
  const controller = startController(args, join(dir, 'controller.log'), { EXCHANGE_RATE_URL: cluster.rateProviderUrl, EXCHANGE_RATE_ALLOW_HTTP: 'true' });
  const stop = async () => {
    await controller.stop();
    await cluster.stop();
  };
  return { ...cluster, controller, stop };
}
