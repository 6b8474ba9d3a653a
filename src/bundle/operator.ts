import { k8s } from 'cdk8s-plus-27';
import { Construct } from 'constructs';
import { crdName, isExtraIdentity, servedIdentities } from '../core/groups';
import { AnyKind } from '../core/kind';
import { hasVersions } from '../core/versions';
import { PRODUCT } from '../core/names';
import { caInjectionRules, certManagerSecretRules, storageMigrationRules, COMMON_RULES, kindNamespacedRules, kindRules, leaderElectionRules, ownRules, SHARDING_LEASE_RULES, shardingRules, userRules, webhookSecretRules } from './rbac';
import { ControllerDeployment } from './deployment';
import { CERT_MANAGER, versionedCrdNames, WebhookCertificates, WEBHOOK_TLS_SECRET } from '../core/webhook';
import { CertManagerCertificates } from './cert-manager';
import { controllerImage } from './version';

export interface OperatorBundleProps {
  /** The kinds the controller serves. */
  readonly kinds: readonly AnyKind[];
  /** Namespace the controller runs in. @default cdk8s-operators */
  readonly namespace?: string;
  /** The controller image. @default cdk8s-operators/controller:<the project's version> */
  readonly image?: string;
  /** Allow copying Secrets (CopyratorRule ruleType secret); grants cluster-wide Secret access. @default false */
  readonly secretCopy?: boolean;
  /** Controller replicas; one leads, the others wait. @default 2 */
  readonly replicas?: number;
  /** The kinds cluster users get view and edit roles on: every kind whose CRDs are installed, served or not. @default kinds */
  readonly userKinds?: readonly AnyKind[];
  /** Extra groups of the kinds to leave out, by CRD name (`<plural>.<group>`): no RBAC, and the controller does not wait for them. @default none */
  readonly withoutExtraGroups?: readonly string[];
  /** Who makes the conversion webhook's certificate: the controller (`self`) or cert-manager (its Issuers and Certificate come with the bundle). @default 'self' */
  readonly webhookCertificates?: WebhookCertificates;
  /** Run every replica active, each serving a share of the objects (--sharding), with the RBAC for it. @default false */
  readonly sharding?: boolean;
  /** Workloads shipped beside the controller, in its namespace and image (the guitar web UI). @default none */
  readonly companions?: readonly Companion[];
  /** Values of the options the kinds add to the controller (KindController.options), by option name. @default none */
  readonly kindOptions?: Readonly<Record<string, string>>;
}

/** Adds a workload beside the controller: the bundle knows no kind, so whoever assembles it says what goes with which kind. */
export type Companion = (bundle: Construct, where: { readonly namespace: string; readonly image: string }) => void;

export const DEFAULT_NAMESPACE = PRODUCT;
export const LEADER_LEASE = `${PRODUCT}-leader`;

/**
 * What installs the operator: its namespace (restricted Pod Security), identity,
 * least-privilege RBAC derived from the kinds, the controller Deployment with its metrics
 * Service, disruption budget and network policy, and roles for cluster users.
 */
export class OperatorBundle extends Construct {
  readonly namespace: string;

  constructor(scope: Construct, id: string, props: OperatorBundleProps) {
    super(scope, id);
    const namespace = (this.namespace = props.namespace ?? DEFAULT_NAMESPACE);
    const secretCopy = props.secretCopy ?? false;
    const image = props.image ?? controllerImage();
    const labels = { 'app.kubernetes.io/name': 'controller', 'app.kubernetes.io/part-of': PRODUCT };

    new k8s.KubeNamespace(this, 'namespace', {
      metadata: {
        name: namespace,
        labels: {
          'pod-security.kubernetes.io/enforce': 'restricted',
          'pod-security.kubernetes.io/enforce-version': 'latest',
          'pod-security.kubernetes.io/warn': 'restricted',
          'pod-security.kubernetes.io/audit': 'restricted',
        },
      },
    });
    // Before anything that lives in the namespaces kinds install (e.g. a Role there).
    for (const kind of props.kinds) kind.install?.(this, { operatorNamespace: namespace });
    const serviceAccount = new k8s.KubeServiceAccount(this, 'service-account', { metadata: { name: 'controller', namespace, labels } });
    const subjects = [{ kind: 'ServiceAccount', name: serviceAccount.name, namespace }];

    const clusterRole = (name: string, rules: k8s.PolicyRule[], roleLabels: Record<string, string> = labels) =>
      new k8s.KubeClusterRole(this, `role-${name}`, { metadata: { name: `${PRODUCT}:${name}`, labels: roleLabels }, rules });
    const bindCluster = (role: k8s.KubeClusterRole) =>
      new k8s.KubeClusterRoleBinding(this, `binding-${role.name}`, {
        metadata: { name: role.name, labels },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role.name },
        subjects,
      });
    bindCluster(clusterRole('controller', COMMON_RULES));
    for (const kind of props.kinds) bindCluster(clusterRole(kind.plural, kindRules(kind, { secretCopy })));
    for (const kind of props.kinds) {
      for (const [roleNamespace, rules] of kindNamespacedRules(kind)) {
        const role = new k8s.KubeRole(this, `role-${kind.plural}-${roleNamespace}`, { metadata: { name: `${PRODUCT}:${kind.plural}`, namespace: roleNamespace, labels }, rules });
        new k8s.KubeRoleBinding(this, `binding-${kind.plural}-${roleNamespace}`, {
          metadata: { name: role.name, namespace: roleNamespace, labels },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: role.name },
          subjects,
        });
      }
    }

    const leaseRole = new k8s.KubeRole(this, 'leader-election', {
      metadata: { name: `${PRODUCT}:leader-election`, namespace, labels },
      rules: leaderElectionRules(LEADER_LEASE),
    });
    new k8s.KubeRoleBinding(this, 'leader-election-binding', {
      metadata: { name: leaseRole.name, namespace, labels },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: leaseRole.name },
      subjects,
    });

    if (props.sharding) {
      const shardRole = new k8s.KubeRole(this, 'sharding', { metadata: { name: `${PRODUCT}:sharding`, namespace, labels }, rules: SHARDING_LEASE_RULES });
      new k8s.KubeRoleBinding(this, 'sharding-binding', {
        metadata: { name: shardRole.name, namespace, labels },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: shardRole.name },
        subjects,
      });
      // One per served group of each kind, so that leaving out a kind or a group leaves out its rule too.
      for (const identity of props.kinds.flatMap((kind) => servedIdentities(kind, props.withoutExtraGroups))) bindCluster(clusterRole(`${crdName(identity)}:sharding`, shardingRules(identity)));
    }

    // The conversion webhook converts, and the leader migrates, every installed CRD of a kind with versions (userKinds: served here or not).
    const userKinds = props.userKinds ?? props.kinds;
    const versioned = versionedCrdNames(userKinds, props.withoutExtraGroups);
    const certManager = props.webhookCertificates === 'cert-manager';
    if (versioned.length) {
      // With cert-manager its cainjector fills caBundle: the controller needs no access to the CRDs for it.
      if (!certManager) bindCluster(clusterRole('conversion-webhook', caInjectionRules(versioned)));
      const migrated = userKinds.filter(hasVersions).flatMap((kind) => servedIdentities(kind, props.withoutExtraGroups));
      bindCluster(clusterRole('storage-migration', storageMigrationRules(migrated, versioned)));
      const secretRules = certManager ? certManagerSecretRules(CERT_MANAGER.secretName) : webhookSecretRules(WEBHOOK_TLS_SECRET);
      const secretRole = new k8s.KubeRole(this, 'conversion-webhook', { metadata: { name: `${PRODUCT}:conversion-webhook`, namespace, labels }, rules: secretRules });
      new k8s.KubeRoleBinding(this, 'conversion-webhook-binding', {
        metadata: { name: secretRole.name, namespace, labels },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: secretRole.name },
        subjects,
      });
      if (certManager) new CertManagerCertificates(this, 'cert-manager', { namespace, labels });
    }

    const aggregate = (to: string[]) => Object.fromEntries(to.map((r) => [`rbac.authorization.k8s.io/aggregate-to-${r}`, 'true']));
    clusterRole('view', userRules(userKinds, 'view'), { ...labels, ...aggregate(['view', 'edit', 'admin']) });
    clusterRole('edit', userRules(userKinds, 'edit'), { ...labels, ...aggregate(['edit', 'admin']) });
    // Each extra group of a kind has roles of its own, so that leaving it out removes whole objects (and the main group's stay as they were).
    const extras = (kinds: readonly AnyKind[]) => kinds.flatMap((kind) => servedIdentities(kind, props.withoutExtraGroups).filter(isExtraIdentity));
    for (const identity of extras(props.kinds)) bindCluster(clusterRole(crdName(identity), ownRules(identity)));
    for (const identity of extras(userKinds)) {
      clusterRole(`${crdName(identity)}:view`, userRules([identity], 'view'), { ...labels, ...aggregate(['view', 'edit', 'admin']) });
      clusterRole(`${crdName(identity)}:edit`, userRules([identity], 'edit'), { ...labels, ...aggregate(['edit', 'admin']) });
    }

    new ControllerDeployment(this, 'controller', {
      namespace,
      labels,
      serviceAccountName: serviceAccount.name,
      image,
      replicas: props.replicas ?? 2,
      leaseName: LEADER_LEASE,
      secretCopy,
      withoutExtraGroups: props.withoutExtraGroups,
      conversionWebhook: versioned.length > 0,
      webhookCertificates: props.webhookCertificates,
      sharding: props.sharding,
      kindOptions: props.kindOptions,
    });

    for (const add of props.companions ?? []) add(this, { namespace, image });
  }
}
