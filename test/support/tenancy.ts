import { withHeaders } from '../../src/kube/connection';
import { KubeObject, ObjectClient } from '../../src/kube/objects';
import { KubeRest } from '../../src/kube/rest';
import { writeKubeconfig } from '../../src/testing/controlplane/credentials';
import { eventually } from '../../src/testing/cluster';

/**
 * Acting as the users a real cluster has, rather than as the admin: a namespace's editor is a
 * ServiceAccount bound to the built-in `edit` ClusterRole in that namespace alone (the role our
 * kinds' `create` is aggregated into, by the control plane's aggregation controller), and every
 * request it makes is the API server's to authorize, through impersonation of that account.
 */
export interface NamespaceEditor {
  /** `system:serviceaccount:<namespace>:<name>`, the user the API server sees. */
  readonly username: string;
  readonly namespace: string;
  /** Requests made as the editor (the admin's connection, impersonating it). */
  readonly objects: ObjectClient;
}

/** The groups the API server gives a ServiceAccount's token, which an impersonation must name itself. */
const serviceAccountGroups = (namespace: string) => ['system:serviceaccounts', `system:serviceaccounts:${namespace}`, 'system:authenticated'];

/** A client acting as the ServiceAccount `namespace/name` (the admin's connection, impersonating it), e.g. the controller's. */
export function actingAs(admin: ObjectClient, namespace: string, name: string): NamespaceEditor {
  const username = `system:serviceaccount:${namespace}:${name}`;
  const connection = withHeaders(admin.rest.connection, { 'Impersonate-User': username, 'Impersonate-Group': serviceAccountGroups(namespace) });
  return { username, namespace, objects: new ObjectClient(new KubeRest(connection), admin.fieldManager) };
}

/** Binds `edit` in `namespace` to a ServiceAccount there and returns a client acting as it. */
export async function namespaceEditor(admin: ObjectClient, namespace: string, name = 'editor'): Promise<NamespaceEditor> {
  await admin.apply({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace } });
  await admin.apply({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: `${name}-edit`, namespace },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'edit' },
    subjects: [{ kind: 'ServiceAccount', name, namespace }],
  } as KubeObject);
  const editor = actingAs(admin, namespace, name);
  await untilBound(admin, editor.username, 'edit', namespace);
  return editor;
}

/**
 * A ServiceAccount in `namespace` bound to `clusterRole` in every namespace (a ClusterRoleBinding,
 * as platform teams hand out `edit` cluster-wide), and a client acting as it. The binding is
 * named after the account; `unbind` removes it (cluster-scoped, it outlives the namespace).
 */
export async function clusterRoleUser(admin: ObjectClient, clusterRole: string, namespace: string, name: string): Promise<NamespaceEditor & { unbind(): Promise<void> }> {
  await admin.apply({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace } });
  const binding = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: `${namespace}-${name}` },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: clusterRole },
    subjects: [{ kind: 'ServiceAccount', name, namespace }],
  } as KubeObject;
  await admin.apply(binding);
  const user = actingAs(admin, namespace, name);
  await untilBound(admin, user.username, clusterRole);
  return { ...user, unbind: () => admin.delete(binding) };
}

/** A rule of a Role or ClusterRole as the API server returns it. */
interface RoleRule {
  apiGroups?: string[];
  resources?: string[];
  nonResourceURLs?: string[];
  verbs: string[];
  resourceNames?: string[];
}

/**
 * Waits until the API server's authorizer sees a binding just written: it reads bindings from a
 * cache, so a request made at once may still be refused.
 */
export async function untilBound(admin: ObjectClient, username: string, clusterRole: string, namespace?: string): Promise<void> {
  const role = await admin.rest.request<{ rules?: RoleRule[] }>('GET', `/apis/rbac.authorization.k8s.io/v1/clusterroles/${clusterRole}`);
  await untilRulesApply(admin, username, role.rules ?? [], namespace);
}

const plain = (name: string) => name !== '*' && !name.includes('/');

/**
 * Waits until the authorizer grants `username` the first of `rules` a review can ask about (a
 * plain resource of a named group, or a non-resource URL): the sign that its binding is seen.
 * Rules with none such are not waited on.
 */
export async function untilRulesApply(admin: ObjectClient, username: string, rules: RoleRule[], namespace?: string): Promise<void> {
  for (const rule of rules) {
    const verb = rule.verbs.find(plain);
    if (!verb || rule.resourceNames?.length) continue;
    const url = rule.nonResourceURLs?.find(plain);
    const group = rule.apiGroups?.find((g) => g !== '*');
    const resource = rule.resources?.find(plain);
    const attributes = url ? { nonResourceAttributes: { verb, path: url } } : group !== undefined && resource ? { resourceAttributes: { verb, group, resource, ...(namespace ? { namespace } : {}) } } : undefined;
    if (!attributes) continue;
    await eventually(`the authorizer to let ${username} ${verb} ${url ?? `${resource}.${group}`}`, async () => ((await reviewed(admin, username, attributes)) ? true : undefined));
    return;
  }
}

/** The install's ClusterRoles aggregated into view and edit, so that a namespace's editor gains the kinds. */
export async function applyAggregatedRoles(admin: ObjectClient, operatorManifests: KubeObject[]): Promise<void> {
  for (const role of operatorManifests.filter((o) => o.kind === 'ClusterRole' && (o.metadata.labels as Record<string, string> | undefined)?.['rbac.authorization.k8s.io/aggregate-to-edit'])) {
    await admin.apply(role);
  }
}

interface AccessReview {
  status?: { allowed?: boolean };
}

/** Whether `user` may `verb` the `resource` of `group` in `namespace` (all namespaces when none), as the API server decides. */
export function mayDo(admin: ObjectClient, user: string, verb: string, group: string, resource: string, namespace?: string): Promise<boolean> {
  return reviewed(admin, user, { resourceAttributes: { verb, group, resource, ...(namespace ? { namespace } : {}) } });
}

/** The API server's answer to a SubjectAccessReview of `user` (with a ServiceAccount's groups) for `attributes`. */
async function reviewed(admin: ObjectClient, user: string, attributes: Record<string, unknown>): Promise<boolean> {
  const review = await admin.rest.request<AccessReview>('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
    body: {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: { user, groups: user.startsWith('system:serviceaccount:') ? serviceAccountGroups(user.split(':')[2]) : [], ...attributes },
    },
  });
  return review.status?.allowed === true;
}

/**
 * Waits until the aggregation controller has given `edit` the verb on the resource, as it does a
 * moment after the install's aggregated ClusterRoles are applied.
 */
export async function untilEditorMay(admin: ObjectClient, editor: NamespaceEditor, verb: string, group: string, resource: string): Promise<void> {
  await eventually(`the built-in edit role to allow ${verb} on ${resource}.${group} (ClusterRole aggregation)`, async () =>
    (await mayDo(admin, editor.username, verb, group, resource, editor.namespace)) ? true : undefined,
  );
}

/**
 * A kubeconfig at `path` for `server` with a token of the operator's ServiceAccount: a controller
 * started with it has the install's RBAC and nothing more, as its Pod would.
 */
export async function serviceAccountKubeconfig(admin: ObjectClient, path: string, server: string, caPem: string, serviceAccount = { namespace: 'cdk8s-operators', name: 'controller' }): Promise<string> {
  const token = await admin.rest.request<{ status: { token: string } }>('POST', `/api/v1/namespaces/${serviceAccount.namespace}/serviceaccounts/${serviceAccount.name}/token`, {
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } },
  });
  writeKubeconfig(path, server, caPem, token.status.token);
  return path;
}
