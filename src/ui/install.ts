import { dnsEgress, IMAGE_UID, imageContainer, PolicyRule, restrictedPodSecurityContext, spreadOverNodes, tcpPort } from '../engine/constructs';
import { k8s } from 'cdk8s-plus-27';
import { Construct } from 'constructs';
import { GUITAR_API } from '../kinds/guitar/identity';
import { PRODUCT_NAMES } from '../product';
import { SERVICE_ACCOUNT_DIR } from '../engine/client';
import type { AuthMode } from './auth';

export interface GuitarUiOptions {
  /** Show and change guitars in these namespaces only (Roles there instead of a ClusterRole). @default all */
  readonly namespaces?: string[];
  /**
   * With whose rights the UI acts (see src/ui/auth.ts). token: each user's own bearer token, and
   * the UI gets no RBAC and no token of its own; impersonate: the users `impersonation` lists,
   * named by a verified proxy; service-account: its own, for whoever reaches it. @default token
   */
  readonly auth?: AuthMode;
  /** Required with auth impersonate. */
  readonly impersonation?: ImpersonationProps;
  /** Who may reach the UI (the NetworkPolicy's ingress peers). @default anyone */
  readonly allowFrom?: k8s.NetworkPolicyPeer[];
  /** @default 2 */
  readonly replicas?: number;
}

export interface ImpersonationProps {
  /** The header the proxy names the user in, e.g. X-Forwarded-User. */
  readonly userHeader: string;
  /** The only users the UI may impersonate (its ClusterRole's resourceNames). */
  readonly users: string[];
  /** The Secret (in the UI's namespace) holding the secret the proxy sends, mounted as a file, never in the environment. */
  readonly proxySecret: { readonly name: string; readonly key: string };
  /** @default X-Proxy-Secret */
  readonly proxySecretHeader?: string;
}

export interface GuitarUiProps extends GuitarUiOptions {
  readonly namespace: string;
  readonly image: string;
}

export const UI_NAME = 'guitar-ui';
export const UI_PORT = 8080;
const PROXY_SECRET_DIR = '/etc/guitar-ui/proxy';

/**
 * What the UI's own ServiceAccount may do: nothing with users' tokens (the API server checks
 * each user's), impersonate the listed users only, or exactly list, watch, read, add and delete
 * guitars when it acts as itself.
 */
export function uiRules(auth: AuthMode, users: readonly string[] = []): PolicyRule[] {
  switch (auth) {
    case 'token':
      return [];
    case 'impersonate':
      return [{ apiGroups: [''], resources: ['users'], verbs: ['impersonate'], resourceNames: [...users] }];
    case 'service-account':
      return [{ apiGroups: [GUITAR_API.group], resources: [GUITAR_API.plural], verbs: ['get', 'list', 'watch', 'create', 'delete'] }];
  }
}

/** The guitar web UI (`cdk8s-operators ui`): its own ServiceAccount, RBAC, Deployment, Service, disruption budget and network policy. */
export class GuitarUi extends Construct {
  constructor(scope: Construct, id: string, props: GuitarUiProps) {
    super(scope, id);
    const { namespace } = props;
    const auth = props.auth ?? 'token';
    const impersonation = props.impersonation;
    if (auth === 'impersonate' && !impersonation?.users.length) throw new Error('ui.impersonation: required with ui.auth impersonate (userHeader, users, proxySecret)');
    if (auth !== 'impersonate' && impersonation) throw new Error(`ui.impersonation: only taken with ui.auth impersonate (got ${auth})`);
    const labels = { 'app.kubernetes.io/name': UI_NAME, 'app.kubernetes.io/part-of': PRODUCT_NAMES.partOf };
    const metadata = { name: UI_NAME, namespace, labels };
    const selector = { matchLabels: labels };
    // With users' tokens the Pod holds no token of its own: the ServiceAccount only names the Pod.
    const serviceAccount = new k8s.KubeServiceAccount(this, 'service-account', { metadata, automountServiceAccountToken: auth !== 'token' });
    const subjects = [{ kind: 'ServiceAccount', name: serviceAccount.name, namespace }];
    const roleName = PRODUCT_NAMES.role(UI_NAME);
    const roleRef = (kind: string) => ({ apiGroup: 'rbac.authorization.k8s.io', kind, name: roleName });
    const rules = uiRules(auth, impersonation?.users);

    // Impersonation is cluster-scoped; guitar access is namespaced where the UI is limited to namespaces.
    if (auth === 'impersonate' || (auth === 'service-account' && !props.namespaces?.length)) {
      new k8s.KubeClusterRole(this, 'cluster-role', { metadata: { name: roleName, labels }, rules });
      new k8s.KubeClusterRoleBinding(this, 'cluster-role-binding', { metadata: { name: roleName, labels }, roleRef: roleRef('ClusterRole'), subjects });
    } else if (auth === 'service-account') {
      for (const ns of props.namespaces!) {
        new k8s.KubeRole(this, `role-${ns}`, { metadata: { name: roleName, namespace: ns, labels }, rules });
        new k8s.KubeRoleBinding(this, `role-binding-${ns}`, { metadata: { name: roleName, namespace: ns, labels }, roleRef: roleRef('Role'), subjects });
      }
    }

    const args = ['ui', `--port=${UI_PORT}`];
    if (props.namespaces?.length) args.push(`--namespace=${props.namespaces.join(',')}`);
    if (auth !== 'token') args.push(`--auth=${auth}`);
    const volumes: k8s.Volume[] = [];
    const volumeMounts: k8s.VolumeMount[] = [];
    if (auth === 'token') {
      // The API server's CA where an in-cluster client looks for it, and no token beside it.
      volumes.push({ name: 'api-server-ca', projected: { sources: [{ configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } }] } });
      volumeMounts.push({ name: 'api-server-ca', mountPath: SERVICE_ACCOUNT_DIR, readOnly: true });
    }
    if (impersonation) {
      // Only the proxy knows the secret, so its X-Forwarded-Proto and -Host are believed too.
      args.push(
        `--user-header=${impersonation.userHeader}`,
        `--impersonate-users=${impersonation.users.join(',')}`,
        `--proxy-secret-file=${PROXY_SECRET_DIR}/secret`,
        `--proxy-secret-header=${impersonation.proxySecretHeader ?? 'X-Proxy-Secret'}`,
        '--trust-proxy=true',
      );
      volumes.push({ name: 'proxy-secret', secret: { secretName: impersonation.proxySecret.name, items: [{ key: impersonation.proxySecret.key, path: 'secret' }] } });
      volumeMounts.push({ name: 'proxy-secret', mountPath: PROXY_SECRET_DIR, readOnly: true });
    }
    new k8s.KubeDeployment(this, 'deployment', {
      metadata,
      spec: {
        replicas: props.replicas ?? 2,
        selector,
        template: {
          metadata: { labels },
          spec: {
            serviceAccountName: serviceAccount.name,
            automountServiceAccountToken: auth !== 'token',
            ...(volumes.length ? { volumes } : {}),
            securityContext: restrictedPodSecurityContext(IMAGE_UID),
            affinity: spreadOverNodes(selector),
            containers: [
              {
                ...imageContainer({
                  name: 'ui',
                  image: props.image,
                  args,
                  port: UI_PORT,
                  requests: { cpu: '50m', memory: '96Mi', 'ephemeral-storage': '16Mi' },
                  limits: { cpu: '500m', memory: '256Mi', 'ephemeral-storage': '256Mi' },
                }),
                ...(volumeMounts.length ? { volumeMounts } : {}),
              },
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
