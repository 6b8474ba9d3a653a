import { AnyKind, Clock, CustomResource, KindCondition, ReadyVerdict } from '../core/contract/kind';
import { Condition, failureReasons } from '../core/kit/status';
import { FieldSet } from '../kube/create-then-apply';
import { metaTime } from '../kube/time';
import { OpenApiSchema } from '../schema';
import { matches } from './matches';

export type { Condition };

type StatusWithConditions = { conditions?: Condition[]; observedGeneration?: number };

/** The conditions the engine owns: Ready, and kstatus's abnormal-true pair that says why it is not. */
const ENGINE_CONDITIONS = new Set(['Ready', 'Reconciling', 'Stalled']);

/** The status fields the engine writes for every kind, beside the kind's own. */
const ENGINE_FIELDS = new Set(['conditions', 'observedGeneration']);

/** A condition of the resource; its transition time (the engine's clock) moves only when its status does. */
function condition(resource: CustomResource, { type, status, reason, message }: KindCondition, clock: Clock): Condition {
  const previous = (resource.status as StatusWithConditions | undefined)?.conditions?.find((c) => c.type === type);
  return {
    type,
    status,
    reason,
    message,
    lastTransitionTime: previous?.status === status ? previous.lastTransitionTime : metaTime(clock.now()),
    observedGeneration: resource.metadata.generation,
  };
}

/**
 * The engine's conditions for a verdict, Ready first; beside it what kstatus (Flux's `wait`,
 * `kubectl wait`) reads: Stalled=True for a failure that needs a person (one of the kind's
 * failure reasons), Reconciling=True for work in progress, neither when Ready. Without them
 * kstatus would take a failing resource for one still in progress.
 */
export function verdictConditions(kind: AnyKind, resource: CustomResource, verdict: ReadyVerdict, clock: Clock): [Condition, ...Condition[]] {
  const ready = condition(resource, { type: 'Ready', ...verdict }, clock);
  if (verdict.status === 'True') return [ready];
  const failing = failureReasons(kind).includes(verdict.reason);
  return [ready, condition(resource, { type: failing ? 'Stalled' : 'Reconciling', status: 'True', reason: verdict.reason, message: verdict.message }, clock)];
}

/** The kind's own conditions (KindController.conditions), refused when one takes an engine condition's type or comes twice. */
export function kindConditions(kind: AnyKind, resource: CustomResource, asked: readonly KindCondition[], clock: Clock): Condition[] {
  const types = new Set<string>();
  for (const { type } of asked) {
    if (ENGINE_CONDITIONS.has(type)) throw new Error(`${kind.kind}: controller.conditions returned the condition ${type}, which the engine writes: name the kind's own conditions otherwise`);
    if (types.has(type)) throw new Error(`${kind.kind}: controller.conditions returned the condition ${type} twice`);
    if (!/^[A-Za-z][A-Za-z0-9]*$/.test(type)) throw new Error(`${kind.kind}: controller.conditions returned a condition type "${type}": a CamelCase word is expected`);
    const declared = kind.controller?.conditionTypes;
    if (declared && !declared.includes(type)) throw new Error(`${kind.kind}: controller.conditions returned the condition ${type}, which controller.conditionTypes does not declare (${declared.join(', ') || 'none'}): add it there`);
    types.add(type);
  }
  return asked.map((c) => condition(resource, c, clock));
}

/**
 * The kind's status as the merge patch must say it: each field the operator wrote before
 * (`written`, from managedFields: status-ownership.ts) that the kind leaves out now set to null,
 * which removes it, inside objects and maps too. Never the engine's fields, one the schema
 * defaults (the API server would put it back at once), nor one another writer put there.
 */
export function withRemovals(previous: unknown, next: object, schema: OpenApiSchema | undefined, written: FieldSet | undefined, skip: ReadonlySet<string> = ENGINE_FIELDS): Record<string, unknown> {
  const out = { ...next } as Record<string, unknown>;
  if (!isPlainObject(previous) || !written) return out;
  for (const [key, was] of Object.entries(previous)) {
    const ours = written[`f:${key}`];
    if (skip.has(key) || !ours) continue;
    const property = schema?.properties?.[key] ?? schema?.additionalProperties;
    const now = out[key];
    if (now === undefined) {
      if (property?.default === undefined) out[key] = null;
    } else if (isPlainObject(now) && isPlainObject(was)) out[key] = withRemovals(was, now, property, ours, new Set());
  }
  return out;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * Whether a controller of ours wrote this object's status: every status we write says the
 * generation it observed, at least 1; the CRDs default it to 0 until then.
 */
export const observedOnce = (resource: CustomResource) => Number((resource.status as StatusWithConditions | undefined)?.observedGeneration ?? 0) > 0;

/** The status to write, or undefined when the object already has it (so an idle resync writes nothing). */
export function statusPatch(resource: CustomResource, conditions: Condition[], kindStatus: object): Record<string, unknown> | undefined {
  const current = (resource.status ?? {}) as StatusWithConditions;
  // Others' conditions stay as they are; the engine's, and each the kind gives now, are replaced.
  const others = (current.conditions ?? []).filter((c) => !ENGINE_CONDITIONS.has(c.type) && !conditions.some((n) => n.type === c.type));
  const next = { ...kindStatus, observedGeneration: resource.metadata.generation, conditions: [...others, ...conditions] };
  return matches(next, current) ? undefined : next;
}
