import { withHeaders } from '../../src/kube/connection';
import { KubeObject, ObjectClient } from '../../src/kube/objects';
import { KubeRest } from '../../src/kube/rest';
import { writeKubeconfig } from '../controlplane/credentials';
import { eventually } from './cluster';

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
  return actingAs(admin, namespace, name);
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
  return { ...actingAs(admin, namespace, name), unbind: () => admin.delete(binding) };
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
export async function mayDo(admin: ObjectClient, user: string, verb: string, group: string, resource: string, namespace?: string): Promise<boolean> {
  const review = await admin.rest.request<AccessReview>('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
    body: {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: { user, groups: user.startsWith('system:serviceaccount:') ? serviceAccountGroups(user.split(':')[2]) : [], resourceAttributes: { verb, group, resource, ...(namespace ? { namespace } : {}) } },
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
