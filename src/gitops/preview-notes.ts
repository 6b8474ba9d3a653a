import type { Instance } from './instances';

/** Where the docs say how a kind declares a sample observation. */
const DOCS = 'docs/adding-a-kind.md#previews-of-kinds-that-observe';

/**
 * What synth says about previews that may be incomplete: one line per kind that has an observer
 * but declares no sample observation, whose resources' previews are rendered without one (and
 * so may lack the children an observation brings), rather than passing over them in silence.
 */
export function previewNotes(instances: readonly Instance[]): string[] {
  const unsampled = new Map<string, number>();
  for (const { kind, sampled } of instances) {
    if (kind.controller?.observer && !sampled) unsampled.set(kind.kind, (unsampled.get(kind.kind) ?? 0) + 1);
  }
  return [...unsampled].map(
    ([kind, count]) => `${kind} has an observer but declares no sampleObservation: the preview of its ${count === 1 ? 'resource' : `${count} resources`} (preview/ of the output) is rendered without an observation, and may lack children the controller makes (${DOCS})`,
  );
}

/** The first line of a preview rendered with a sample observation, so a reviewer knows what it shows. */
export function sampledHeader(kind: string): string {
  return `# Rendered with ${kind}'s sample observation (sampleObservation), not one the controller made.\n`;
}
