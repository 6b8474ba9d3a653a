import { k8s } from 'cdk8s-plus-27';
import { Construct } from 'constructs';
import { MIRRORS_NAMESPACE } from './names';

/**
 * The namespace every mirror's children live in. It must admit the node-configuring
 * DaemonSet (root and a hostPath), so Pod Security enforces `privileged` here; it still
 * warns about and audits everything the `restricted` profile forbids, so any other Pod that
 * slips from it is reported.
 */
export class RegistryMirrorsNamespace extends Construct {
  constructor(scope: Construct, id: string) {
    super(scope, id);
    new k8s.KubeNamespace(this, 'namespace', {
      metadata: {
        name: MIRRORS_NAMESPACE,
        labels: {
          'pod-security.kubernetes.io/enforce': 'privileged',
          'pod-security.kubernetes.io/warn': 'restricted',
          'pod-security.kubernetes.io/warn-version': 'latest',
          'pod-security.kubernetes.io/audit': 'restricted',
          'pod-security.kubernetes.io/audit-version': 'latest',
        },
      },
    });
  }
}
