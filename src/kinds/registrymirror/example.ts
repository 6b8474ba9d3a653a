import { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import { declareResource } from '../../engine/constructs';
import { registryMirrorSpec } from './api';
import { registryMirrorKind } from '.';

/** A pull-through cache of Docker Hub, anonymous. RegistryMirror is cluster-scoped, so the examples' namespace does not apply. */
export function registryMirrorExample(scope: Construct, _namespace: string): ApiObject {
  return declareResource(scope, registryMirrorKind, registryMirrorSpec, { metadata: { name: 'docker-hub' }, spec: { upstreamUrl: 'registry-1.docker.io' } });
}
