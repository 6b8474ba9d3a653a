import { AnyKind, apiVersionOf } from './kind';
import { Manifest } from './render';

/**
 * A child with the controller ownerReference the reconciler gives it, where Kubernetes allows
 * one: same namespace, or a cluster-scoped owner, and an owner that exists (has a uid).
 * The same rule as src/runtime/reconciler.ts's withOwner, for code outside the runtime that
 * must predict what the controller applies (the diff command).
 */
export function withOwner<T extends Pick<Manifest, 'metadata'>>(child: T, owner: { metadata: { name: string; namespace?: string; uid?: string } }, kind: AnyKind): T {
  const sameScope = !owner.metadata.namespace || owner.metadata.namespace === child.metadata.namespace;
  if (!sameScope || !owner.metadata.uid) return child;
  const ownerReference = { apiVersion: apiVersionOf(kind), kind: kind.kind, name: owner.metadata.name, uid: owner.metadata.uid, controller: true, blockOwnerDeletion: true };
  return { ...child, metadata: { ...child.metadata, ownerReferences: [ownerReference] } };
}
