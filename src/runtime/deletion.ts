import { childLabels } from '../core/kit/names';
import { KubeObject, objectKey } from '../kube/objects';
import { isNotFound } from '../kube/rest';
import { dropFinalizer } from './finalizer';
import { mapLimited } from './limit';
import { Logger } from './log';
import { childId, describeChild, prunable } from './ownership';
import { CHILD_WRITES_IN_FLIGHT, Owner, ReconcileContext, ReconcileResult } from './reconcile-context';

const deleteIfThere = (ctx: ReconcileContext, child: KubeObject) => ctx.objects.delete(child).catch((err) => (isNotFound(err) ? undefined : Promise.reject(err)));

/** Which children a prune may delete beside the rendered ones it keeps. */
export interface PruneScope {
  /**
   * Only children among these (their ids): the reconcile's one look at them, taken before its
   * observation, so that a child cached meanwhile (one the previous reconcile just created) is
   * never deleted by a render decided without it. Every cached child when absent (the release).
   */
  readonly seen?: ReadonlySet<string>;
  /** Never these (a child kept until the release). */
  readonly spared?: (child: KubeObject) => boolean;
}

/** Deletes the children this owner's labels claim that the render no longer produced (never one kept on delete, nor one out of `scope`). */
export async function prune(ctx: ReconcileContext, owner: Owner, keep: Set<string>, log: Logger, scope: PruneScope = {}): Promise<number> {
  const labels = childLabels(ctx.kind, owner);
  const { seen, spared } = scope;
  const inScope = (child: KubeObject) => (!seen || seen.has(childId(child))) && !spared?.(child);
  const stale = ctx.watches.childrenLabelled(labels).filter((child) => prunable(labels, owner.metadata.uid, child) && !keep.has(childId(child)) && inScope(child));
  await mapLimited(stale, CHILD_WRITES_IN_FLIGHT, async (child) => {
    ctx.budget.spend(childId(child));
    await deleteIfThere(ctx, child);
    ctx.rewrites.forget(childId(child));
    log.info('pruned a child no longer rendered', { child: describeChild(child) });
  });
  return stale.length;
}

/**
 * The last step of a deletion: remove every child we manage, then our finalizer. `kept` are the
 * live children kept until now (KindController.keptUntilRelease), which have no ownerReference:
 * those in no watched collection are deleted by name, as what they are is known (served claims
 * only what its labels name ours), so that removing them needs `delete` but never `list`.
 */
export async function release(ctx: ReconcileContext, resource: Owner, log: Logger, kept: readonly KubeObject[] = []): Promise<ReconcileResult> {
  const watched = new Set(ctx.watches.childrenLabelled(childLabels(ctx.kind, resource)).map(childId));
  const unwatched = kept.filter((child) => !watched.has(childId(child)));
  await mapLimited(unwatched, CHILD_WRITES_IN_FLIGHT, async (child) => {
    await deleteIfThere(ctx, child);
    log.info('removed a child kept until the release', { child: describeChild(child) });
  });
  const pruned = unwatched.length + (await prune(ctx, resource, new Set(), log));
  await dropFinalizer(ctx, resource);
  ctx.watches.release(objectKey(resource));
  log.info('children removed, finalizer released', { pruned });
  return { applied: 0, pruned };
}
