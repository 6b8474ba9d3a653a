import { AnyKind } from '../core/contract/kind';
import { extraGroupNames } from '../core/groups';
import { METRICS_PORT } from '../core/install/metrics-endpoint';
import { OperatorIdentity } from '../core/install/identity';
import { NAMESPACED_RBAC } from '../core/install/namespaced';
import { kindOptIns, optInControllerOptions } from '../core/contract/opt-ins';
import { WEBHOOK_CERTIFICATES, WEBHOOK_PORT } from '../core/install/webhook';
import { KUBECONFIG_OPTION, OptionSpec } from './command-line';
import { LOG_LEVEL_OPTION } from '../runtime/log';

/**
 * The engine's own options, their defaults the app's operator identity (src/product.ts for this
 * repository's) and their examples the kinds served; each kind adds its own (see KindController.options).
 */
export function engineOptions(identity: OperatorIdentity, kinds: readonly AnyKind[] = []): OptionSpec[] {
  const plurals = kinds.map((kind) => kind.plural);
  const extras = extraGroupNames(kinds);
  return [
  KUBECONFIG_OPTION,
  {
    name: 'operator-name',
    type: 'string',
    default: identity.name,
    description: 'Whose controller this is (OperatorIdentity.name): its leader Lease, webhook Secret, field managers and metric names derive from it, so two operators on one cluster share none of them.',
  },
  { name: 'kinds', type: 'list', description: `Serve only these kinds (plural names${plurals.length ? `: ${plurals.join(', ')}` : ''}); all by default.` },
  {
    name: 'without-extra-groups',
    type: 'list',
    description: `Do not serve these extra groups of kinds (CRD names${extras.length ? `: ${extras.join(', ')}` : '; no kind has one'}); every group is served by default.`,
  },
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
  ];
}

export function controllerOptions(kinds: readonly AnyKind[], identity: OperatorIdentity): OptionSpec[] {
  // The kinds' opt-ins are checked here, before the controller starts: one a permission names but the kind does not declare stops it.
  const options = [...engineOptions(identity, kinds), ...optInControllerOptions(kindOptIns(kinds)), ...kinds.flatMap((k) => k.controller?.options ?? [])];
  const repeated = options.find((option, i) => options.findIndex((o) => o.name === option.name) !== i);
  if (repeated) throw new Error(`the controller's option --${repeated.name} is declared twice (by the engine, a kind's options or a kind's opt-in): give one of them another name`);
  return options;
}
