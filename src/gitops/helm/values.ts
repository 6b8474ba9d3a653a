import { Yaml } from 'cdk8s';
import { extraGroupNames } from '../../core/groups';
import { AnyKind } from '../../core/contract/kind';
import { installOptions, OptionSpec } from '../../core/contract/options';
import { KindOptIn, kindOptIns } from '../../core/contract/opt-ins';
import { WEBHOOK_CERTIFICATES, WebhookCertificates } from '../../core/install/webhook';
import { IMAGE_DIGEST_PATTERN } from '../../bundle/version';
import { ChartCompanion } from './companion';

/** The chart's values, with the defaults the synthesized bundle has (so the chart renders it unchanged by default). */
export interface ChartValues {
  readonly image: { readonly repository: string; readonly tag: string; readonly digest: string; readonly pullPolicy: string };
  readonly replicas: number;
  readonly resources: { readonly requests: Record<string, string>; readonly limits: Record<string, string> };
  /** The kinds' opt-ins (KindOptIn), by Helm value: top-level values of the chart. */
  readonly optIns: Readonly<Record<string, boolean>>;
  readonly sharding: boolean;
  readonly extraImages: string[];
  readonly withoutExtraGroups: string[];
  readonly webhookCertificates: WebhookCertificates;
  readonly kinds: string[];
  readonly watchNamespaces: string[];
  /** Each companion's values (ChartCompanion), by its key: `enabled` and its own. */
  readonly companions: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  readonly monitoring: { readonly enabled: boolean };
  readonly metrics: { readonly secure: boolean; readonly namespaceSelector: Record<string, unknown> };
  readonly webhook: { readonly from: unknown[] };
  /** The kinds' install values (OptionSpec.installValue), by value name: top-level values of the chart. */
  readonly install: Readonly<Record<string, unknown>>;
}

/** values.yaml: each value with a comment saying what it changes. */
export function valuesYaml(values: ChartValues, kinds: readonly AnyKind[], companions: readonly ChartCompanion[]): string {
  const block = (value: unknown) => Yaml.stringify(value).trimEnd().replace(/^/gm, '  ');
  return `# The controller image (npm run image builds it)${companions.map((c) => `; ${c.title} runs the same image`).join('')}.
image:
  repository: ${values.image.repository}
  # Empty means the chart's appVersion, the project's version.
  tag: ${JSON.stringify(values.image.tag)}
  # sha256:<hex>: run exactly this image (the tag then only names it); set it with the tag,
  # or empty it when you change the tag. Empty: pull by tag.
  digest: ${JSON.stringify(values.image.digest)}
  # Always, IfNotPresent or Never.
  pullPolicy: ${values.image.pullPolicy}

# Controller replicas: one leads (a Lease), the others stand by to take over.
replicas: ${values.replicas}

# The controller container's requests and limits (quantities by resource name).
resources:
${block(values.resources)}

${kindOptIns(kinds).map((optIn) => `${optInComment(optIn)}\n${optIn.helmValue}: ${values.optIns[optIn.helmValue]}\n\n`).join('')}# Every replica active, each serving a share of the objects (a shard label on each object, set
# by the leader; docs/operating.md#sharding): runs the controller with --sharding and grants it
# its membership Leases and the labelling of objects. Raise replicas with it.
sharding: ${values.sharding}

# Extra API groups of kinds to leave out, by CRD name: ${extraGroupNames(kinds).join(', ') || '(no kind has one)'}.
# Each kind is served in its main group and, by default, in these too, so that manifests
# written for the original operators apply unchanged. One left out gets no controller RBAC
# and is not served (--without-extra-groups); a new install gets no CRD for it, and an
# upgrade leaves an installed one (and its objects) in place, as every CRD of the chart.
withoutExtraGroups: ${JSON.stringify(values.withoutExtraGroups)}

# Image repositories (no tag: any tag or digest of each) the controller may run beside those the
# kinds declare (${[...new Set(kinds.flatMap((k) => k.renders?.images ?? []))].join(', ') || 'none'}): its admission policy refuses every other image,
# e.g. objects that run registry.example.com/team/app:1.0 need registry.example.com/team/app
# here (docs/security.md).
extraImages: ${JSON.stringify(values.extraImages)}

# Who makes the conversion webhook's certificate: self (the controller keeps its own CA in a
# Secret and injects it into the CRDs' caBundle) or cert-manager (the chart adds cert-manager
# Issuers and a Certificate, the CRDs ask its cainjector for caBundle, and the controller
# serves the Secret cert-manager writes). cert-manager must be installed for cert-manager.
webhookCertificates: ${values.webhookCertificates}

# The kinds the controller serves (--kinds), by plural name: ${kinds.map((k) => k.plural).join(', ')}.
# Empty means all. A kind left out gets no controller RBAC (its CRD stays installed).
kinds: ${JSON.stringify(values.kinds)}

# Serve objects in these namespaces only (--namespace); empty means every namespace.
# The controller's RBAC stays cluster-wide.
watchNamespaces: ${JSON.stringify(values.watchNamespaces)}

${companions.map((c) => companionYaml(c, values.companions[c.key])).join('')}# A ServiceMonitor, the alerting rules (PrometheusRule) and the Grafana dashboard (a ConfigMap
# labelled grafana_dashboard) for clusters with the Prometheus Operator (docs/monitoring.md).
monitoring:
  enabled: ${values.monitoring.enabled}

# The controller's /metrics (docs/security.md#metrics).
metrics:
  # HTTPS, every scrape's bearer token reviewed by the API server and its user allowed by the
  # metrics-reader ClusterRole (bind it to Prometheus' ServiceAccount); false serves plain HTTP
  # to anyone who reaches the port, for local development only (the ServiceMonitor expects HTTPS).
  secure: ${values.metrics.secure}
  # The namespaces whose Pods may reach the metrics port (the NetworkPolicy's namespaceSelector):
  # label Prometheus' namespace so. {} admits every namespace.
  namespaceSelector:
${Yaml.stringify(values.metrics.namespaceSelector).trimEnd().replace(/^/gm, '    ')}

# The conversion webhook (docs/security.md#the-conversion-webhook).
webhook:
  # Who may reach its port: NetworkPolicy peers (e.g. an ipBlock of the control plane's
  # addresses). A NetworkPolicy cannot name the API server in general, so [] admits every peer.
  from: ${JSON.stringify(values.webhook.from)}
${installOptions(kinds)
  .map((spec) => `\n${comment(`${spec.description} The controller's --${spec.name}.`)}\n${spec.installValue}: ${JSON.stringify(values.install[spec.installValue!])}\n`)
  .join('')}`;
}

/** A companion's values: its comment, `enabled` and its own values. */
function companionYaml(companion: ChartCompanion, values: Readonly<Record<string, unknown>>): string {
  return `${companion.comment.map((line) => `# ${line}`.trimEnd()).join('\n')}\n${companion.key}:\n  enabled: ${values.enabled}\n${companion.valuesYaml(values).trimEnd()}\n\n`;
}

/** A JSON schema of an object with these properties and no other, all required unless `required` says otherwise. */
export function strictSchema(properties: Record<string, unknown>, required = Object.keys(properties)): Record<string, unknown> {
  return { type: 'object', additionalProperties: false, required, properties };
}

/** `# ` lines of at most `width` + 2 characters. */
function comment(text: string, width = 94): string {
  return (text.match(new RegExp(`(.{1,${width}})(\\s|$)`, 'g')) ?? []).map((line) => `# ${line.trim()}`).join('\n');
}

/** What turning a kind's opt-in on does, wrapped as the comments written by hand around it. */
function optInComment(optIn: KindOptIn): string {
  return comment(`${optIn.description}: grants it cluster-wide ${optIn.access} and runs it with --${optIn.controllerOption}.`, 88);
}

/** The values the engine's chart has itself: a kind's opt-in, install value or companion may take none of their names. */
const ENGINE_VALUES = ['global', 'image', 'replicas', 'resources', 'sharding', 'extraImages', 'withoutExtraGroups', 'webhookCertificates', 'kinds', 'watchNamespaces', 'monitoring', 'metrics', 'webhook'];

/** Refuses a kind's value (a companion's key, an opt-in's or an install option's value) that takes the name of another value of the chart. */
function checkValueNames(kinds: readonly AnyKind[], companions: readonly ChartCompanion[]): void {
  const taken = new Map<string, string>(ENGINE_VALUES.map((name): [string, string] => [name, 'the engine']));
  const kindValues = [
    ...companions.map((c) => ({ value: c.key, what: `the companion ${c.title}`, field: 'key' })),
    ...kindOptIns(kinds).map((o) => ({ value: o.helmValue, what: `the opt-in "${o.name}"`, field: 'helmValue' })),
    ...installOptions(kinds).map((o) => ({ value: o.installValue!, what: `the install option --${o.name}`, field: 'installValue' })),
  ];
  for (const { value, what, field } of kindValues) {
    const owner = taken.get(value);
    if (owner) throw new Error(`helm: the value ${value} of ${what} is taken by ${owner}: give it another ${field}`);
    taken.set(value, what);
  }
}

/** The schema of a kind's install value: a list of strings, a boolean or a string, with the flag's description. */
function installSchema(spec: OptionSpec): Record<string, unknown> {
  const type = spec.type === 'list' ? { type: 'array', uniqueItems: true, items: { type: 'string', minLength: 1 } } : spec.type === 'boolean' ? { type: 'boolean' } : { type: 'string' };
  return { ...type, description: spec.description };
}

/** A Kubernetes quantity, as resource.Quantity parses it (e.g. 100m, 1.5Gi, 2, 1e3). */
const QUANTITY = '^[+-]?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)(([KMGTPE]i)|[numkMGTPE]|[eE][+-]?[0-9]+)?$';
/** An image repository without tag or digest: an optional host[:port]/, then path components. */
const IMAGE_REPOSITORY = '^([a-zA-Z0-9.-]+(:[0-9]+)?/)?[a-z0-9]+([._-][a-z0-9]+)*(/[a-z0-9]+([._-][a-z0-9]+)*)*$';
const DNS_LABEL = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$';

/**
 * values.schema.json: Helm checks the merged values against it at install, upgrade, template
 * and lint, and names the field that is wrong. Unknown keys are errors too (a typo would
 * otherwise be ignored silently); `global` is what a parent chart passes to every subchart.
 */
export function valuesSchema(kinds: readonly AnyKind[], chart: string, companions: readonly ChartCompanion[]): Record<string, unknown> {
  // Any resource name (hugepages-2Mi, vendor.com/gpu...); a quantity each.
  checkValueNames(kinds, companions);
  const optIns = kindOptIns(kinds);
  const quantities = {
    type: 'object',
    additionalProperties: { oneOf: [{ type: 'string', pattern: QUANTITY }, { type: 'number', minimum: 0 }] },
  };
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    title: `${chart} chart values`,
    ...strictSchema(
      {
        global: { type: 'object', description: 'Values a parent chart passes to all its subcharts; unused here.' },
        image: strictSchema({
          repository: { type: 'string', minLength: 1, description: 'The controller image, without tag.' },
          tag: { type: 'string', description: 'The image tag; empty means the chart\u2019s appVersion.' },
          digest: { type: 'string', pattern: `^$|${IMAGE_DIGEST_PATTERN}`, description: 'The image digest (sha256:<64 hex digits>) to run by digest; empty pulls by tag.' },
          pullPolicy: { enum: ['Always', 'IfNotPresent', 'Never'] },
        }),
        replicas: { type: 'integer', minimum: 0, description: 'Controller replicas; one leads, the others stand by.' },
        resources: strictSchema({ requests: quantities, limits: quantities }, []),
        ...Object.fromEntries(optIns.map((optIn) => [optIn.helmValue, { type: 'boolean', description: `Grant ${optIn.access} and run the controller with --${optIn.controllerOption}.` }])),
        sharding: { type: 'boolean', description: 'Every replica active, each serving a share of the objects (--sharding), with its RBAC.' },
        withoutExtraGroups: {
          type: 'array',
          uniqueItems: true,
          items: { enum: extraGroupNames(kinds) },
          description: 'Extra groups of kinds left out (CRD names); empty means every group is served.',
        },
        extraImages: {
          type: 'array',
          uniqueItems: true,
          items: { type: 'string', pattern: IMAGE_REPOSITORY },
          description: 'Image repositories (without tag or digest) the controller may run beside the kinds\u2019 own.',
        },
        webhookCertificates: { enum: [...WEBHOOK_CERTIFICATES], description: 'Who makes the conversion webhook\u2019s certificate: the controller (self) or cert-manager.' },
        kinds: { type: 'array', uniqueItems: true, items: { enum: kinds.map((k) => k.plural) }, description: 'The kinds served; empty means all.' },
        watchNamespaces: { type: 'array', uniqueItems: true, items: { type: 'string', maxLength: 63, pattern: DNS_LABEL }, description: 'Namespaces served; empty means all.' },
        ...Object.fromEntries(companions.map((c) => [c.key, { ...strictSchema({ enabled: { type: 'boolean', description: `${c.title[0].toUpperCase()}${c.title.slice(1)}.` }, ...c.schema.properties }), ...c.schema.rules }])),
        monitoring: strictSchema({ enabled: { type: 'boolean', description: 'ServiceMonitor, PrometheusRule and Grafana dashboard (needs the Prometheus Operator\u2019s CRDs).' } }),
        metrics: strictSchema({
          secure: { type: 'boolean', description: 'HTTPS and every scrape authorized (true), or plain HTTP to anyone (false, local development only).' },
          namespaceSelector: { type: 'object', description: 'A label selector of the namespaces whose Pods may reach the metrics port; {} admits every namespace.' },
        }),
        webhook: strictSchema({ from: { type: 'array', items: { type: 'object' }, description: 'NetworkPolicy peers admitted to the conversion webhook\u2019s port; [] admits every peer.' } }),
        ...Object.fromEntries(installOptions(kinds).map((spec) => [spec.installValue!, installSchema(spec)])),
      },
      ['image', 'replicas', 'resources', ...optIns.map((optIn) => optIn.helmValue), 'sharding', 'extraImages', 'withoutExtraGroups', 'webhookCertificates', 'kinds', 'watchNamespaces', ...companions.map((c) => c.key), 'monitoring', 'metrics', 'webhook'],
    ),
  };
}
