import { hostname } from 'node:os';
import { UserError } from '../core/errors';
import { checkWithoutExtraGroups } from '../core/groups';
import { AnyKind } from '../core/contract/kind';
import { loadKubeConnection } from '../kube/kubeconfig';
import { KubeRest } from '../kube/rest';
import { commandOptions, OptionValues } from './command-line';
import { controllerOptions } from './controller-options';
import { Controller } from '../runtime/controller';
import { Manager } from '../runtime/manager';
import { HealthServer } from '../runtime/http';
import { MetricsServer } from '../runtime/metrics-server';
import { METRICS_PATH, METRICS_SERVICE } from '../core/install/metrics-endpoint';
import { checkOperatorIdentity, OperatorIdentity, OperatorNames, operatorNames } from '../core/install/identity';
import { CertManagerSecret } from '../runtime/conversion/cert-manager';
import { MetricsCertificate } from '../runtime/metrics-certificate';
import { LeaderElector } from '../runtime/leader';
import { createLogger, Logger, LogLevel } from '../runtime/log';
import { Metrics, processMetrics } from '../runtime/metrics';
import { FencedRest } from '../runtime/write-fence';
import { hasVersions } from '../core/contract/versions';
import type { ConversionWebhook } from '../runtime/conversion/webhook';
import { keepMigratingStoredVersions } from '../runtime/conversion/migrate';
import { needsWebhook, serviceDnsNames, WEBHOOK_PORT, WebhookCertificates } from '../core/install/webhook';
import { MetricsAuthorizer } from '../runtime/metrics-auth';
import { Sharding } from '../runtime/sharding/setup';
import { checkNamespaced, checkNamespaceNames, NAMESPACED_RBAC, namespacedKinds } from '../core/install/namespaced';

/** `<operator> controller`: runs until SIGTERM or SIGINT, then stops gracefully; `operator` is the app's identity, which the flags may rename. */
export async function runController(args: string[], env: NodeJS.ProcessEnv, allKinds: readonly AnyKind[], out: (text: string) => void, operator: OperatorIdentity): Promise<number> {
  const specs = controllerOptions(allKinds, operator);
  const options = commandOptions(`${operator.name} controller`, 'Reconciles the custom resources of every kind (or of --kinds) until SIGTERM or SIGINT.', specs, args, env, out);
  if (!options) return 0;
  const log = createLogger({ level: options['log-level'] as LogLevel });
  const namespaces = (options.namespace as string[] | undefined) ?? [];
  const namespacedRbac = options[NAMESPACED_RBAC] as boolean;
  // The namespaced install: the kinds that can be served so by default; one named in --kinds that cannot is refused.
  const byDefault = namespacedRbac && !(options.kinds as string[] | undefined)?.length;
  const kinds = selectKinds(byDefault ? namespacedKinds(allKinds) : allKinds, options);
  if (byDefault && kinds.length < allKinds.length) {
    log.warn('namespaced RBAC: kinds that cannot be served in some namespaces only are left out', { namespaces, leftOut: allKinds.filter((k) => !kinds.includes(k)).map((k) => k.plural) });
  }
  const withoutExtraGroups = (options['without-extra-groups'] as string[] | undefined) ?? [];
  const operatorIdentity: OperatorIdentity = { ...operator, name: options['operator-name'] as string, namespace: options['leader-election-namespace'] as string };
  try {
    checkOperatorIdentity(operatorIdentity, { name: '--operator-name', namespace: '--leader-election-namespace' });
    checkNamespaceNames(namespaces, '--namespace');
    if (namespacedRbac && !namespaces.length) throw new Error(`--${NAMESPACED_RBAC}: expected --namespace to name the namespaces whose Roles the controller has`);
    if (namespacedRbac) checkNamespaced(kinds, `--${NAMESPACED_RBAC}`, allKinds);
    checkWithoutExtraGroups(allKinds, withoutExtraGroups, '--without-extra-groups');
    if (options['metrics-certificates'] === 'cert-manager' && !options['metrics-secure']) throw new Error('--metrics-certificates=cert-manager: expected --metrics-secure=true: a certificate serves HTTPS only');
    // Before anything connects: a kind's option it cannot run with stops the start, naming the flag.
    for (const kind of kinds) kind.controller?.checkOptions?.(options);
  } catch (err) {
    throw new UserError((err as Error).message);
  }
  const names = operatorNames(operatorIdentity);
  const metrics = new Metrics({ prefix: names.metricPrefix });
  const requests = metrics.counter(metrics.named('api_requests_total'), 'Requests sent to the API server, by HTTP method.', ['method']);
  // client-go's name and labels (controller-runtime registers it): a 403 here means the RBAC lacks a rule.
  const results = metrics.counter('rest_client_requests_total', 'Number of HTTP requests, partitioned by status code, method, and host.', ['code', 'method', 'host']);
  const connection = await loadKubeConnection({ kubeconfig: options.kubeconfig as string | undefined }, env);
  const onRequest = (method: string) => requests.inc({ method });
  const onResponse = (method: string, code: string, host: string) => results.inc({ code, method, host });
  const rest = new KubeRest(connection, onRequest, onResponse, names.identity.name);
  const identity = env.POD_NAME ?? `${hostname()}-${process.pid}`;
  if (options.sharding && !options['leader-election']) throw new UserError('--sharding: expected --leader-election=true as well: the leader assigns the objects to the replicas');
  const leaseNamespace = options['leader-election-namespace'] as string;
  const leaderLease = (options['leader-election-lease'] as string | undefined) ?? names.leaderLease;
  let sharding: Sharding | undefined;
  let elector: LeaderElector | undefined;
  let lostLease = false;
  // Reconciles write only while this replica holds its Lease (the leader's, or sharded its membership):
  // one still running after it lost it cannot write beside the next, even if it won its own Lease back meanwhile.
  const holdsLease = () => !elector || (!lostLease && (sharding ? sharding.isMember() : elector.isLeader()));
  const controllerRest = new FencedRest(connection, onRequest, onResponse, holdsLease, names.identity.name);
  const controller: Controller = new Controller(controllerRest, {
    operator: names,
    sharding: options.sharding ? (sharding = new Sharding(rest, { identity, namespace: leaseNamespace, ring: leaderLease, served: () => controller.servedObjects() }, metrics, log)) : undefined,
    mayWork: () => sharding?.isMember() ?? true,
    kinds,
    namespaces,
    workers: options.workers as number,
    resyncMs: options['resync-period'] as number,
    kindOptions: options,
    identity,
    withoutExtraGroups,
  }, log, metrics);

  // Conversion for every kind whose CRD the install holds, served by this replica or not (--kinds narrows what it reconciles).
  const webhook = conversionWebhook(rest, options, names, allKinds, kinds, withoutExtraGroups, log);
  // Every replica, leader or not, serves conversion: the API server may send a review to any.
  const ready = () => (!webhook || webhook.ready) && (elector && !elector.isLeader() ? true : controller.synced);
  const http = new HealthServer({ port: options['http-port'] as number, ready });
  const metricsServer = new MetricsServer({ port: options['metrics-port'] as number, metrics, processMetrics: processMetrics(), secure: options['metrics-secure'] ? await secureMetrics(rest, leaseNamespace) : undefined });
  const metricsCertificate = metricsCertificateFrom(options, names, rest, leaseNamespace, metricsServer, log);

  const manager = new Manager();
  let exit!: (code: number) => void;
  const exited = new Promise<number>((resolve) => (exit = resolve));
  const shutdown = async (code: number, why: string) => {
    if (manager.stopping) return;
    log.info('stopping', { why });
    await manager.stop();
    exit(code);
  };
  // Lost, the Lease's work stops: caches and queues of a former holder may be stale, so this replica exits and a fresh one takes over.
  const lost = (why: string) => () => {
    lostLease = true;
    void shutdown(manager.stopping ? 0 : 1, why);
  };
  let port = 0;
  let metricsPort = 0;
  manager.add({ name: 'health', needsLeader: false, start: async () => void (port = await http.start()), stop: () => http.stop() });
  manager.add({ name: 'metrics', needsLeader: false, start: async () => void (metricsPort = await metricsServer.start()), stop: () => metricsServer.stop() });
  if (metricsCertificate) manager.add({ name: 'metrics-certificate', needsLeader: false, start: () => metricsCertificate.start(), stop: () => metricsCertificate.stop() });
  // Said once the ports are known (a scraper's set-up reads the metrics port here).
  manager.add({
    name: 'announce',
    needsLeader: false,
    start: () => log.info('controller starting', { identity, httpPort: port, metricsPort, metricsSecure: options['metrics-secure'], kinds: kinds.map((k) => k.plural), withoutExtraGroups, leaderElection: options['leader-election'], sharding: sharding?.shard.name ?? false, conversionWebhook: webhook ? webhook.crdNames : false }),
  });
  if (webhook) {
    // The informers of a kind with several versions list its hub version, which the API server
    // converts with the webhook: what starts after waits for it. Kinds of one version do not (the
    // webhook goes on retrying meanwhile, e.g. while its namespace does not exist yet). Stopped
    // last but the servers: the informers read through conversion until they stop.
    const readsConvertedVersions = kinds.some(hasVersions);
    const start = async () => {
      if (readsConvertedVersions) await webhook.start();
      else void webhook.start();
    };
    manager.add({ name: 'conversion-webhook', needsLeader: false, start, stop: () => webhook.stop() });
  }
  // A sharded replica works on its shard once its membership Lease is held; stopped after the work,
  // its released Lease lets the leader hand this replica's objects on at once.
  if (sharding) {
    const member = sharding;
    manager.add({ name: 'shard-membership', needsLeader: false, start: () => new Promise<void>((joined) => member.join({ onStartedLeading: () => joined(), onStoppedLeading: lost('lost shard membership') })), stop: () => member.stop() });
  }
  if (options['leader-election']) {
    manager.add({
      name: 'leader-election',
      needsLeader: false,
      start: () => {
        // client-go's leader gauge: 1 on the replica that leads, 0 on those that stand by.
        const leading = metrics.gauge('leader_election_master_status', "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master. 'name' is the string used to identify the lease. Please make sure to group by name.", ['name']);
        const lease = { name: leaderLease };
        leading.set(lease, 0);
        elector = new LeaderElector(rest, { namespace: leaseNamespace, leaseName: leaderLease, identity }, log);
        elector.run({
          onStartedLeading: () => {
            // A replica that lost its Lease exits; until it has, it may win its own Lease back (no one
            // took it yet), but it must not start work again on the caches it is leaving.
            if (manager.stopping) return;
            leading.set(lease, 1);
            log.info('leading');
            void manager.lead();
          },
          onStoppedLeading: () => {
            leading.set(lease, 0);
            lost('lost leadership')();
          },
        });
      },
      stop: () => elector?.stop(),
    });
  }
  // Sharded, every member reconciles its shard; the leader assigns the shards besides.
  manager.add({ name: 'controller', needsLeader: !sharding, start: () => controller.start(), stop: () => controller.stop() });
  if (sharding) {
    const leader = sharding;
    manager.add({ name: 'sharder', needsLeader: true, start: () => leader.lead(), stop: () => leader.stopLeading() });
  }
  // The leader rewrites objects stored in an older version once, in the background (docs/operating.md#stored-versions).
  // Every installed kind's, as the webhook converts them all, not only those this controller reconciles.
  // Namespaced, it may not list every namespace's objects: a cluster-wide install (or the cluster's own migration) does it.
  if (!namespacedRbac) {
    const migration = new AbortController();
    manager.add({
      name: 'storage-migration',
      needsLeader: true,
      start: () => void keepMigratingStoredVersions(rest, { kinds: allKinds, withoutExtraGroups, fieldManager: names.storageMigrationManager, log: log.child({ component: 'storage-migration' }), metrics, signal: migration.signal }),
      stop: () => migration.abort(),
    });
  }

  const onSignal = (signal: NodeJS.Signals) => void shutdown(0, signal);
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
  const started = (async () => {
    try {
      await manager.start();
    } catch (err) {
      // A server that cannot start (its port taken, say) ends the command: what started before it stops.
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
      await manager.stop();
      throw err;
    }
    // Without an election this replica acts at once.
    if (!options['leader-election']) await manager.lead();
  })();
  // A stop may come while a start still waits (for shard membership, say), which then never ends.
  return Promise.race([exited, started.then(() => exited)]);
}

/** HTTPS with a certificate made at start, every scrape reviewed by the API server (docs/security.md#metrics). */
async function secureMetrics(rest: KubeRest, namespace: string): Promise<NonNullable<ConstructorParameters<typeof MetricsServer>[0]['secure']>> {
  // Loaded only here: the X.509 library is not needed to serve plain HTTP.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { selfSignedServing } = require('../runtime/self-signed') as typeof import('../runtime/self-signed');
  const tls = await selfSignedServing({ dns: [...serviceDnsNames(METRICS_SERVICE, namespace), 'localhost'], ips: ['127.0.0.1'] });
  return { tls, authorizer: new MetricsAuthorizer(rest, { path: METRICS_PATH }) };
}

/** cert-manager's certificate for /metrics, when asked (--metrics-certificates=cert-manager); the self-signed one serves meanwhile. */
function metricsCertificateFrom(options: OptionValues, names: OperatorNames, rest: KubeRest, namespace: string, server: MetricsServer, log: Logger): MetricsCertificate | undefined {
  if (options['metrics-certificates'] !== 'cert-manager') return undefined;
  const secret = new CertManagerSecret(rest, { namespace, secretName: names.certManager.metricsSecretName, certificateName: names.certManager.metricsCertificate, serves: 'metrics' }, log);
  return new MetricsCertificate(secret, server, log.child({ component: 'metrics' }));
}

/**
 * The conversion webhook of every installed kind with several versions or a `validate` hook
 * (`allKinds`, served here or not), when asked (--conversion-webhook=true, as the install runs it)
 * or, unasked, when a kind this controller serves has several versions or a `validate` hook: a controller of kinds with one version alone
 * (--kinds naming only such kinds) writes no webhook Secret into a namespace that may not exist.
 */
function conversionWebhook(rest: KubeRest, options: OptionValues, names: OperatorNames, allKinds: readonly AnyKind[], served: readonly AnyKind[], withoutExtraGroups: readonly string[], log: Logger): ConversionWebhook | undefined {
  const asked = options['conversion-webhook'] as boolean | undefined;
  if (asked === false || !needsWebhook(allKinds) || (asked === undefined && !needsWebhook(served))) return undefined;
  const kinds = allKinds;
  const url = options['webhook-url'] as string | undefined;
  if (url !== undefined && !/^https:\/\/[^/?#]+\/\S*$/.test(url)) throw new UserError(`--webhook-url: expected an https URL such as https://127.0.0.1:${WEBHOOK_PORT}/convert, got ${JSON.stringify(url)}`);
  const certificates = options['webhook-certificates'] as WebhookCertificates;
  if (url !== undefined && certificates === 'cert-manager') throw new UserError('--webhook-url: local mode needs --webhook-certificates=self; cert-manager\u2019s certificate names the Service, and its cainjector sets no URL');
  // Loaded only here: fastify and the X.509 library cost about 24 MiB and 250 ms at start, which a controller serving no conversion never needs.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { ConversionWebhook } = require('../runtime/conversion/webhook') as typeof import('../runtime/conversion/webhook');
  return new ConversionWebhook(rest, {
    operator: names,
    kinds,
    withoutExtraGroups,
    namespace: options['leader-election-namespace'] as string,
    port: options['webhook-port'] as number,
    host: options['webhook-host'] as string,
    url,
    certificates,
  }, log.child({ component: 'conversion-webhook' }));
}

function selectKinds(kinds: readonly AnyKind[], options: OptionValues): AnyKind[] {
  const wanted = options.kinds as string[] | undefined;
  if (!wanted?.length) return [...kinds];
  const unknown = wanted.filter((w) => !kinds.some((k) => k.plural === w));
  if (unknown.length) throw new UserError(`--kinds: unknown kind(s) ${unknown.join(', ')}; expected some of ${kinds.map((k) => k.plural).join(', ')}`);
  return kinds.filter((k) => wanted.includes(k.plural));
}
