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
import { MetricsServer } from './metrics-server';
import { METRICS_PATH, METRICS_PORT, METRICS_SERVICE } from '../core/metrics-endpoint';
import { checkOperatorIdentity, OperatorIdentity, OperatorNames, operatorNames } from '../core/identity';
import { CertManagerSecret } from './conversion/cert-manager';
import { MetricsCertificate } from './metrics-certificate';
import { LeaderElector } from './leader';
import { createLogger, LOG_LEVEL_OPTION, Logger, LogLevel } from './log';
import { Metrics, processMetrics } from './metrics';
import { FencedRest } from './write-fence';
import { hasVersions } from '../core/versions';
import type { ConversionWebhook } from './conversion/webhook';
import { keepMigratingStoredVersions } from './conversion/migrate';
import { needsWebhook, serviceDnsNames, WEBHOOK_CERTIFICATES, WEBHOOK_PORT, WebhookCertificates } from '../core/webhook';
import { MetricsAuthorizer } from './metrics-auth';
import { Sharding } from './sharding/setup';
import { checkNamespaced, checkNamespaceNames, NAMESPACED_RBAC, namespacedKinds } from '../core/namespaced';

/**
 * The engine's own options, their defaults the app's operator identity (src/product.ts for this
 * repository's); each kind adds its own (see KindController.options).
 */
export function engineOptions(identity: OperatorIdentity): OptionSpec[] {
  return [
  KUBECONFIG_OPTION,
  {
    name: 'operator-name',
    type: 'string',
    default: identity.name,
    description: 'Whose controller this is (OperatorIdentity.name): its leader Lease, webhook Secret, field managers and metric names derive from it, so two operators on one cluster share none of them.',
  },
  { name: 'kinds', type: 'list', description: 'Serve only these kinds (plural names, e.g. exchangerates,guitars); all by default.' },
  { name: 'without-extra-groups', type: 'list', description: 'Do not serve these extra groups of kinds (CRD names, e.g. copyrators.flant.com); every group is served by default.' },
  { name: 'namespace', type: 'list', description: 'Serve only objects in these namespaces; all by default. A kind that can be served so (docs/install.md#namespaced-install) has its children watched there only, too.' },
  {
    name: NAMESPACED_RBAC,
    type: 'boolean',
    default: 'false',
    description: 'The install\u2019s RBAC is Roles in the --namespace namespaces only (synth\u2019s --watch-namespaces): serve only kinds that can be served so (without --kinds, those; one named in --kinds that cannot stops the start), and migrate no stored versions.',
  },
  { name: 'workers', type: 'integer', default: '4', description: 'Reconciles that may run at once (never two for one object).' },
  { name: 'resync-period', type: 'duration', default: '10m', description: 'Reconcile every object again after this long although nothing changed.' },
  { name: 'leader-election', type: 'boolean', default: 'true', description: 'Act only while holding the leader Lease, so that one of several replicas acts.' },
  { name: 'leader-election-namespace', type: 'string', default: identity.namespace, description: 'The controller\u2019s own namespace: its leader Lease, and the conversion webhook\u2019s Secret and Service.' },
  { name: 'leader-election-lease', type: 'string', description: 'Name of the leader Lease; <operator-name>-leader by default.' },
  { name: 'sharding', type: 'boolean', default: 'false', description: 'Share the objects among all replicas: each holds a Lease of its own and serves only the objects the leader labels for it (needs --leader-election).' },
  { name: 'http-port', type: 'integer', min: 0, default: '8080', description: 'Port of /healthz and /readyz (plain HTTP, no data); 0 picks a free one.' },
  { name: 'metrics-port', type: 'integer', min: 0, default: String(METRICS_PORT), description: 'Port of /metrics; 0 picks a free one.' },
  {
    name: 'metrics-secure',
    type: 'boolean',
    default: 'true',
    description: 'Serve /metrics over HTTPS (a self-signed certificate) to callers whose bearer token the API server accepts and whose user may get /metrics (the metrics-reader ClusterRole); false serves plain HTTP to anyone, for local development only.',
  },
  {
    name: 'metrics-certificates',
    type: 'string',
    default: 'self',
    choices: WEBHOOK_CERTIFICATES,
    description: `Who makes the HTTPS certificate of /metrics: self (self-signed at each start; scrapers cannot verify it) or cert-manager (the Secret <operator-name>-metrics-tls its Certificate writes in --leader-election-namespace, re-read every minute; scrapers verify it by its ca.crt).`,
  },
  {
    name: 'conversion-webhook',
    type: 'boolean',
    description: 'Serve the conversion webhook of every installed kind with several versions or a validate hook (and inject its CA into their CRDs and the ValidatingWebhookConfiguration): true always (the install says so), false never (another process serves it); unset, only when a kind this controller serves has several versions or a validate hook.',
  },
  { name: 'webhook-port', type: 'integer', min: 0, default: String(WEBHOOK_PORT), description: 'HTTPS port of the conversion webhook (POST /convert); 0 picks a free one.' },
  { name: 'webhook-host', type: 'string', default: '0.0.0.0', description: 'Address the conversion webhook listens on.' },
  {
    name: 'webhook-certificates',
    type: 'string',
    default: 'self',
    choices: WEBHOOK_CERTIFICATES,
    description: 'Who makes the conversion webhook\u2019s certificate: self (its own CA in a Secret, injected into the CRDs) or cert-manager (it serves the Secret cert-manager writes, whose cainjector fills the CRDs\u2019 caBundle).',
  },
  { name: 'webhook-url', type: 'string', description: 'Local mode: the URL the API server posts ConversionReviews to (e.g. https://127.0.0.1:9443/convert), set in the CRDs instead of the Service.' },
  LOG_LEVEL_OPTION,
  { name: SECRET_COPY.controllerOption, type: 'boolean', default: 'false', description: 'Manage Secrets where a kind offers it (CopyratorRule ruleType secret); the install must grant the access.' },
  ];
}

export function controllerOptions(kinds: readonly AnyKind[], identity: OperatorIdentity): OptionSpec[] {
  return [...engineOptions(identity), ...kinds.flatMap((k) => k.controller?.options ?? [])];
}

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
  let stopping = false;
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
  const port = await http.start();
  const metricsServer = new MetricsServer({ port: options['metrics-port'] as number, metrics, processMetrics: processMetrics(), secure: options['metrics-secure'] ? await secureMetrics(rest, leaseNamespace) : undefined });
  const metricsPort = await metricsServer.start();
  const metricsCertificate = metricsCertificateFrom(options, names, rest, leaseNamespace, metricsServer, log);
  await metricsCertificate?.start();
  log.info('controller starting', { identity, httpPort: port, metricsPort, metricsSecure: options['metrics-secure'], kinds: kinds.map((k) => k.plural), withoutExtraGroups, leaderElection: options['leader-election'], sharding: sharding?.shard.name ?? false, conversionWebhook: webhook ? webhook.crdNames : false });

  return new Promise<number>((resolve) => {
    // The leader rewrites objects stored in an older version once, in the background (docs/operating.md#stored-versions).
    const migration = new AbortController();
    // Every installed kind's, as the webhook converts them all, not only those this controller reconciles.
    // Namespaced, it may not list every namespace's objects: a cluster-wide install (or the cluster's own migration) does it.
    const migrateStorage = () => {
      if (!namespacedRbac) void keepMigratingStoredVersions(rest, { kinds: allKinds, withoutExtraGroups, fieldManager: names.storageMigrationManager, log: log.child({ component: 'storage-migration' }), metrics, signal: migration.signal });
    };
    const shutdown = async (code: number, why: string) => {
      if (stopping) return;
      stopping = true;
      log.info('stopping', { why });
      migration.abort();
      await controller.stop();
      sharding?.stopLeading();
      await elector?.stop();
      // After the work stopped: the released Lease lets the leader hand this replica's objects on at once.
      await sharding?.stop();
      // Last: the informers read through conversion until they stop.
      await webhook?.stop();
      metricsCertificate?.stop();
      await metricsServer.stop();
      await http.stop();
      resolve(code);
    };
    process.once('SIGTERM', () => void shutdown(0, 'SIGTERM'));
    process.once('SIGINT', () => void shutdown(0, 'SIGINT'));
    // The informers of a kind with several versions list its hub version, which the API server
    // converts with the webhook: that waits for it. Kinds of one version do not (the webhook goes on
    // retrying meanwhile, e.g. while its namespace does not exist yet).
    const readsConvertedVersions = kinds.some(hasVersions);
    const startAfterWebhook = async () => {
      if (webhook && readsConvertedVersions) {
        if (!(await webhook.start())) return;
      } else void webhook?.start();
      if (options['leader-election']) {
        // client-go's leader gauge: 1 on the replica that leads, 0 on those that stand by.
        const leading = metrics.gauge('leader_election_master_status', "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master. 'name' is the string used to identify the lease. Please make sure to group by name.", ['name']);
        const lease = { name: leaderLease };
        leading.set(lease, 0);
        elector = new LeaderElector(rest, { namespace: leaseNamespace, leaseName: leaderLease, identity }, log);
        const elect = () =>
          elector!.run({
            onStartedLeading: () => {
              // A replica that lost its Lease exits; until it has, it may win its own Lease back (no one
              // took it yet), but it must not start work again on the caches it is leaving.
              if (stopping) return;
              leading.set(lease, 1);
              log.info('leading');
              // Sharded, every member reconciles its shard already; the leader assigns the shards besides.
              if (sharding) sharding.lead();
              else controller.start();
              migrateStorage();
            },
            // Caches and queues of a former leader may be stale: exit, and let a fresh replica take over.
            onStoppedLeading: () => {
              lostLease = true;
              leading.set(lease, 0);
              void shutdown(stopping ? 0 : 1, 'lost leadership');
            },
          });
        // A sharded replica works on its shard once its membership Lease is held, and competes for leadership too.
        if (sharding) {
          sharding.join({
            onStartedLeading: () => {
              if (stopping) return;
              controller.start();
              elect();
            },
            onStoppedLeading: () => {
              lostLease = true;
              void shutdown(stopping ? 0 : 1, 'lost shard membership');
            },
          });
        } else elect();
      } else {
        controller.start();
        migrateStorage();
      }
    };
    void startAfterWebhook();
  });
}

/** HTTPS with a certificate made at start, every scrape reviewed by the API server (docs/security.md#metrics). */
async function secureMetrics(rest: KubeRest, namespace: string): Promise<NonNullable<ConstructorParameters<typeof MetricsServer>[0]['secure']>> {
  // Loaded only here: the X.509 library is not needed to serve plain HTTP.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { selfSignedServing } = require('./self-signed') as typeof import('./self-signed');
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
 * (`allKinds`, served here or not), when asked (--conversion-webhook=true, as the install runs it) or, unasked, when a kind
 * this controller serves has several versions: a controller of kinds with one version alone
 * (--kinds exchangerates) writes no webhook Secret into a namespace that may not exist.
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
  const { ConversionWebhook } = require('./conversion/webhook') as typeof import('./conversion/webhook');
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
