import { hostname } from 'node:os';
import { UserError } from '../core/errors';
import { checkWithoutExtraGroups } from '../core/groups';
import { AnyKind } from '../core/kind';
import { SECRET_COPY } from '../core/secret-copy';
import { loadKubeConnection } from '../kube/kubeconfig';
import { KubeRest } from '../kube/rest';
import { commandOptions, KUBECONFIG_OPTION, OptionSpec, OptionValues } from './config';
import { Controller } from './controller';
import { HealthServer } from './http';
import { LeaderElector } from './leader';
import { createLogger, LOG_LEVEL_OPTION, LogLevel } from './log';
import { Metrics, processMetrics } from './metrics';

/** The engine's own options; each kind adds its own (see KindController.options). */
export const CONTROLLER_OPTIONS: readonly OptionSpec[] = [
  KUBECONFIG_OPTION,
  { name: 'kinds', type: 'list', description: 'Serve only these kinds (plural names, e.g. exchangerates,guitars); all by default.' },
  { name: 'without-extra-groups', type: 'list', description: 'Do not serve these extra groups of kinds (CRD names, e.g. copyrators.flant.com); every group is served by default.' },
  { name: 'namespace', type: 'list', description: 'Serve only objects in these namespaces; all by default.' },
  { name: 'workers', type: 'integer', default: '4', description: 'Reconciles that may run at once (never two for one object).' },
  { name: 'resync-period', type: 'duration', default: '10m', description: 'Reconcile every object again after this long although nothing changed.' },
  { name: 'leader-election', type: 'boolean', default: 'true', description: 'Act only while holding the leader Lease, so that one of several replicas acts.' },
  { name: 'leader-election-namespace', type: 'string', default: 'cdk8s-operators', description: 'Namespace of the leader Lease.' },
  { name: 'leader-election-lease', type: 'string', default: 'cdk8s-operators-leader', description: 'Name of the leader Lease.' },
  { name: 'http-port', type: 'integer', min: 0, default: '8080', description: 'Port of /healthz, /readyz and /metrics; 0 picks a free one.' },
  LOG_LEVEL_OPTION,
  { name: SECRET_COPY.controllerOption, type: 'boolean', default: 'false', description: 'Manage Secrets where a kind offers it (CopyratorRule ruleType secret); the install must grant the access.' },
];

export function controllerOptions(kinds: readonly AnyKind[]): OptionSpec[] {
  return [...CONTROLLER_OPTIONS, ...kinds.flatMap((k) => k.controller?.options ?? [])];
}

/** `cdk8s-operators controller`: runs until SIGTERM or SIGINT, then stops gracefully. */
export async function runController(args: string[], env: NodeJS.ProcessEnv, allKinds: readonly AnyKind[], out: (text: string) => void): Promise<number> {
  const specs = controllerOptions(allKinds);
  const options = commandOptions('cdk8s-operators controller', 'Reconciles the custom resources of every kind (or of --kinds) until SIGTERM or SIGINT.', specs, args, env, out);
  if (!options) return 0;
  const log = createLogger({ level: options['log-level'] as LogLevel });
  const kinds = selectKinds(allKinds, options);
  const withoutExtraGroups = (options['without-extra-groups'] as string[] | undefined) ?? [];
  try {
    checkWithoutExtraGroups(allKinds, withoutExtraGroups, '--without-extra-groups');
  } catch (err) {
    throw new UserError((err as Error).message);
  }
  const metrics = new Metrics();
  const requests = metrics.counter('cdk8s_operators_api_requests_total', 'Requests sent to the API server, by HTTP method.', ['method']);
  // client-go's name and labels (controller-runtime registers it): a 403 here means the RBAC lacks a rule.
  const results = metrics.counter('rest_client_requests_total', 'Number of HTTP requests, partitioned by status code, method, and host.', ['code', 'method', 'host']);
  const rest = new KubeRest(
    await loadKubeConnection({ kubeconfig: options.kubeconfig as string | undefined }, env),
    (method) => requests.inc({ method }),
    (method, code, host) => results.inc({ code, method, host }),
  );
  const identity = env.POD_NAME ?? `${hostname()}-${process.pid}`;
  const controller = new Controller(rest, {
    kinds,
    namespaces: (options.namespace as string[] | undefined) ?? [],
    workers: options.workers as number,
    resyncMs: options['resync-period'] as number,
    kindOptions: options,
    identity,
    withoutExtraGroups,
  }, log, metrics);

  let elector: LeaderElector | undefined;
  const http = new HealthServer({ port: options['http-port'] as number, metrics, processMetrics: processMetrics(), ready: () => (elector && !elector.isLeader() ? true : controller.synced) });
  const port = await http.start();
  log.info('controller starting', { identity, httpPort: port, kinds: kinds.map((k) => k.plural), withoutExtraGroups, leaderElection: options['leader-election'] });

  return new Promise<number>((resolve) => {
    let stopping = false;
    const shutdown = async (code: number, why: string) => {
      if (stopping) return;
      stopping = true;
      log.info('stopping', { why });
      await controller.stop();
      await elector?.stop();
      await http.stop();
      resolve(code);
    };
    process.once('SIGTERM', () => void shutdown(0, 'SIGTERM'));
    process.once('SIGINT', () => void shutdown(0, 'SIGINT'));
    if (options['leader-election']) {
      // client-go's leader gauge: 1 on the replica that leads, 0 on those that stand by.
      const leading = metrics.gauge('leader_election_master_status', "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master. 'name' is the string used to identify the lease. Please make sure to group by name.", ['name']);
      const lease = { name: options['leader-election-lease'] as string };
      leading.set(lease, 0);
      elector = new LeaderElector(rest, { namespace: options['leader-election-namespace'] as string, leaseName: options['leader-election-lease'] as string, identity }, log);
      elector.run({
        onStartedLeading: () => {
          leading.set(lease, 1);
          log.info('leading');
          controller.start();
        },
        // Caches and queues of a former leader may be stale: exit, and let a fresh replica take over.
        onStoppedLeading: () => {
          leading.set(lease, 0);
          void shutdown(stopping ? 0 : 1, 'lost leadership');
        },
      });
    } else {
      controller.start();
    }
  });
}

function selectKinds(kinds: readonly AnyKind[], options: OptionValues): AnyKind[] {
  const wanted = options.kinds as string[] | undefined;
  if (!wanted?.length) return [...kinds];
  const unknown = wanted.filter((w) => !kinds.some((k) => k.plural === w));
  if (unknown.length) throw new UserError(`--kinds: unknown kind(s) ${unknown.join(', ')}; expected some of ${kinds.map((k) => k.plural).join(', ')}`);
  return kinds.filter((k) => wanted.includes(k.plural));
}
