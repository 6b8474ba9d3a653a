import { Construct } from 'constructs';
import { RegistryMirror } from '../../../imports/k8s.osp.tech';

/** A pull-through cache of Docker Hub, anonymous. RegistryMirror is cluster-scoped, so the examples' namespace does not apply. */
export function registryMirrorExample(scope: Construct, _namespace: string): RegistryMirror {
  return new RegistryMirror(scope, 'docker-hub', { metadata: { name: 'docker-hub' }, spec: { upstreamUrl: 'registry-1.docker.io' } });
}
