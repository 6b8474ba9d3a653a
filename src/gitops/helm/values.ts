import { Yaml } from 'cdk8s';
import { extraGroupNames } from '../../core/groups';
import { AnyKind } from '../../core/kind';
import { WEBHOOK_CERTIFICATES, WebhookCertificates } from '../../core/webhook';

/** The chart's values, with the defaults the synthesized bundle has (so the chart renders it unchanged by default). */
export interface ChartValues {
  readonly image: { readonly repository: string; readonly tag: string; readonly pullPolicy: string };
  readonly replicas: number;
  readonly resources: { readonly requests: Record<string, string>; readonly limits: Record<string, string> };
  readonly secretCopy: boolean;
  readonly sharding: boolean;
  readonly withoutExtraGroups: string[];
  readonly webhookCertificates: WebhookCertificates;
  readonly kindOptions: Record<string, string>;
  readonly kinds: string[];
  readonly watchNamespaces: string[];
  readonly ui: { readonly enabled: boolean };
  readonly monitoring: { readonly enabled: boolean };
}

/** The options every kind adds to the controller. */
const kindOptionsOf = (kinds: readonly AnyKind[]) => kinds.flatMap((k) => k.controller?.options ?? []);

/** values.yaml: each value with a comment saying what it changes. */
export function valuesYaml(values: ChartValues, kinds: readonly AnyKind[]): string {
  const block = (value: unknown) => Yaml.stringify(value).trimEnd().replace(/^/gm, '  ');
  return `# The controller image (npm run image builds it); the guitar web UI runs the same image.
image:
  repository: ${values.image.repository}
  # Empty means the chart's appVersion, the project's version.
  tag: ${JSON.stringify(values.image.tag)}
  # Always, IfNotPresent or Never.
  pullPolicy: ${values.image.pullPolicy}

# Controller replicas: one leads (a Lease), the others stand by to take over.
replicas: ${values.replicas}

# The controller container's requests and limits (quantities by resource name).
resources:
${block(values.resources)}

# Let the controller copy Secrets (CopyratorRule ruleType secret): grants it cluster-wide
# Secret access and runs it with --enable-secrets.
secretCopy: ${values.secretCopy}

# Every replica active, each serving a share of the objects (a shard label on each object, set
# by the leader; docs/operating.md#sharding): runs the controller with --sharding and grants it
# its membership Leases and the labelling of objects. Raise replicas with it.
sharding: ${values.sharding}

# Extra API groups of kinds to leave out, by CRD name: ${extraGroupNames(kinds).join(', ') || '(no kind has one)'}.
# Each kind is served in its main group and, by default, in these too, so that manifests
# written for the original operators apply unchanged. One left out gets no controller RBAC
# and is not served (--without-extra-groups); a new install gets no CRD for it, and an
# upgrade leaves an installed one (and its objects) in place, as every CRD of the chart.
withoutExtraGroups: ${JSON.stringify(values.withoutExtraGroups)}

# Who makes the conversion webhook's certificate: self (the controller keeps its own CA in a
# Secret and injects it into the CRDs' caBundle) or cert-manager (the chart adds cert-manager
# Issuers and a Certificate, the CRDs ask its cainjector for caBundle, and the controller
# serves the Secret cert-manager writes). cert-manager must be installed for cert-manager.
webhookCertificates: ${values.webhookCertificates}

# Options the kinds add to the controller, by name, each passed as --<name>=<value>:
${kindOptionsOf(kinds).map((o) => `#   ${o.name}: ${o.description}`).join('\n') || '#   (no kind adds one)'}
# E.g. copyrator-trusted-namespaces: "platform" lets the CopyratorRules of platform copy
# cluster-wide without their owners' consent (docs/kinds/copyrator.md#who-may-copy-what).
kindOptions: ${Yaml.stringify(values.kindOptions).trim() === '{}' ? '{}' : `\n${block(values.kindOptions)}`}

# The kinds the controller serves (--kinds), by plural name: ${kinds.map((k) => k.plural).join(', ')}.
# Empty means all. A kind left out gets no controller RBAC (its CRD stays installed).
kinds: ${JSON.stringify(values.kinds)}

# Serve objects in these namespaces only (--namespace); empty means every namespace.
# The controller's RBAC stays cluster-wide.
watchNamespaces: ${JSON.stringify(values.watchNamespaces)}

# The guitar web UI (Deployment, Service, RBAC); it exists only where guitars are served.
ui:
  enabled: ${values.ui.enabled}

# A ServiceMonitor, the alerting rules (PrometheusRule) and the Grafana dashboard (a ConfigMap
# labelled grafana_dashboard) for clusters with the Prometheus Operator (docs/monitoring.md).
monitoring:
  enabled: ${values.monitoring.enabled}
`;
}

/** A Kubernetes quantity, as resource.Quantity parses it (e.g. 100m, 1.5Gi, 2, 1e3). */
const QUANTITY = '^[+-]?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)(([KMGTPE]i)|[numkMGTPE]|[eE][+-]?[0-9]+)?$';
const DNS_LABEL = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$';

/**
 * values.schema.json: Helm checks the merged values against it at install, upgrade, template
 * and lint, and names the field that is wrong. Unknown keys are errors too (a typo would
 * otherwise be ignored silently); `global` is what a parent chart passes to every subchart.
 */
export function valuesSchema(kinds: readonly AnyKind[]): Record<string, unknown> {
  // Any resource name (hugepages-2Mi, vendor.com/gpu...); a quantity each.
  const quantities = {
    type: 'object',
    additionalProperties: { oneOf: [{ type: 'string', pattern: QUANTITY }, { type: 'number', minimum: 0 }] },
  };
  const strict = (properties: Record<string, unknown>, required = Object.keys(properties)) => ({ type: 'object', additionalProperties: false, required, properties });
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    title: 'cdk8s-operators chart values',
    ...strict(
      {
        global: { type: 'object', description: 'Values a parent chart passes to all its subcharts; unused here.' },
        image: strict({
          repository: { type: 'string', minLength: 1, description: 'The controller image, without tag.' },
          tag: { type: 'string', description: 'The image tag; empty means the chart\u2019s appVersion.' },
          pullPolicy: { enum: ['Always', 'IfNotPresent', 'Never'] },
        }),
        replicas: { type: 'integer', minimum: 0, description: 'Controller replicas; one leads, the others stand by.' },
        resources: strict({ requests: quantities, limits: quantities }, []),
        secretCopy: { type: 'boolean', description: 'Grant Secret access and run the controller with --enable-secrets.' },
        sharding: { type: 'boolean', description: 'Every replica active, each serving a share of the objects (--sharding), with its RBAC.' },
        withoutExtraGroups: {
          type: 'array',
          uniqueItems: true,
          items: { enum: extraGroupNames(kinds) },
          description: 'Extra groups of kinds left out (CRD names); empty means every group is served.',
        },
        webhookCertificates: { enum: [...WEBHOOK_CERTIFICATES], description: 'Who makes the conversion webhook\u2019s certificate: the controller (self) or cert-manager.' },
        kindOptions: {
          type: 'object',
          additionalProperties: false,
          properties: Object.fromEntries(kindOptionsOf(kinds).map((o) => [o.name, { type: 'string', description: o.description }])),
          description: 'Options the kinds add to the controller, by name (--<name>=<value>).',
        },
        kinds: { type: 'array', uniqueItems: true, items: { enum: kinds.map((k) => k.plural) }, description: 'The kinds served; empty means all.' },
        watchNamespaces: { type: 'array', uniqueItems: true, items: { type: 'string', maxLength: 63, pattern: DNS_LABEL }, description: 'Namespaces served; empty means all.' },
        ui: strict({ enabled: { type: 'boolean', description: 'The guitar web UI.' } }),
        monitoring: strict({ enabled: { type: 'boolean', description: 'ServiceMonitor, PrometheusRule and Grafana dashboard (needs the Prometheus Operator\u2019s CRDs).' } }),
      },
      ['image', 'replicas', 'resources', 'secretCopy', 'sharding', 'withoutExtraGroups', 'webhookCertificates', 'kindOptions', 'kinds', 'watchNamespaces', 'ui', 'monitoring'],
    ),
  };
}
