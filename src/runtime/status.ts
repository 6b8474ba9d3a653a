import { CustomResource } from '../core/kind';
import { Condition } from '../core/status';
import { metaTime } from '../kube/time';
import { matches } from './matches';

export type { Condition };

type StatusWithConditions = { conditions?: Condition[]; observedGeneration?: number };

/** The Ready condition; its transition time moves only when its status does. */
export function readyCondition(resource: CustomResource, status: 'True' | 'False', reason: string, message: string): Condition {
  const previous = (resource.status as StatusWithConditions | undefined)?.conditions?.find((c) => c.type === 'Ready');
  return {
    type: 'Ready',
    status,
    reason,
    message,
    lastTransitionTime: previous?.status === status ? previous.lastTransitionTime : metaTime(new Date()),
    observedGeneration: resource.metadata.generation,
  };
}

/** The status to write, or undefined when the object already has it (so an idle resync writes nothing). */
export function statusPatch(resource: CustomResource, ready: Condition, kindStatus: object): Record<string, unknown> | undefined {
  const current = (resource.status ?? {}) as StatusWithConditions;
  const others = (current.conditions ?? []).filter((c) => c.type !== 'Ready');
  const next = { ...kindStatus, observedGeneration: resource.metadata.generation, conditions: [...others, ready] };
  return matches(next, current) ? undefined : next;
}
