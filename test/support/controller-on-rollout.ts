import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { KubeObject } from '../../src/kube/objects';
import { eventually } from '../../src/testing/cluster';
import { ControllerProcess, startController } from './controller-process';
import { LocalCluster } from './operator-cluster';
import { serviceAccountKubeconfig } from './tenancy';

type Deployment = KubeObject & {
  spec: { selector: { matchLabels: Record<string, string> }; template: { spec: { serviceAccountName?: string; containers: { args?: string[] }[] } } };
};
type PodList = { items: { metadata: { name: string }; status?: { phase?: string } }[] };

/** The flags whose values a Pod's network gives and this machine's loopback replaces (ports, the webhook's address). */
const LOCAL_FLAGS = ['--http-port', '--metrics-port', '--webhook-port', '--conversion-webhook'];

/** The controller that a cluster starts: undefined until then. */
export interface ControllerOnRollout {
  /** Resolves once the controller runs (its Deployment's Pod runs), with the Pod's name. */
  readonly started: Promise<{ controller: ControllerProcess; pod: string }>;
  /** When it started, Date.now(). */
  startedAt(): number | undefined;
  /** Stops waiting, and the controller if it runs. */
  stop(): Promise<void>;
}

/**
 * The controller started as a cluster starts it, whatever applies the install: nothing runs
 * until the install's Deployment `namespace/name` exists and a Pod of it runs (the ReplicaSet
 * controller made it, the scheduler bound it, kwok started it). Then the Deployment's own args
 * run from source, as its ServiceAccount (its RBAC and nothing more), with its ports and the
 * conversion webhook on this machine's loopback (`cluster.webhookArgs`) and the fake rate provider.
 */
export function startControllerOnRollout(cluster: LocalCluster, dir: string, deployment = { namespace: 'cdk8s-operators', name: 'controller' }): ControllerOnRollout {
  let stopped = false;
  let controller: ControllerProcess | undefined;
  let startedAt: number | undefined;
  const running = async (): Promise<{ live: Deployment; pod: string } | undefined> => {
    if (stopped) throw new Error('stopped before the controller started');
    const live = await cluster.objects.find<Deployment>({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: deployment });
    if (!live) return undefined;
    const selector = Object.entries(live.spec.selector.matchLabels)
      .map(([key, value]) => `${key}=${value}`)
      .join(',');
    const pods = await cluster.objects.rest.request<PodList>('GET', `/api/v1/namespaces/${deployment.namespace}/pods?labelSelector=${encodeURIComponent(selector)}`);
    const pod = pods.items.find((p) => p.status?.phase === 'Running');
    return pod ? { live, pod: pod.metadata.name } : undefined;
  };
  const started = (async () => {
    const { live, pod } = await eventually(`a Pod of Deployment ${deployment.namespace}/${deployment.name} running`, running, 240_000);
    const serviceAccount = { namespace: deployment.namespace, name: live.spec.template.spec.serviceAccountName ?? 'default' };
    const kubeconfig = await serviceAccountKubeconfig(cluster.objects, join(dir, 'controller.kubeconfig'), cluster.plane.server, readFileSync(join(dir, 'cluster', 'ca.crt'), 'utf8'), serviceAccount);
    const [command, ...args] = live.spec.template.spec.containers[0].args ?? [];
    if (command !== 'controller') throw new Error(`Deployment ${deployment.name}: expected args "controller ...", got ${JSON.stringify(live.spec.template.spec.containers[0].args)}`);
    const kept = args.filter((arg) => !LOCAL_FLAGS.some((flag) => arg === flag || arg.startsWith(`${flag}=`)));
    startedAt = Date.now();
    controller = startController([`--kubeconfig=${kubeconfig}`, ...kept, '--http-port=0', ...cluster.webhookArgs], join(dir, 'controller.log'), {
      POD_NAME: pod,
      EXCHANGE_RATE_URL: cluster.rateProviderUrl,
      EXCHANGE_RATE_ALLOW_HTTP: 'true',
    });
    return { controller, pod };
  })();
  started.catch(() => undefined); // Read by whoever awaits it; a stop before the start is no failure.
  return {
    started,
    startedAt: () => startedAt,
    stop: async () => {
      stopped = true;
      await controller?.stop();
    },
  };
}
