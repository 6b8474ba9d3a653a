import { CHILD_VERBS, constructsOnFirstUse, imageRepository, KindDefinition } from '../../engine/kind';
import { RegistryMirrorSpec, registryMirrorSpec, RegistryMirrorStatus, registryMirrorStatus } from './api';
import { registryMirrorController, RegistryMirrorObservation } from './controller';
import { CACHE_IMAGE, CONTAINERD_CERTS_DIR, MIRRORS_NAMESPACE, NODE_CONFIG_IMAGE } from './names';
import { registryMirrorMonitoring } from './monitoring';

export * from './api';
export * from './controller';
export * from './names';

/**
 * RegistryMirror: a pull-through cache of a container registry that every node's containerd
 * pulls through (drop-in for the k8s.osp.tech operator). Cluster-scoped; its children live
 * in the registry-mirrors namespace and are owned by it across the scope boundary.
 */
export const registryMirrorKind: KindDefinition<RegistryMirrorSpec, RegistryMirrorStatus, RegistryMirrorObservation> = {
  group: 'k8s.osp.tech',
  version: 'v1',
  kind: 'RegistryMirror',
  plural: 'registrymirrors',
  singular: 'registrymirror',
  shortNames: ['rm'],
  scope: 'Cluster',
  // It changes every node's containerd: writing it is for whom an administrator binds, not for every editor.
  userAccess: 'view',
  description:
    'RegistryMirror runs a pull-through cache of a container registry in the registry-mirrors namespace and points ' +
    'every node\u2019s containerd at it, so images from that registry are pulled once per cluster.',
  spec: registryMirrorSpec,
  status: registryMirrorStatus,
  printerColumns: [
    { name: 'Upstream', type: 'string', jsonPath: '.spec.upstreamUrl', description: 'The registry mirrored.', selectable: true },
    { name: 'Endpoint', type: 'string', jsonPath: '.status.endpoint', description: 'Where the mirror answers inside the cluster.' },
    { name: 'Nodes', type: 'integer', jsonPath: '.status.nodesConfigured', description: 'Nodes whose containerd pulls through the mirror.' },
  ],
  manages: [
    // The credentials Secret is referenced by name from the Pod: its values are never read.
    { apiGroup: '', resources: ['services', 'persistentvolumeclaims'], verbs: CHILD_VERBS },
    { apiGroup: 'apps', resources: ['statefulsets', 'daemonsets'], verbs: CHILD_VERBS },
    { apiGroup: 'networking.k8s.io', resources: ['networkpolicies'], verbs: CHILD_VERBS },
    // Which Secrets exist (not their values: the watch asks for metadata) and how the node pods fare, in the mirrors' namespace only.
    { apiGroup: '', resources: ['secrets', 'pods'], verbs: ['list', 'watch'], namespace: MIRRORS_NAMESPACE },
    // Whether the PriorityClass spec.priorityClass names exists (setting priorityClassName on a Pod needs no access at all).
    { apiGroup: 'scheduling.k8s.io', resources: ['priorityclasses'], verbs: ['list', 'watch'] },
  ],
  renders: {
    images: [imageRepository(CACHE_IMAGE), imageRepository(NODE_CONFIG_IMAGE)],
    hostAccess: [
      {
        resource: 'daemonsets',
        namespace: MIRRORS_NAMESPACE,
        hostPaths: [CONTAINERD_CERTS_DIR],
        reason: 'the node DaemonSet writes containerd\u2019s hosts.toml on every node',
      },
    ],
  },
  controller: registryMirrorController,
  monitoring: registryMirrorMonitoring,
  ...constructsOnFirstUse(() => (require('./constructs') as typeof import('./constructs')).registryMirrorConstructs, { example: true, install: true }),
};

/** The definition src/kinds/index.ts registers (every kind's index.ts exports it as `kind`). */
export { registryMirrorKind as kind };
