import type { RegistryMirrorObservation } from './controller';

/**
 * A mirror the controller serves, for synth's previews: not refused, the Secret and
 * PriorityClass its spec names exist, every node configured, and the install's defaults for
 * who may pull (anonymous, from any peer). What the mirror pulls from is its spec's upstream,
 * which the render reads from the spec.
 */
export function sampleMirror(): RegistryMirrorObservation {
  return { access: {}, pendingNodes: [] };
}
