import { dnsEgress, tcpPort } from '../core/kit/network';
import { k8s } from 'cdk8s-plus-27';
import { Construct } from 'constructs';
import { spreadOverNodes } from '../core/kit/placement';
import { restrictedPodSecurityContext } from '../core/kit/security';
import { NAMESPACED_RBAC } from '../core/install/namespaced';
import { CONTROLLER_OPTIONS_SECRET, envName, OptionSpec } from '../core/contract/options';
import { IMAGE_UID, imageContainer } from './image-container';
import type { WebhookClientConfig } from './crd';
import { WEBHOOK_PATH, WEBHOOK_PORT, WEBHOOK_SERVICE, WebhookCertificates } from '../core/install/webhook';
import { METRICS_NAMESPACE_LABEL, METRICS_PORT, METRICS_SERVICE } from '../core/install/metrics-endpoint';

export interface ControllerDeploymentProps {
  /** The options of the kinds served: those `fromSecret` get their variable from the Secret CONTROLLER_OPTIONS_SECRET. @default none */
  readonly kindOptions?: readonly OptionSpec[];
  /** Namespace of the controller. */
  readonly namespace: string;
  /** Labels of the controller's Pods, also its selector. */
  readonly labels: Record<string, string>;
  /** The ServiceAccount the controller acts as. */
  readonly serviceAccountName: string;
  /** The controller image. */
  readonly image: string;
  /** Replicas; leader election lets one act at a time. */
  readonly replicas: number;
  /** Name of the leader-election Lease. */
  readonly leaseName: string;
  /** Switches to run with, without --: the controller options of the kinds' opt-ins the install turns on (and grants). @default none */
  readonly optInSwitches?: readonly string[];
  /** Run with --without-extra-groups (CRD names of extra groups the install leaves out). @default none */
  readonly withoutExtraGroups?: readonly string[];
  /** Run with --sharding: every replica serves a share of the objects. @default false */
  readonly sharding?: boolean;
  /** Serve the conversion webhook (some kind has several versions): its container port, Service and ingress. @default false */
  readonly conversionWebhook?: boolean;
  /** Run with --webhook-certificates=cert-manager when cert-manager makes the webhook's certificate. @default 'self' */
  readonly webhookCertificates?: WebhookCertificates;
  /** The kinds' options an administrator set at install, as flags (see OptionSpec.installValue). @default none */
  readonly installArgs?: readonly string[];
  /** The namespaced install: run with --kinds, --namespace and --namespaced-rbac, serving these kinds (plural names) in these namespaces only. @default every kind, everywhere */
  readonly served?: { readonly kinds: readonly string[]; readonly namespaces: readonly string[] };
}

/** Where the API server reaches the conversion webhook in a cluster: the controllers' webhook Service, port 443. */
export function webhookServiceConfig(namespace: string, path: string = WEBHOOK_PATH): WebhookClientConfig {
  return { service: { namespace, name: WEBHOOK_SERVICE, path, port: 443 } };
}

/** The port of /healthz and /readyz (plain HTTP, no data); /metrics has its own (METRICS_PORT). */
export const HTTP_PORT = 8080;

/** The NetworkPolicy's ingress rules, in this order (the Helm chart patches them by index). */
export const INGRESS_RULE = { probes: 0, metrics: 1, webhook: 2 } as const;

/**
 * The controller Deployment under the restricted Pod Security profile, with the Service
 * Prometheus scrapes, a disruption budget keeping a leader candidate, and a network policy
 * that admits the probes, metrics scrapes from labelled namespaces and the conversion webhook's
 * callers in, and the API server, DNS and the rate provider out.
 */
export class ControllerDeployment extends Construct {
  constructor(scope: Construct, id: string, props: ControllerDeploymentProps) {
    super(scope, id);
    const { namespace, labels } = props;
    const metadata = { name: 'controller', namespace, labels };
    const selector = { matchLabels: labels };

    const webhook = props.conversionWebhook ?? false;
    const base = imageContainer({
      name: 'controller',
      image: props.image,
      args: [
        'controller',
        `--leader-election-namespace=${namespace}`,
        `--leader-election-lease=${props.leaseName}`,
        `--http-port=${HTTP_PORT}`,
        `--metrics-port=${METRICS_PORT}`,
        // Asked explicitly: it converts every installed kind's CRDs, also when --kinds leaves the versioned kinds out.
        ...(webhook ? ['--conversion-webhook=true', `--webhook-port=${WEBHOOK_PORT}`] : []),
        ...(webhook && props.webhookCertificates === 'cert-manager' ? ['--webhook-certificates=cert-manager'] : []),
        ...(props.webhookCertificates === 'cert-manager' ? ['--metrics-certificates=cert-manager'] : []),
        ...(props.optInSwitches ?? []).map((option) => `--${option}`),
        ...(props.withoutExtraGroups?.length ? [`--without-extra-groups=${props.withoutExtraGroups.join(',')}`] : []),
        ...(props.sharding ? ['--sharding'] : []),
        ...(props.served ? [`--kinds=${props.served.kinds.join(',')}`, `--namespace=${props.served.namespaces.join(',')}`, `--${NAMESPACED_RBAC}`] : []),
        ...(props.installArgs ?? []),
      ],
      env: [
        { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
        // A value that may carry a credential is never written here in clear: it comes from a Secret, when that has it.
        ...(props.kindOptions ?? [])
          .filter((option) => option.fromSecret)
          .map((option) => ({ name: envName(option.name), valueFrom: { secretKeyRef: { name: CONTROLLER_OPTIONS_SECRET, key: option.name, optional: true } } })),
      ],
      port: HTTP_PORT,
      // It writes nothing to disk but its log; the limit only guards against a runaway log.
      requests: { cpu: '100m', memory: '128Mi', 'ephemeral-storage': '64Mi' },
      limits: { cpu: '1', memory: '512Mi', 'ephemeral-storage': '1Gi' },
    });
    const ports: k8s.ContainerPort[] = [
      ...(base.ports ?? []),
      { name: 'metrics', containerPort: METRICS_PORT, protocol: 'TCP' },
      ...(webhook ? [{ name: 'webhook', containerPort: WEBHOOK_PORT, protocol: 'TCP' }] : []),
    ];
    const container: k8s.Container = { ...base, ports };

    new k8s.KubeDeployment(this, 'deployment', {
      metadata,
      spec: {
        replicas: props.replicas,
        selector,
        template: {
          metadata: { labels },
          spec: {
            serviceAccountName: props.serviceAccountName,
            // It talks to the API server, so it needs its token (cdk8s-plus would turn this off).
            automountServiceAccountToken: true,
            securityContext: restrictedPodSecurityContext(IMAGE_UID),
            // Keep the leader and its stand-by on different nodes where there are several.
            affinity: spreadOverNodes(selector),
            containers: [container],
          },
        },
      },
    });

    // HTTPS; every scrape authenticated and authorized (docs/security.md#metrics).
    new k8s.KubeService(this, 'metrics', {
      metadata: { ...metadata, name: METRICS_SERVICE },
      spec: { selector: labels, ports: [{ name: 'https', port: METRICS_PORT, targetPort: k8s.IntOrString.fromString('metrics'), protocol: 'TCP' }] },
    });

    if (webhook) {
      // Every replica serves conversion, leader or not: the Service selects them all.
      new k8s.KubeService(this, 'webhook', {
        // Labelled apart from the metrics Service, which the ServiceMonitor selects by its labels.
        metadata: { ...metadata, name: WEBHOOK_SERVICE, labels: { ...labels, 'app.kubernetes.io/name': WEBHOOK_SERVICE } },
        spec: { selector: labels, ports: [{ name: 'webhook', port: 443, targetPort: k8s.IntOrString.fromString('webhook'), protocol: 'TCP' }] },
      });
    }

    new k8s.KubePodDisruptionBudget(this, 'disruption-budget', {
      metadata,
      spec: { selector, minAvailable: k8s.IntOrString.fromNumber(1) },
    });

    new k8s.KubeNetworkPolicy(this, 'network-policy', {
      metadata,
      spec: {
        podSelector: selector,
        policyTypes: ['Ingress', 'Egress'],
        ingress: [
          // The kubelet's probes (from the node; no data there).
          { ports: [tcpPort(HTTP_PORT)] },
          // Scrapes from namespaces labelled for it only (kubebuilder's allow-metrics-traffic); each is authorized besides.
          { from: [{ namespaceSelector: { matchLabels: { ...METRICS_NAMESPACE_LABEL } } }], ports: [tcpPort(METRICS_PORT)] },
          // The API server's ConversionReviews. A NetworkPolicy cannot name the API server in general (it
          // comes from the node or control plane network, not a pod), so every peer is admitted here; the
          // Helm value webhook.from narrows it to the control plane's addresses where they are known.
          ...(webhook ? [{ ports: [tcpPort(WEBHOOK_PORT)] }] : []),
        ],
        egress: [
          // DNS; the API server (443 through the kubernetes Service, 6443 to the endpoints); HTTP(S) to the rate provider.
          dnsEgress(),
          { ports: [tcpPort(443), tcpPort(6443), tcpPort(80)] },
        ],
      },
    });
  }
}
