import { k8s } from 'cdk8s-plus-27';

/**
 * Prefers one selected pod per node, where the nodes allow it, so that a node going down takes
 * at most one of them; only preferred, so a one-node cluster still runs them all. The manifest
 * linter asks for it on every workload that may run more than one pod.
 */
export function spreadOverNodes(selector: k8s.LabelSelector): k8s.Affinity {
  return {
    podAntiAffinity: {
      preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, podAffinityTerm: { topologyKey: 'kubernetes.io/hostname', labelSelector: selector } }],
    },
  };
}
