import { dnsEgress, tcpPort } from '../core/network';
import { k8s } from 'cdk8s-plus-27';
import { Construct } from 'constructs';
import { guitarKind } from '../kinds/guitar';
import { PRODUCT } from '../core/names';
import { spreadOverNodes } from '../core/placement';
import { restrictedPodSecurityContext } from '../core/security';
import { IMAGE_UID, imageContainer } from '../bundle/image-container';
import { PolicyRule } from '../bundle/rbac';

export interface GuitarUiOptions {
  /** Show and change guitars in these namespaces only (Roles there instead of a ClusterRole). @default all */
  readonly namespaces?: string[];
  /**
   * Act as the user an authenticating proxy names in this header (e.g. X-Forwarded-User). The
   * UI then needs no guitar access of its own, only `impersonate` on users.
   */
  readonly userHeader?: string;
  /** Who may reach the UI: required with userHeader (only the proxy may set the header). @default anyone */
  readonly allowFrom?: k8s.NetworkPolicyPeer[];
  /** @default 2 */
  readonly replicas?: number;
}

export interface GuitarUiProps extends GuitarUiOptions {
  readonly namespace: string;
  readonly image: string;
}

export const UI_NAME = 'guitar-ui';
export const UI_PORT = 8080;

/**
 * What the UI may do: exactly list, watch, read, add and delete guitars, or, behind an
 * authenticating proxy, only impersonate users, whose own RBAC then decides.
 */
export function uiRules(userMode: boolean): PolicyRule[] {
  if (userMode) return [{ apiGroups: [''], resources: ['users'], verbs: ['impersonate'] }];
  return [{ apiGroups: [guitarKind.group], resources: [guitarKind.plural], verbs: ['get', 'list', 'watch', 'create', 'delete'] }];
}

/** The guitar web UI (`cdk8s-operators ui`): its own ServiceAccount, RBAC, Deployment, Service, disruption budget and network policy. */
export class GuitarUi extends Construct {
  constructor(scope: Construct, id: string, props: GuitarUiProps) {
    super(scope, id);
    const { namespace } = props;
    if (props.userHeader && !props.allowFrom?.length) {
      throw new Error('ui.allowFrom: required with ui.userHeader, since whoever reaches the UI directly could name any user in that header');
    }
    const labels = { 'app.kubernetes.io/name': UI_NAME, 'app.kubernetes.io/part-of': PRODUCT };
    const metadata = { name: UI_NAME, namespace, labels };
    const selector = { matchLabels: labels };
    const serviceAccount = new k8s.KubeServiceAccount(this, 'service-account', { metadata });
    const subjects = [{ kind: 'ServiceAccount', name: serviceAccount.name, namespace }];
    const userMode = Boolean(props.userHeader);
    const roleName = `${PRODUCT}:${UI_NAME}`;
    const roleRef = (kind: string) => ({ apiGroup: 'rbac.authorization.k8s.io', kind, name: roleName });

    // Impersonation is cluster-scoped; guitar access is namespaced where the UI is limited to namespaces.
    if (userMode || !props.namespaces?.length) {
      new k8s.KubeClusterRole(this, 'cluster-role', { metadata: { name: roleName, labels }, rules: uiRules(userMode) });
      new k8s.KubeClusterRoleBinding(this, 'cluster-role-binding', { metadata: { name: roleName, labels }, roleRef: roleRef('ClusterRole'), subjects });
    } else {
      for (const ns of props.namespaces) {
        new k8s.KubeRole(this, `role-${ns}`, { metadata: { name: roleName, namespace: ns, labels }, rules: uiRules(false) });
        new k8s.KubeRoleBinding(this, `role-binding-${ns}`, { metadata: { name: roleName, namespace: ns, labels }, roleRef: roleRef('Role'), subjects });
      }
    }

    const args = ['ui', `--port=${UI_PORT}`];
    if (props.namespaces?.length) args.push(`--namespace=${props.namespaces.join(',')}`);
    // Only the proxy can reach the UI then, so its X-Forwarded-Proto and -Host are believed.
    if (props.userHeader) args.push(`--user-header=${props.userHeader}`, '--trust-proxy=true');
    new k8s.KubeDeployment(this, 'deployment', {
      metadata,
      spec: {
        replicas: props.replicas ?? 2,
        selector,
        template: {
          metadata: { labels },
          spec: {
            serviceAccountName: serviceAccount.name,
            automountServiceAccountToken: true,
            securityContext: restrictedPodSecurityContext(IMAGE_UID),
            affinity: spreadOverNodes(selector),
            containers: [
              imageContainer({
                name: 'ui',
                image: props.image,
                args,
                port: UI_PORT,
                requests: { cpu: '50m', memory: '96Mi', 'ephemeral-storage': '16Mi' },
                limits: { cpu: '500m', memory: '256Mi', 'ephemeral-storage': '256Mi' },
              }),
            ],
          },
        },
      },
    });

    new k8s.KubeService(this, 'service', {
      metadata,
      spec: { selector: labels, ports: [{ name: 'http', port: 80, targetPort: k8s.IntOrString.fromString('http'), protocol: 'TCP' }] },
    });
    new k8s.KubePodDisruptionBudget(this, 'disruption-budget', { metadata, spec: { selector, minAvailable: k8s.IntOrString.fromNumber(1) } });

    new k8s.KubeNetworkPolicy(this, 'network-policy', {
      metadata,
      spec: {
        podSelector: selector,
        policyTypes: ['Ingress', 'Egress'],
        ingress: [{ ports: [tcpPort(UI_PORT)], ...(props.allowFrom?.length ? { from: props.allowFrom } : {}) }],
        // DNS, and the API server (443 through the kubernetes Service, 6443 to its endpoints); nothing else.
        egress: [dnsEgress(), { ports: [tcpPort(443), tcpPort(6443)] }],
      },
    });
  }
}
