import type { AnyKind, Clock, CustomResource, WakeAt } from '../core/contract/kind';

/** Node's timers fire at once beyond this (about 24.8 days); a later wake is reached by waking and asking again. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** When a reconciled object is looked at again, and whether that look waits behind events (the resync's) or not. */
export interface NextLook {
  readonly afterMs: number;
  readonly priority: 'normal' | 'low';
}

/**
 * The next look at an object after a reconcile: the earliest of the kind's wake time (a time
 * past, or 0, is now), a child write held back (`heldMs`), and the resync, a safety net that
 * comes at the latest `resyncMs` after. Only one timer per object is kept: a wake later than the
 * resync is not lost, since the resync's reconcile asks the kind again and finds the same time.
 */
export function nextLook(wakeAt: WakeAt, nowMs: number, resyncMs: number, heldMs?: number): NextLook {
  const wakeMs = wakeAt === undefined || wakeAt === 'never' ? Infinity : Math.max(0, epochMs(wakeAt) - nowMs);
  const soonest = Math.min(wakeMs, heldMs ?? Infinity);
  if (soonest < resyncMs) return { afterMs: soonest, priority: 'normal' };
  return { afterMs: Math.min(resyncMs, MAX_TIMER_MS), priority: 'low' };
}

function epochMs(at: Date | number): number {
  const ms = at instanceof Date ? at.getTime() : at;
  // Neither now (a reconcile without end) nor never (an object left alone) is what was meant.
  if (!Number.isFinite(ms)) throw new Error(`the kind's wakeAt gave an invalid time (${String(at)}): give a Date, epoch milliseconds, 'never' or undefined`);
  return ms;
}

/** The kind's wake time for a reconciled object: its `wakeAt`, or its older `requeueAfterMs` counted from the clock's now. */
export function wakeAtOf(controller: AnyKind['controller'], resource: CustomResource, observation: unknown, clock: Clock): WakeAt {
  if (controller?.wakeAt) return controller.wakeAt(resource, observation, clock);
  const afterMs = controller?.requeueAfterMs?.(resource.spec, observation);
  return afterMs === undefined ? undefined : clock.now().getTime() + afterMs;
}
