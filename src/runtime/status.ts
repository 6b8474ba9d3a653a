import { AnyKind, CustomResource, ReadyVerdict } from '../core/kind';
import { Condition, failureReasons } from '../core/status';
import { metaTime } from '../kube/time';
import { matches } from './matches';

export type { Condition };

type StatusWithConditions = { conditions?: Condition[]; observedGeneration?: number };

/** The conditions the engine owns: Ready, and kstatus's abnormal-true pair that says why it is not. */
const ENGINE_CONDITIONS = new Set(['Ready', 'Reconciling', 'Stalled']);

/** A condition of the resource; its transition time moves only when its status does. */
function condition(resource: CustomResource, type: string, status: 'True' | 'False', reason: string, message: string): Condition {
  const previous = (resource.status as StatusWithConditions | undefined)?.conditions?.find((c) => c.type === type);
  return {
    type,
    status,
    reason,
    message,
    lastTransitionTime: previous?.status === status ? previous.lastTransitionTime : metaTime(new Date()),
    observedGeneration: resource.metadata.generation,
  };
}

/**
 * The engine's conditions for a verdict, Ready first; beside it what kstatus (Flux's `wait`,
 * `kubectl wait`) reads: Stalled=True for a failure that needs a person (one of the kind's
 * failure reasons), Reconciling=True for work in progress, neither when Ready. Without them
 * kstatus would take a failing resource for one still in progress.
 */
export function verdictConditions(kind: AnyKind, resource: CustomResource, verdict: ReadyVerdict): [Condition, ...Condition[]] {
  const ready = condition(resource, 'Ready', verdict.status, verdict.reason, verdict.message);
  if (verdict.status === 'True') return [ready];
  const failing = failureReasons(kind).includes(verdict.reason);
  return [ready, condition(resource, failing ? 'Stalled' : 'Reconciling', 'True', verdict.reason, verdict.message)];
}

/**
 * Whether a controller of ours wrote this object's status: every status we write says the
 * generation it observed, at least 1; the CRDs default it to 0 until then.
 */
export const observedOnce = (resource: CustomResource) => Number((resource.status as StatusWithConditions | undefined)?.observedGeneration ?? 0) > 0;

/** The status to write, or undefined when the object already has it (so an idle resync writes nothing). */
export function statusPatch(resource: CustomResource, conditions: Condition[], kindStatus: object): Record<string, unknown> | undefined {
  const current = (resource.status ?? {}) as StatusWithConditions;
  const others = (current.conditions ?? []).filter((c) => !ENGINE_CONDITIONS.has(c.type));
  const next = { ...kindStatus, observedGeneration: resource.metadata.generation, conditions: [...others, ...conditions] };
  return matches(next, current) ? undefined : next;
}
