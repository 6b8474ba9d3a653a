import { AnyKind } from '../../core/contract/kind';
import { isAccepted } from './accepted-breaks';
import { compareCrds, CrdDocument } from './crd-compare';
import { CrdFinding, findingLine } from './finding';

/** What the check says of the CRDs about to be written, against those users run. */
export interface CrdVerdict {
  /** Breaks no kind declared: each stops synth. */
  readonly breaks: readonly CrdFinding[];
  /** Breaks a kind declared in acceptedBreaks. */
  readonly accepted: readonly CrdFinding[];
}

/**
 * Each CRD of `after` compared with the CRD of the same name in `before` (one that is new, or
 * left out now, has nothing to compare). A kind's extra groups are copies of its main CRD, so a
 * finding is kept once.
 */
export function crdVerdict(before: ReadonlyMap<string, CrdDocument>, after: readonly CrdDocument[], kinds: readonly AnyKind[]): CrdVerdict {
  const seen = new Set<string>();
  const findings = after.flatMap((crd) => {
    const old = before.get(crd.metadata.name);
    return old ? compareCrds(old, crd) : [];
  });
  const unique = findings.filter((f) => !seen.has(findingLine(f)) && seen.add(findingLine(f)));
  const kindOf = (finding: CrdFinding) => kinds.find((k) => k.kind === finding.kind);
  return { breaks: unique.filter((f) => !isAccepted(f, kindOf(f))), accepted: unique.filter((f) => isAccepted(f, kindOf(f))) };
}

/** What to do about a break, with the declaration that accepts it written out. */
export function remedies(finding: CrdFinding): string {
  const declaration = `{ version: '${finding.version}', path: '${finding.path}', rule: '${finding.rule}', reason: '...' }`;
  return `serve a new version with a conversion (olderVersions; docs/evolving-a-kind.md), or declare the break in ${finding.kind}'s definition: acceptedBreaks: [${declaration}]`;
}
