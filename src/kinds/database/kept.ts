import { KubeJson } from '../../engine/kind';

/** Kinds of the children that serve the final snapshot; of the Jobs, only the snapshot's own. */
const SNAPSHOT_SERVES = new Set(['Secret', 'Service', 'StatefulSet', 'NetworkPolicy']);

/**
 * The children kept until the finalizer is released (see KindController.keptUntilRelease):
 * what the final snapshot needs, and so what the Database renders while it is deleted. The
 * Job itself; the Secrets (the credentials and the certificate of `-tls` it logs in with,
 * and `-app`); the Services it connects through (the StatefulSets' pods keep their DNS
 * names); the StatefulSets, whose data claims go with them;
 * the NetworkPolicies, so the server is no more open while it is deleted. Without an
 * ownerReference, no foreground deletion takes them before the snapshot succeeded, and an
 * owned child rendered meanwhile would be deleted again each time it was created. The init
 * Job, the backup CronJob and the upgrade Jobs keep theirs; the backup claim never has one.
 */
export function keptUntilSnapshot(child: KubeJson): boolean {
  if (SNAPSHOT_SERVES.has(child.kind)) return true;
  const component = (child.spec as { template?: { metadata?: { labels?: Record<string, string> } } } | undefined)?.template?.metadata?.labels?.['app.kubernetes.io/component'];
  return child.kind === 'Job' && component === 'snapshot';
}
