/**
 * Annotations a rendered child carries to tell the controller how to treat it, where the
 * usual "own it, apply it, prune it when no longer rendered" would be wrong.
 */

/**
 * The child outlives its owner: the controller sets no ownerReference on it (so the garbage
 * collector leaves it alone) and never deletes it, not even when it is no longer rendered.
 * Only a person deletes it. Used on the backup volume.
 */
export const KEEP_ON_DELETE_ANNOTATION = 'cdk8s-operators.io/keep-on-delete';

/**
 * The child is created once when missing and never updated, patched or re-applied, so what
 * it holds is never overwritten. Used on the credentials Secret, whose password is generated
 * once; the controller needs only `get` and `create` on it.
 */
export const CREATE_ONLY_ANNOTATION = 'cdk8s-operators.io/create-only';
