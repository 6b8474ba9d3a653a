import { ApiObject } from 'cdk8s';
import { k8s } from 'cdk8s-plus-27';
import { Construct } from 'constructs';
import { crdName, isExtraIdentity, servedIdentities } from '../core/groups';
import { AnyKind } from '../core/contract/kind';
import { installArgs, installOptions } from '../core/contract/options';
import { kindOptIns } from '../core/contract/opt-ins';
import { hasVersions } from '../core/contract/versions';
import { OperatorNames } from '../core/install/identity';
import { caInjectionRules, certManagerSecretRules, storageMigrationRules, validationCaInjectionRules, COMMON_RULES, METRICS_AUTH_RULES, METRICS_READER_RULES, kindNamespacedRules, kindRules, leaderElectionRules, ownRules, SHARDING_LEASE_RULES, shardingRules, userRules, webhookSecretRules } from './rbac';
import { ControllerDeployment, webhookServiceConfig } from './deployment';
import { validatingWebhookManifest } from './validating-webhook';
import { VALIDATE_PATH, versionedCrdNames, WebhookCertificates } from '../core/install/webhook';
import { CertManagerCertificates, injectCaFrom } from './cert-manager';
import { controllerImage } from './version';
import { ControllerPolicy } from './controller-policy';
import { checkNamespaced } from '../core/install/namespaced';
import type { Companion } from '../core/contract/companion';

export interface OperatorBundleProps {
  /** Whose install it is: every name of it derives from the operator's identity (src/core/install/identity.ts). */
  readonly operator: OperatorNames;
  /** The kinds the controller serves. */
  readonly kinds: readonly AnyKind[];
  /** Namespace the controller runs in. @default the operator's */
  readonly namespace?: string;
  /** The controller image. @default the operator's image repository, tagged with the project's version */
  readonly image?: string;
  /** The kinds' opt-ins to turn on, by name (see KindOptIn): their permissions granted, their controller options passed. @default none */
  readonly optIns?: readonly string[];
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
  /** Workloads shipped beside the controller, in its namespace and image (e.g. a web UI): the served kinds' (variantBundleProps gathers them). @default none */
  readonly companions?: readonly Companion[];
  /** The values of the kinds' install options (OptionSpec.installValue), by option name: passed to the controller as flags. @default none */
  readonly installValues?: Readonly<Record<string, unknown>>;
  /** Image repositories the controller may run beside those the kinds declare (see ControllerPolicy). @default none */
  readonly extraImages?: readonly string[];
  /**
   * The namespaced install: the controller serves objects in these namespaces only (--namespace),
   * and the kinds' rules are Roles there instead of ClusterRoles. Every kind must be one that can
   * be served so (see whyNotNamespaced). @default none: every namespace, ClusterRoles
   */
  readonly watchNamespaces?: readonly string[];
}

export type { Companion } from '../core/contract/companion';

/**
 * What installs the operator: its namespace (restricted Pod Security), identity,
 * least-privilege RBAC derived from the kinds, the controller Deployment with its metrics
 * Service, disruption budget and network policy, and roles for cluster users.
 */
export class OperatorBundle extends Construct {
  readonly namespace: string;

  constructor(scope: Construct, id: string, props: OperatorBundleProps) {
    super(scope, id);
    const names = props.operator;
    const namespace = (this.namespace = props.namespace ?? names.identity.namespace);
    const watchNamespaces = props.watchNamespaces ?? [];
    if (watchNamespaces.length) checkNamespaced(props.kinds, 'watchNamespaces', props.userKinds);
    const optIns = props.optIns ?? [];
    // An opt-in of a kind installed but not served here (--kinds, the namespaced install) turns nothing on; a name no kind declares is a mistake.
    const declared = kindOptIns(props.kinds);
    const installed = kindOptIns([...props.kinds, ...(props.userKinds ?? [])]);
    const unknown = optIns.filter((name) => !installed.some((optIn) => optIn.name === name));
    if (unknown.length) throw new Error(`optIns: no kind declares the opt-in ${unknown.map((n) => `"${n}"`).join(', ')} (they declare: ${installed.map((o) => `"${o.name}"`).join(', ') || 'none'})`);
    const image = props.image ?? controllerImage(names.identity);
    const labels = { 'app.kubernetes.io/name': 'controller', 'app.kubernetes.io/part-of': names.partOf };
    const controllerAccount = { namespace, name: 'controller' };

    // The conversion webhook converts, and the leader migrates, every installed CRD of a kind with versions (userKinds: served here or not).
    const userKinds = props.userKinds ?? props.kinds;
    // Migrating lists every namespace's objects: the namespaced install leaves it to a cluster-wide one (docs/operating.md#stored-versions).
    const migrated = watchNamespaces.length ? [] : userKinds.filter(hasVersions).flatMap((kind) => servedIdentities(kind, props.withoutExtraGroups));

    // First, so that the controller's requests are judged from its first one on.
    new ControllerPolicy(this, 'policy', { names, kinds: props.kinds, serviceAccount: controllerAccount, extraImages: props.extraImages, storageMigrations: migrated, labels });

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
    const serviceAccount = new k8s.KubeServiceAccount(this, 'service-account', { metadata: { ...controllerAccount, labels } });
    const subjects = [{ kind: 'ServiceAccount', name: serviceAccount.name, namespace }];

    const clusterRole = (name: string, rules: k8s.PolicyRule[], roleLabels: Record<string, string> = labels) =>
      new k8s.KubeClusterRole(this, `role-${name}`, { metadata: { name: names.role(name), labels: roleLabels }, rules });
    const bindCluster = (role: k8s.KubeClusterRole) =>
      new k8s.KubeClusterRoleBinding(this, `binding-${role.name}`, {
        metadata: { name: role.name, labels },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role.name },
        subjects,
      });
    bindCluster(clusterRole('controller', COMMON_RULES));
    bindCluster(clusterRole('metrics-auth', METRICS_AUTH_RULES));
    // Bound to no one here: to Prometheus' ServiceAccount by whoever installs Prometheus (docs/monitoring.md).
    clusterRole('metrics-reader', METRICS_READER_RULES);
    const bindInNamespace = (id: string, roleNamespace: string, name: string, rules: k8s.PolicyRule[]) => {
      const role = new k8s.KubeRole(this, `role-${id}`, { metadata: { name: names.role(name), namespace: roleNamespace, labels }, rules });
      new k8s.KubeRoleBinding(this, `binding-${id}`, {
        metadata: { name: role.name, namespace: roleNamespace, labels },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: role.name },
        subjects,
      });
    };
    // The namespaced install grants in each namespace served what the other grants everywhere.
    const bindServed = (name: string, rules: k8s.PolicyRule[]) => {
      if (!watchNamespaces.length) return void bindCluster(clusterRole(name, rules));
      for (const served of watchNamespaces) bindInNamespace(`served-${name}-${served}`, served, name, rules);
    };
    for (const kind of props.kinds) bindServed(kind.plural, kindRules(kind, { optIns }));
    for (const kind of props.kinds) {
      for (const [roleNamespace, rules] of kindNamespacedRules(kind)) bindInNamespace(`${kind.plural}-${roleNamespace}`, roleNamespace, kind.plural, rules);
    }

    const leaseRole = new k8s.KubeRole(this, 'leader-election', {
      metadata: { name: names.role('leader-election'), namespace, labels },
      rules: leaderElectionRules(names.leaderLease),
    });
    new k8s.KubeRoleBinding(this, 'leader-election-binding', {
      metadata: { name: leaseRole.name, namespace, labels },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: leaseRole.name },
      subjects,
    });

    if (props.sharding) {
      const shardRole = new k8s.KubeRole(this, 'sharding', { metadata: { name: names.role('sharding'), namespace, labels }, rules: SHARDING_LEASE_RULES });
      new k8s.KubeRoleBinding(this, 'sharding-binding', {
        metadata: { name: shardRole.name, namespace, labels },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: shardRole.name },
        subjects,
      });
      // One per served group of each kind, so that leaving out a kind or a group leaves out its rule too.
      for (const identity of props.kinds.flatMap((kind) => servedIdentities(kind, props.withoutExtraGroups))) bindServed(`${crdName(identity)}:sharding`, shardingRules(identity));
    }

    /** A Role of the controller's own namespace, bound to it (`<operator>:<name>`). */
    const bindHere = (name: string, rules: k8s.PolicyRule[]) => {
      const role = new k8s.KubeRole(this, name, { metadata: { name: names.role(name), namespace, labels }, rules });
      new k8s.KubeRoleBinding(this, `${name}-binding`, {
        metadata: { name: role.name, namespace, labels },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: role.name },
        subjects,
      });
    };
    const versioned = versionedCrdNames(userKinds, props.withoutExtraGroups);
    const certManager = props.webhookCertificates === 'cert-manager';
    // The kinds' validate hooks, served by the same webhook; cert-manager's cainjector fills its caBundle as it does the CRDs'.
    const validation = validatingWebhookManifest(userKinds, webhookServiceConfig(namespace, VALIDATE_PATH), { withoutExtraGroups: props.withoutExtraGroups, names, annotations: certManager ? injectCaFrom(names, namespace) : undefined });
    if (validation) {
      new ApiObject(this, 'validating-webhook', validation);
      if (!certManager) bindCluster(clusterRole('validating-webhook', validationCaInjectionRules(names.validatingWebhook)));
    }
    const webhook = versioned.length > 0 || validation !== undefined;
    if (versioned.length) {
      // With cert-manager its cainjector fills caBundle: the controller needs no access to the CRDs for it.
      if (!certManager) bindCluster(clusterRole('conversion-webhook', caInjectionRules(versioned)));
      if (migrated.length) bindCluster(clusterRole('storage-migration', storageMigrationRules(migrated, versioned)));
    }
    if (webhook) bindHere('conversion-webhook', certManager ? certManagerSecretRules(names.certManager.secretName) : webhookSecretRules(names.webhookSecret));
    if (certManager) {
      new CertManagerCertificates(this, 'cert-manager', { names, namespace, labels, webhook });
      // The metrics server's certificate, read by name like the webhook's.
      bindHere('metrics-certificate', certManagerSecretRules(names.certManager.metricsSecretName));
    }

    const aggregate = (to: string[]) => Object.fromEntries(to.map((r) => [`rbac.authorization.k8s.io/aggregate-to-${r}`, 'true']));
    clusterRole('view', userRules(userKinds, 'view'), { ...labels, ...aggregate(['view', 'edit', 'admin']) });
    clusterRole('edit', userRules(userKinds, 'edit'), { ...labels, ...aggregate(['edit', 'admin']) });
    // Each extra group of a kind has roles of its own, so that leaving it out removes whole objects (and the main group's stay as they were).
    const extras = (kinds: readonly AnyKind[]) => kinds.flatMap((kind) => servedIdentities(kind, props.withoutExtraGroups).filter(isExtraIdentity));
    for (const identity of extras(props.kinds)) bindServed(crdName(identity), ownRules(identity));
    for (const identity of extras(userKinds)) {
      clusterRole(`${crdName(identity)}:view`, userRules([identity], 'view'), { ...labels, ...aggregate(['view', 'edit', 'admin']) });
      if (userRules([identity], 'edit').length) clusterRole(`${crdName(identity)}:edit`, userRules([identity], 'edit'), { ...labels, ...aggregate(['edit', 'admin']) });
    }
    // Writing a kind that acts beyond namespaces (userAccess view) is in no built-in role: an administrator binds this one on purpose.
    for (const kind of userKinds.filter((k) => k.userAccess === 'view')) {
      clusterRole(`${kind.plural}:edit`, userRules(servedIdentities(kind, props.withoutExtraGroups), 'unaggregated'));
    }

    new ControllerDeployment(this, 'controller', {
      namespace,
      labels,
      serviceAccountName: serviceAccount.name,
      image,
      replicas: props.replicas ?? 2,
      leaseName: names.leaderLease,
      optInSwitches: declared.filter((optIn) => optIns.includes(optIn.name)).map((optIn) => optIn.controllerOption),
      kindOptions: props.kinds.flatMap((kind) => kind.controller?.options ?? []),
      withoutExtraGroups: props.withoutExtraGroups,
      conversionWebhook: webhook,
      webhookCertificates: props.webhookCertificates,
      sharding: props.sharding,
      served: watchNamespaces.length ? { kinds: props.kinds.map((kind) => kind.plural), namespaces: watchNamespaces } : undefined,
      installArgs: installArgs(installOptions(props.kinds), props.installValues ?? {}),
    });

    for (const add of props.companions ?? []) add(this, { namespace, image });
  }
}
