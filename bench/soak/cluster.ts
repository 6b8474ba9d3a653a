import * as k8s from '@kubernetes/client-node';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeObject, ObjectClient } from '../../src/kube/objects';
import { KubeRest } from '../../src/kube/rest';
import { ControlPlaneState, readState, startControlPlane, stopControlPlane } from '../../src/testing/controlplane/controlplane';
import { FAIL_LABEL } from '../../src/testing/controlplane/kwok-stages';
import { DIST, installCrds, loadYaml } from '../../test/support/manifests';
import { FakeRateProvider, startRateProvider } from '../../test/support/rate-provider';
import { Conversion, conversionWebhook } from '../setup';

export const SOAK_FIELD_MANAGER = 'cdk8s-operators-soak';
/** The soak's namespaces: each kind's objects, CopyratorRule's sources, and a target that never goes. */
export const NS = { rates: 'soak-rates', copySource: 'soak-copy-src', copyFixed: 'soak-copy-fixed', guitars: 'soak-guitars', databases: 'soak-db', mirrors: 'registry-mirrors', controller: 'cdk8s-operators' };

/** A control plane of the soak's own (it restarts etcd and the API server), with storage, CRDs and a fake rate provider. */
export interface SoakCluster {
  readonly dir: string;
  readonly plane: ControlPlaneState;
  readonly kc: k8s.KubeConfig;
  readonly rest: KubeRest;
  readonly objects: ObjectClient;
  readonly provider: FakeRateProvider;
  /** The API server's CA and the admin token, for the proxy and the replicas' kubeconfigs. */
  readonly apiCa: string;
  readonly token: string;
  /** Whether the control plane's kwok fails pods labelled FAIL_LABEL (a stage in its configuration). */
  readonly failStage: boolean;
  /** Stops the control plane and removes its folder, unless `keep`. */
  stop(keep?: boolean): Promise<void>;
}

export async function startSoakCluster(): Promise<SoakCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'soak-'));
  const conversion = await conversionWebhook();
  const plane = await startControlPlane(dir, { storage: true });
  try {
    return await prepare(dir, plane, conversion);
  } catch (err) {
    await stopControlPlane(dir);
    await conversion.close();
    throw err;
  }
}

async function prepare(dir: string, plane: ControlPlaneState, conversion: Conversion): Promise<SoakCluster> {
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(plane.kubeconfig);
  const rest = new KubeRest(kc);
  const objects = new ObjectClient(rest, SOAK_FIELD_MANAGER);
  await installCrds(objects);
  const mirrors = loadYaml(join(DIST, '1-operator.k8s.yaml')).find((o) => o.kind === 'Namespace' && o.metadata.name === NS.mirrors)!;
  await objects.apply(mirrors);
  for (const name of [NS.rates, NS.copySource, NS.guitars, NS.databases, NS.controller]) await objects.apply(namespace(name));
  await objects.apply(namespace(NS.copyFixed, { 'soak-target': 'true' }));
  const provider = await startRateProvider();
  return {
    dir,
    plane,
    kc,
    rest,
    objects,
    provider,
    apiCa: readFileSync(join(dir, 'ca.crt'), 'utf8'),
    token: kc.getCurrentUser()!.token!,
    failStage: hasFailStage(dir),
    stop: async (keep = false) => {
      await provider.close();
      await conversion.close();
      await stopControlPlane(dir);
      if (!keep) rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function namespace(name: string, labels: Record<string, string> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } };
}

/** Reads kwok's own stage files (its --config arguments) for a stage matching FAIL_LABEL. */
function hasFailStage(dir: string): boolean {
  const kwok = readState(dir)?.processes.find((p) => p.name === 'kwok');
  const files = (kwok?.args ?? []).filter((a) => a.startsWith('--config=')).map((a) => a.slice('--config='.length));
  return files.some((f) => existsSync(f) && readFileSync(f, 'utf8').includes(FAIL_LABEL));
}
