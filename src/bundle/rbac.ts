import { k8s } from 'cdk8s-plus-27';
import { METRICS_PATH } from '../core/install/metrics-endpoint';
import { AnyKind, Permission, Verb } from '../core/contract/kind';
import { STORAGE_MIGRATION_GROUP, STORAGE_MIGRATION_RESOURCE } from '../core/install/storage-migration';

export interface PolicyRule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  resourceNames?: string[];
}

export interface RbacOptions {
  /** The opt-ins the install turns on, by name (see KindOptIn): the permissions naming one are granted only then. */
  readonly optIns: readonly string[];
}

const READ: Verb[] = ['get', 'list', 'watch'];

/**
 * Everything the controller may do for one kind, derived from its definition: read its
 * objects, write their status (never their spec), manage finalizers where it uses one, and
 * the child access it declares. No wildcard anywhere.
 */
export function kindRules(kind: AnyKind, options: RbacOptions): PolicyRule[] {
  const children = kind.manages.filter((p) => !p.namespace && (p.optIn === undefined || options.optIns.includes(p.optIn)));
  return [...ownRules(kind), ...mergePermissions(children)];
}

/**
 * What the controller may do to the kind's own objects in its group: read them, write their
 * status (never their spec), manage finalizers where it uses one. An extra group of a kind (see
 * servedIdentities) gets these alone; the children's access is the kind's, granted once.
 */
export function ownRules(kind: AnyKind): PolicyRule[] {
  return [
    // patch on the object itself only adds and removes our finalizer.
    { apiGroups: [kind.group], resources: [kind.plural], verbs: kind.finalizer ? [...READ, 'patch'] : READ },
    { apiGroups: [kind.group], resources: [`${kind.plural}/status`], verbs: ['get', 'patch', 'update'] },
    // Setting blockOwnerDeletion on children's ownerReferences needs this where admission enforces it.
    { apiGroups: [kind.group], resources: [`${kind.plural}/finalizers`], verbs: ['update'] },
  ];
}

/** The access a kind needs in one namespace only, as rules of a Role per namespace. */
export function kindNamespacedRules(kind: AnyKind): Map<string, PolicyRule[]> {
  const byNamespace = new Map<string, Permission[]>();
  for (const p of kind.manages) if (p.namespace) byNamespace.set(p.namespace, [...(byNamespace.get(p.namespace) ?? []), p]);
  return new Map([...byNamespace].map(([namespace, permissions]) => [namespace, mergePermissions(permissions)]));
}

/** What every kind's controller needs: Events on transitions, CRDs to wait for (read only). */
export const COMMON_RULES: PolicyRule[] = [
  { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
  { apiGroups: ['events.k8s.io'], resources: ['events'], verbs: ['create', 'patch'] },
  { apiGroups: ['apiextensions.k8s.io'], resources: ['customresourcedefinitions'], verbs: READ },
];

/** The secure metrics endpoint: each scrape's token reviewed, and its user's access to /metrics, by the API server. */
export const METRICS_AUTH_RULES: PolicyRule[] = [
  { apiGroups: ['authentication.k8s.io'], resources: ['tokenreviews'], verbs: ['create'] },
  { apiGroups: ['authorization.k8s.io'], resources: ['subjectaccessreviews'], verbs: ['create'] },
];

/** Who may scrape /metrics: bound to Prometheus' ServiceAccount by whoever runs it (kubebuilder's metrics-reader). */
export const METRICS_READER_RULES: k8s.PolicyRule[] = [{ nonResourceUrLs: [METRICS_PATH], verbs: ['get'] }];

/** Leader election, in the operator's own namespace only. */
export function leaderElectionRules(leaseName: string): PolicyRule[] {
  return [
    // create cannot be limited by name: the name is not known before the object exists.
    { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create'] },
    { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'update'], resourceNames: [leaseName] },
  ];
}

/**
 * Sharding (--sharding), in the operator's own namespace: each replica's membership Lease, named
 * after its Pod and so not known in advance, and the leader's view of them all (it deletes those of
 * replicas that are gone).
 */
export const SHARDING_LEASE_RULES: PolicyRule[] = [{ apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'list', 'watch', 'update', 'delete'] }];

/** Sharding: the leader labels a kind's objects for their shard (and replicas remove their label to hand one over); children are the kind's already. */
export function shardingRules(kind: AnyKind): PolicyRule[] {
  return [{ apiGroups: [kind.group], resources: [kind.plural], verbs: ['patch'] }];
}

/**
 * Rules for cluster users: aggregated into the built-in view, or edit and admin, roles. Writing
 * aggregates only for kinds whose userAccess allows it; `unaggregated` gives the writing of the
 * others, for a role an administrator binds on purpose.
 */
export function userRules(kinds: readonly AnyKind[], access: 'view' | 'edit' | 'unaggregated'): PolicyRule[] {
  if (access === 'edit') kinds = kinds.filter((kind) => (kind.userAccess ?? 'edit') === 'edit');
  if (access === 'unaggregated') return editRules(kinds.filter((kind) => kind.userAccess === 'view'));
  return access === 'view' ? readRules(kinds) : editRules(kinds);
}

const readRules = (kinds: readonly AnyKind[]) => groupRules(kinds, READ, (p) => [p, `${p}/status`]);
const editRules = (kinds: readonly AnyKind[]) => groupRules(kinds, ['create', 'update', 'patch', 'delete', 'deletecollection'], (p) => [p]);

function groupRules(kinds: readonly AnyKind[], verbs: Verb[], resources: (plural: string) => string[]): PolicyRule[] {
  const byGroup = new Map<string, string[]>();
  for (const kind of kinds) byGroup.set(kind.group, [...(byGroup.get(kind.group) ?? []), kind.plural]);
  return [...byGroup].map(([group, plurals]) => ({ apiGroups: [group], resources: plurals.flatMap(resources), verbs }));
}

/** One rule per API group and verb set, so the same access declared twice is granted once. */
function mergePermissions(permissions: readonly Permission[]): PolicyRule[] {
  const merged = new Map<string, PolicyRule>();
  for (const p of permissions) {
    const verbs = [...new Set(p.verbs)].sort();
    const key = `${p.apiGroup}|${verbs.join(',')}`;
    const rule = merged.get(key) ?? { apiGroups: [p.apiGroup], resources: [], verbs };
    rule.resources = [...new Set([...rule.resources, ...p.resources])].sort();
    merged.set(key, rule);
  }
  return [...merged.values()];
}

/** The conversion webhook's CA injection: get and patch on exactly the CRDs it converts for, by name. */
export function caInjectionRules(crdNames: readonly string[]): PolicyRule[] {
  return [{ apiGroups: ['apiextensions.k8s.io'], resources: ['customresourcedefinitions'], verbs: ['get', 'patch'], resourceNames: [...crdNames] }];
}

/** Injecting the webhook's CA into the ValidatingWebhookConfiguration of the kinds with a `validate` hook: that one, by name. */
export function validationCaInjectionRules(name: string): PolicyRule[] {
  return [{ apiGroups: ['admissionregistration.k8s.io'], resources: ['validatingwebhookconfigurations'], verbs: ['get', 'patch'], resourceNames: [name] }];
}

/**
 * Migrating objects stored in an older version (src/runtime/conversion/migrate.ts), only on its
 * own CRDs by name: by the cluster's StorageVersionMigration API where it serves one (create, and
 * get to follow it; Kubernetes 1.37 serves it by default), else by writing each object back
 * unchanged; then the CRD's storedVersions pruned. `create` cannot be limited by name (the API
 * server authorizes it before the object exists) and a StorageVersionMigration could name any
 * resource: the controller's admission policy admits from it only those of its own CRDs
 * (ControllerPolicy's `storage-migrations`).
 */
export function storageMigrationRules(kinds: readonly AnyKind[], crdNames: readonly string[]): PolicyRule[] {
  return [
    ...kinds.map((kind) => ({ apiGroups: [kind.group], resources: [kind.plural], verbs: ['update'] })),
    { apiGroups: ['apiextensions.k8s.io'], resources: ['customresourcedefinitions/status'], verbs: ['patch'], resourceNames: [...crdNames] },
    { apiGroups: [STORAGE_MIGRATION_GROUP], resources: [STORAGE_MIGRATION_RESOURCE], verbs: ['create', 'get'] },
  ];
}

/** The conversion webhook's certificates: one Secret in the operator's namespace (a Role there). */
export function webhookSecretRules(secretName: string): PolicyRule[] {
  return [
    // create cannot be limited by name: the name is not known before the object exists.
    { apiGroups: [''], resources: ['secrets'], verbs: ['create'] },
    { apiGroups: [''], resources: ['secrets'], verbs: ['get', 'update'], resourceNames: [secretName] },
  ];
}

/** With cert-manager: read the one Secret its Certificate writes; no create, no update (cert-manager writes it). */
export function certManagerSecretRules(secretName: string): PolicyRule[] {
  return [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'], resourceNames: [secretName] }];
}
