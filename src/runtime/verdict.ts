import { AnyKind, KindCondition, ReadyVerdict, ReconcileOutcome } from '../core/contract/kind';
import { isNotFound } from '../kube/rest';
import { Owner, ReconcileContext } from './reconcile-context';
import { kindConditions, statusPatch, verdictConditions, withRemovals } from './status';
import { statusWrittenBy } from './status-ownership';

/** The engine's Ready when the kind gives none: conflicts first, then a failed child, then children not ready yet; else Ready. */
export function engineVerdict(kind: AnyKind, outcome: ReconcileOutcome): ReadyVerdict {
  if (outcome.conflicts.length) {
    return { status: 'False', reason: 'Conflict', message: `left alone ${listed(outcome.conflicts)}: they exist and ${kind.kind} does not manage them` };
  }
  const failed = outcome.children.find((c) => c.failed);
  if (failed) return { status: 'False', reason: 'ChildFailed', message: `${failed.child} ${failed.message}` };
  const waiting = outcome.children.filter((c) => !c.ready);
  if (waiting.length) {
    return { status: 'False', reason: 'ChildNotReady', message: `${waiting[0].child}: ${waiting[0].message}${waiting.length > 1 ? `; ${waiting.length - 1} more children not ready` : ''}` };
  }
  const n = outcome.served.length;
  return { status: 'True', reason: kind.controller?.readyReason ?? 'Reconciled', message: n === 1 ? '1 child ready' : `${n} children ready` };
}

function listed(items: readonly string[], max = 10): string {
  return items.length <= max ? items.join(', ') : `${items.slice(0, max).join(', ')} and ${items.length - max} more`;
}

/**
 * Writes the verdict, the kind's conditions and its status only when they changed (one write), and
 * records an Event when Ready changes. `kindStatus` undefined leaves the kind's fields as they are
 * (a spec it cannot render); given, a field it wrote before and leaves out now is removed. An
 * object deleted meanwhile has no status to write: that answers 'gone', and is no failure.
 */
export async function writeStatus(ctx: ReconcileContext, resource: Owner, verdict: ReadyVerdict, kindStatus?: object, kindOwn: readonly KindCondition[] = []): Promise<'written' | 'gone'> {
  const conditions = [...verdictConditions(ctx.kind, resource, verdict, ctx.clock), ...kindConditions(ctx.kind, resource, kindOwn, ctx.clock)];
  const ready = conditions[0];
  const fields = kindStatus === undefined ? {} : withRemovals(resource.status, kindStatus, ctx.kind.status.openApi, statusWrittenBy(ctx.objects.fieldManager, resource));
  const patch = statusPatch(resource, conditions, fields);
  if (!patch) return 'written';
  let result: Owner;
  try {
    result = await ctx.objects.patchStatus<Owner>(resource, patch, { fieldManager: ctx.ownerFieldManager });
  } catch (err) {
    if (!isNotFound(err)) throw err;
    return 'gone';
  }
  ctx.ownerWrites.record(resource, result);
  const previous = (resource.status as { conditions?: { type: string; status: string; reason: string }[] } | undefined)?.conditions?.find((c) => c.type === 'Ready');
  if (previous?.status !== ready.status || previous?.reason !== ready.reason) {
    ctx.events.record(resource, ready.status === 'True' ? 'Normal' : 'Warning', ready.reason, ready.message);
  }
  return 'written';
}
