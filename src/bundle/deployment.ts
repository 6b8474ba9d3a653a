import { dnsEgress, tcpPort } from '../core/network';
import { k8s } from 'cdk8s-plus-27';
import { Construct } from 'constructs';
import { spreadOverNodes } from '../core/placement';
import { restrictedPodSecurityContext } from '../core/security';
import { SECRET_COPY } from '../core/secret-copy';
import { IMAGE_UID, imageContainer } from './image-container';
import type { WebhookClientConfig } from './crd';
import { WEBHOOK_PATH, WEBHOOK_PORT, WEBHOOK_SERVICE, WebhookCertificates } from '../core/webhook';

export interface ControllerDeploymentProps {
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
  /** Run with --enable-secrets (the install grants Secret access; see SECRET_COPY). @default false */
  readonly secretCopy?: boolean;
  /** Run with --without-extra-groups (CRD names of extra groups the install leaves out). @default none */
  readonly withoutExtraGroups?: readonly string[];
  /** Run with --sharding: every replica serves a share of the objects. @default false */
  readonly sharding?: boolean;
  /** Values of the options the kinds add (e.g. copyrator-trusted-namespaces), each passed as --<name>=<value>. @default none */
  readonly kindOptions?: Readonly<Record<string, string>>;
  /** Serve the conversion webhook (some kind has several versions): its container port, Service and ingress. @default false */
  readonly conversionWebhook?: boolean;
  /** Run with --webhook-certificates=cert-manager when cert-manager makes the webhook's certificate. @default 'self' */
  readonly webhookCertificates?: WebhookCertificates;
}

/** Where the API server reaches the conversion webhook in a cluster: the controllers' webhook Service, port 443. */
export function webhookServiceConfig(namespace: string): WebhookClientConfig {
  return { service: { namespace, name: WEBHOOK_SERVICE, path: WEBHOOK_PATH, port: 443 } };
}

/** The port of /metrics, /healthz and /readyz. */
export const HTTP_PORT = 8080;

/**
 * The controller Deployment under the restricted Pod Security profile, with the Service
 * Prometheus scrapes, a disruption budget keeping a leader candidate, and a network policy
 * that admits only metrics scrapes in and the API server, DNS and the rate provider out.
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
        ...(webhook ? [`--webhook-port=${WEBHOOK_PORT}`] : []),
        ...(webhook && props.webhookCertificates === 'cert-manager' ? ['--webhook-certificates=cert-manager'] : []),
        ...(props.secretCopy ? [`--${SECRET_COPY.controllerOption}`] : []),
        ...(props.withoutExtraGroups?.length ? [`--without-extra-groups=${props.withoutExtraGroups.join(',')}`] : []),
        ...(props.sharding ? ['--sharding'] : []),
        ...Object.entries(props.kindOptions ?? {})
          .sort(([a], [b]) => (a < b ? -1 : 1))
          .map(([name, value]) => `--${name}=${value}`),
      ],
      env: [{ name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
      port: HTTP_PORT,
      // It writes nothing to disk but its log; the limit only guards against a runaway log.
      requests: { cpu: '100m', memory: '128Mi', 'ephemeral-storage': '64Mi' },
      limits: { cpu: '1', memory: '512Mi', 'ephemeral-storage': '1Gi' },
    });
    const container: k8s.Container = webhook ? { ...base, ports: [...(base.ports ?? []), { name: 'webhook', containerPort: WEBHOOK_PORT, protocol: 'TCP' }] } : base;

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

    new k8s.KubeService(this, 'metrics', {
      metadata: { ...metadata, name: 'controller-metrics' },
      spec: { selector: labels, ports: [{ name: 'http', port: HTTP_PORT, targetPort: k8s.IntOrString.fromString('http'), protocol: 'TCP' }] },
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
        // Metrics scrapes and probes; the API server's ConversionReviews (it comes from the node or control plane network, not a pod).
        ingress: [{ ports: [tcpPort(HTTP_PORT), ...(webhook ? [tcpPort(WEBHOOK_PORT)] : [])] }],
        egress: [
          // DNS; the API server (443 through the kubernetes Service, 6443 to the endpoints); HTTP(S) to the rate provider.
          dnsEgress(),
          { ports: [tcpPort(443), tcpPort(6443), tcpPort(80)] },
        ],
      },
    });
  }
}
