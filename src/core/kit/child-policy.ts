import { ENGINE_DOMAIN } from '../install/identity';
import type { Permission } from '../contract/kind';

/**
 * Annotations a rendered child carries to tell the engine how to treat it, where the usual
 * "own it, apply it, prune it when no longer rendered" would be wrong. Any kind may use them.
 */

/**
 * The child outlives its owner: the engine sets no ownerReference on it (so the garbage
 * collector leaves it alone) and never deletes it, not even when it is no longer rendered.
 * Only a person deletes it (e.g. a volume of backups).
 */
export const KEEP_ON_DELETE_ANNOTATION = `${ENGINE_DOMAIN}/keep-on-delete`;

/**
 * The child is created once when missing and never updated, patched or re-applied, so what
 * it holds is never overwritten (e.g. a generated password); `get` and `create` suffice.
 */
export const CREATE_ONLY_ANNOTATION = `${ENGINE_DOMAIN}/create-only`;

/**
 * The child is an object an earlier operator created for this very owner, without the
 * engine's labels (e.g. with a name it generated): the engine only ever writes it over an
 * existing object whose ownerReference names the owner (by uid, no other controller), taking
 * it over; it never creates it, so once someone deletes it, it stays deleted.
 */
export const ADOPT_EXISTING_ANNOTATION = `${ENGINE_DOMAIN}/adopt-existing`;

type Annotated = { metadata: { annotations?: unknown; [key: string]: unknown } };

export const keptOnDelete = (child: Annotated): boolean => annotation(child, KEEP_ON_DELETE_ANNOTATION) === 'true';
export const createdOnly = (child: Annotated): boolean => annotation(child, CREATE_ONLY_ANNOTATION) === 'true';
export const adoptsExisting = (child: Annotated): boolean => annotation(child, ADOPT_EXISTING_ANNOTATION) === 'true';

function annotation(child: Annotated, key: string): string | undefined {
  return (child.metadata.annotations as Record<string, string> | undefined)?.[key];
}

/**
 * Whether a permission names collections of the kind's children: what it creates, and lists
 * and watches to apply and prune. What it only reads is a related watch, not a child.
 */
export function isChildCollection(permission: Pick<Permission, 'verbs'>): boolean {
  return permission.verbs.includes('create') && permission.verbs.includes('list') && permission.verbs.includes('watch');
}
