import { App } from 'cdk8s';
import { KubeObject, ObjectClient } from '../../src/kube/objects';
import { buildApp } from '../../src/app';
import { PRODUCT_NAMES } from '../../src/product';
import { untilBound } from './tenancy';

/** The install's ClusterRoles by name, as synth writes them. */
export function installClusterRole(name: string): KubeObject {
  const role = (buildApp(new App(), { instances: [] })[1].toJson() as KubeObject[]).find((o) => o.kind === 'ClusterRole' && o.metadata.name === name);
  if (!role) throw new Error(`the install has no ClusterRole ${name}`);
  return role;
}

/** The name of the ClusterRoleBinding metricsReaderToken makes (cluster-wide: delete it when done). */
export const readerBinding = (namespace: string, serviceAccount: string) => `${namespace}-${serviceAccount}-metrics-reader`;

/** A token of ServiceAccount `serviceAccount` in `namespace`, bound to the install's metrics-reader ClusterRole, as a Prometheus' would be. */
export async function metricsReaderToken(admin: ObjectClient, namespace: string, serviceAccount = 'prometheus'): Promise<string> {
  await admin.apply(installClusterRole(PRODUCT_NAMES.metricsReaderRole));
  await admin.apply({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: serviceAccount, namespace } });
  await admin.apply({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: readerBinding(namespace, serviceAccount) },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: PRODUCT_NAMES.metricsReaderRole },
    subjects: [{ kind: 'ServiceAccount', name: serviceAccount, namespace }],
  } as KubeObject);
  await untilBound(admin, `system:serviceaccount:${namespace}:${serviceAccount}`, PRODUCT_NAMES.metricsReaderRole);
  const token = await admin.rest.request<{ status: { token: string } }>('POST', `/api/v1/namespaces/${namespace}/serviceaccounts/${serviceAccount}/token`, {
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } },
  });
  return token.status.token;
}
