/**
 * synth's stderr without its notes on previews rendered without a sample observation
 * (src/gitops/preview-notes.ts), which any run declaring a resource of such a kind prints:
 * for tests about the rest of what synth says.
 */
export function withoutPreviewNotes(stderr: string): string {
  return stderr.replace(/^synth: \S+ has an observer but declares no sampleObservation: .*(\n|$)/gm, '');
}
