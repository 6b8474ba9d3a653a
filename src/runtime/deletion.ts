import { childLabels } from '../core/names';
import { KubeObject, objectKey } from '../kube/objects';
import { isNotFound } from '../kube/rest';
import { dropFinalizer } from './finalizer';
import { mapLimited } from './limit';
import { Logger } from './log';
import { childId, describeChild, prunable } from './ownership';
import { CHILD_WRITES_IN_FLIGHT, Owner, ReconcileContext, ReconcileResult } from './reconcile-context';

const deleteIfThere = (ctx: ReconcileContext, child: KubeObject) => ctx.objects.delete(child).catch((err) => (isNotFound(err) ? undefined : Promise.reject(err)));

/** Deletes the children this owner's labels claim that the render no longer produced (never one kept on delete, nor one `spared`). */
export async function prune(ctx: ReconcileContext, owner: Owner, keep: Set<string>, log: Logger, spared?: (child: KubeObject) => boolean): Promise<number> {
  const labels = childLabels(ctx.kind, owner);
  const stale = ctx.watches.childrenOf(labels).filter((child) => prunable(labels, owner.metadata.uid, child) && !keep.has(childId(child)) && !spared?.(child));
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
  const watched = new Set(ctx.watches.childrenOf(childLabels(ctx.kind, resource)).map(childId));
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
