import { Infer, s } from '../../schema';

/** The standard Kubernetes condition (metav1.Condition), as every kind's status carries it. */
export const conditionSchema = s.object(
  {
    type: s.string({ description: 'Type of the condition, such as Ready.', pattern: '^[A-Za-z][A-Za-z0-9]*$', maxLength: 316 }),
    status: s.enum(['True', 'False', 'Unknown'], { description: 'Whether the condition holds: True, False or Unknown.' }),
    reason: s.string({ description: 'A CamelCase word saying why the condition last changed.', maxLength: 1024 }),
    message: s.string({ description: 'A human-readable explanation of the condition.', maxLength: 32768 }),
    lastTransitionTime: s.string({ description: 'When the condition last changed its status.', format: 'date-time' }),
    observedGeneration: s.optional(s.integer({ description: 'The metadata.generation the condition was computed from.', minimum: 0 })),
  },
  { description: 'One observation of the object\u2019s state.' },
);

export type Condition = Infer<typeof conditionSchema>;

/** The status fields every kind shares; a kind adds its own beside them. */
export const commonStatusProperties = {
  // 0 by default (the CRD defaults status too): kstatus reads a new object as in progress, not current.
  observedGeneration: s.integer({ description: 'The metadata.generation the controller last acted on; 0 until it first acts on the object.', minimum: 0, default: 0 }),
  conditions: s.optional(
    s.array(conditionSchema, { description: 'Standard conditions; Ready tells whether the children match the spec and are ready.', maxItems: 16, mapKeys: ['type'] }),
  ),
};

/**
 * Ready=False reasons the engine writes that need a change by a person: a spec the schema
 * refuses, objects of a child's name that someone else manages, a child that failed (a Job),
 * and an observation that failed with an unexpected error.
 */
export const ENGINE_FAILURE_REASONS = ['InvalidSpec', 'Conflict', 'ChildFailed', 'ObservationFailed'] as const;

/** Ready=False reasons the engine writes while work goes on: children not ready yet, a deletion waiting for its last step. */
export const ENGINE_PROGRESS_REASONS = ['ChildNotReady', 'Finalizing'] as const;

/** Every Ready=False reason of a kind that means it fails (Stalled, Degraded) rather than progresses (Reconciling, Progressing). */
export function failureReasons(kind: { readonly controller?: { readonly failureReasons?: readonly string[] } }): readonly string[] {
  return [...ENGINE_FAILURE_REASONS, ...(kind.controller?.failureReasons ?? [])];
}
