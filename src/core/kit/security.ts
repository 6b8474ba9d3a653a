import { k8s } from 'cdk8s-plus-27';

/**
 * The restricted Pod Security profile, which every pod we create follows (the one
 * documented exception being the registry mirror's node-configuring DaemonSet).
 */
export function restrictedPodSecurityContext(uid: number): k8s.PodSecurityContext {
  return {
    runAsNonRoot: true,
    runAsUser: uid,
    runAsGroup: uid,
    fsGroup: uid,
    // Walking a large volume on every start to change its group is slow and needless once done.
    fsGroupChangePolicy: 'OnRootMismatch',
    seccompProfile: { type: 'RuntimeDefault' },
  };
}

export function restrictedContainerSecurityContext(uid: number): k8s.SecurityContext {
  return {
    runAsNonRoot: true,
    runAsUser: uid,
    runAsGroup: uid,
    readOnlyRootFilesystem: true,
    allowPrivilegeEscalation: false,
    capabilities: { drop: ['ALL'] },
    seccompProfile: { type: 'RuntimeDefault' },
  };
}
