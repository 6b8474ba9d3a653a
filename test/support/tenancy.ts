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
  return { username: `system:serviceaccount:${namespace}:${name}`, namespace, objects: actingAs(admin, { namespace, name }) };
}

/** A client whose every request the API server takes as the ServiceAccount's (the admin's connection, impersonating it), e.g. the controller's. */
export function actingAs(admin: ObjectClient, serviceAccount: { namespace: string; name: string }): ObjectClient {
  const username = `system:serviceaccount:${serviceAccount.namespace}:${serviceAccount.name}`;
  const connection = withHeaders(admin.rest.connection, { 'Impersonate-User': username, 'Impersonate-Group': serviceAccountGroups(serviceAccount.namespace) });
  return new ObjectClient(new KubeRest(connection), admin.fieldManager);
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
