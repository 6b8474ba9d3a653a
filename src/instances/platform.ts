import { Construct } from 'constructs';
import { RegistryMirror } from '../../imports/k8s.osp.tech';
import { Database } from '../../imports/stable.imaginedata.com';

/**
 * The platform team's resources, declared with the classes `cdk8s import` generated from our
 * CRDs, so the compiler checks every field name and type before synth checks the values.
 */
export default function platform(scope: Construct): void {
  // Cluster-scoped: a mirror has no namespace.
  new RegistryMirror(scope, 'quay', { metadata: { name: 'quay' }, spec: { upstreamUrl: 'quay.io' } });
  new Database(scope, 'orders', {
    metadata: { name: 'orders', namespace: 'team-a' },
    spec: { name: 'orders', port: 5432, storageSize: '1Gi', image: 'postgres:17', replicas: 1, backup: { schedule: '0 3 * * *', retention: 7 } },
  });
}
