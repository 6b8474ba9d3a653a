import { keptOnDelete } from './kit/child-policy';
import { AnyKind, apiVersionOf, KubeJson } from './contract/kind';
import { Manifest } from './render';

/**
 * A child with the controller ownerReference the reconciler gives it, where Kubernetes allows
 * one (same namespace, or a cluster-scoped owner), the owner exists (has a uid) and the child
 * may go with it (not kept on delete, not kept until the finalizer's release). The reconciler
 * applies exactly this; the diff command predicts with it what the controller will apply.
 */
export function withOwner<T extends Pick<Manifest, 'metadata'>>(child: T, owner: { metadata: { name: string; namespace?: string; uid?: string } }, kind: AnyKind): T {
  const sameScope = !owner.metadata.namespace || owner.metadata.namespace === child.metadata.namespace;
  if (!sameScope || !owner.metadata.uid || keptOnDelete(child as { metadata: { annotations?: unknown } }) || keptUntilRelease(kind, child)) return child;
  const ownerReference = { apiVersion: apiVersionOf(kind), kind: kind.kind, name: owner.metadata.name, uid: owner.metadata.uid, controller: true, blockOwnerDeletion: true };
  return { ...child, metadata: { ...child.metadata, ownerReferences: [ownerReference] } };
}

/** Whether the kind keeps this child until its finalizer is released (see KindController.keptUntilRelease). */
export function keptUntilRelease(kind: AnyKind, child: Pick<Manifest, 'metadata'>): boolean {
  const kept = kind.controller?.keptUntilRelease;
  if (!kept) return false;
  // Without both nothing waits for the children it keeps: they would only lose their owner.
  if (!kind.finalizer || !kind.controller?.mayRelease) throw new Error(`${kind.kind}: controller.keptUntilRelease needs a finalizer and controller.mayRelease, which wait for the children it keeps`);
  return kept(child as KubeJson);
}
