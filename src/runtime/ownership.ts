import { keptOnDelete } from '../core/kit/child-policy';
import { AnyKind, KubeJson } from '../core/contract/kind';
import { MANAGED_BY_LABEL, OWNER_KIND_LABEL, OWNER_NAME_LABEL, OWNER_NAMESPACE_LABEL } from '../core/kit/names';
import { objectKey } from '../kube/objects';

/**
 * Whose a child is, and what may be done to it: the one place the controller and
 * `diff` (which predicts what the controller will do) ask.
 */

const OWNER_LABELS = [MANAGED_BY_LABEL, OWNER_KIND_LABEL, OWNER_NAME_LABEL, OWNER_NAMESPACE_LABEL];

type Child = Pick<KubeJson, 'apiVersion' | 'kind' | 'metadata'>;

/** A child's identity across collections: `apiVersion/Kind/namespace/name`. */
export const childId = (child: Child): string => `${child.apiVersion}/${child.kind}/${objectKey(child)}`;

/** `ConfigMap team-a/settings`, as status, Events, logs and diff name a child. */
export function describeChild(child: { kind: string; metadata: { name: string; namespace?: string } }): string {
  return `${child.kind} ${objectKey(child)}`;
}

/**
 * Whether a live object is this owner's, by the labels the engine puts on every child: an
 * object without them (a user's own, another owner's) is never applied over, edited or deleted.
 */
export function claims(ownerLabels: Readonly<Record<string, string>>, live: Pick<KubeJson, 'metadata'>): boolean {
  const labels = (live.metadata.labels ?? {}) as Record<string, string>;
  return OWNER_LABELS.every((label) => labels[label] === ownerLabels[label]);
}

/** Whether a live object's ownerReferences name this owner (by uid) and no other controller: made for it, by whichever operator. */
export function ownedBy(ownerUid: string | undefined, live: Pick<KubeJson, 'metadata'>): boolean {
  const references = (live.metadata.ownerReferences ?? []) as { uid?: string; controller?: boolean }[];
  return !!ownerUid && references.some((r) => r.uid === ownerUid) && !controlledByAnother(ownerUid, live);
}

/**
 * Whether another object is the live object's controller: what a controller makes from a
 * template of ours carries our labels too (a CronJob's Jobs), yet it is its maker's to delete.
 */
export function controlledByAnother(ownerUid: string | undefined, live: Pick<KubeJson, 'metadata'>): boolean {
  const references = (live.metadata.ownerReferences ?? []) as { uid?: string; controller?: boolean }[];
  return references.some((r) => r.controller && r.uid !== ownerUid);
}

/**
 * Whether the owner deletes this live child once its render no longer holds it: only a child
 * its labels claim, that no other object controls, and that is not kept on delete (a volume
 * of backups outlives every render).
 */
export function prunable(ownerLabels: Readonly<Record<string, string>>, ownerUid: string | undefined, live: Pick<KubeJson, 'metadata'>): boolean {
  return claims(ownerLabels, live) && !controlledByAnother(ownerUid, live) && !keptOnDelete(live);
}

/** The owner of a child: its controller reference (of this group), or (across namespaces, where there is none) its labels. */
export function ownerOf(kind: AnyKind, child: Child): { namespace?: string; name: string } | undefined {
  const refs = (child.metadata.ownerReferences ?? []) as { apiVersion: string; kind: string; name: string; controller?: boolean }[];
  const ref = refs.find((r) => r.controller && r.kind === kind.kind && r.apiVersion.split('/')[0] === kind.group);
  const labels = (child.metadata.labels ?? {}) as Record<string, string>;
  const name = ref?.name ?? labels[OWNER_NAME_LABEL];
  if (!name) return undefined;
  if (kind.scope !== 'Namespaced') return { name };
  return { namespace: ref ? child.metadata.namespace : labels[OWNER_NAMESPACE_LABEL], name };
}
