import { UserError } from '../../core/errors';
import { AnyKind } from '../../core/contract/kind';
import { allIdentities } from '../../core/groups';
import { crdManifest } from '../crd';
import { webhookServiceConfig } from '../deployment';
import { checkAcceptedBreaks } from './accepted-breaks';
import { loadBaseline } from './baseline';
import { CrdDocument } from './crd-compare';
import { findingLine } from './finding';
import { crdVerdict, remedies } from './verdict';

/** Any namespace: the compared CRDs' webhook Service is not compared. */
const WEBHOOK_ADDRESS_IGNORED = 'operator';

/** The CRDs synth writes for these kinds (the webhook's address plays no part in the comparison). */
export function crdsToWrite(kinds: readonly AnyKind[], withoutExtraGroups: readonly string[]): CrdDocument[] {
  return allIdentities(kinds, withoutExtraGroups).map((kind) => crdManifest(kind, webhookServiceConfig(WEBHOOK_ADDRESS_IGNORED)) as unknown as CrdDocument);
}

/**
 * synth's CRD compatibility check: throws a UserError naming each break no kind declared, with
 * its remedies; says on `note` what it compared with, or why it compared with nothing.
 */
export function guardCrds(kinds: readonly AnyKind[], withoutExtraGroups: readonly string[], source: string, root: string, note: (line: string) => void): void {
  checkAcceptedBreaks(kinds);
  const baseline = loadBaseline(source, root);
  if ('skipped' in baseline) {
    note(`CRD compatibility check skipped: ${baseline.skipped}`);
    return;
  }
  const verdict = crdVerdict(baseline.crds, crdsToWrite(kinds, withoutExtraGroups), kinds);
  for (const accepted of verdict.accepted) note(`CRD break declared in acceptedBreaks: ${findingLine(accepted)}`);
  if (!verdict.breaks.length) return;
  throw new UserError([
    `the CRDs would break what users already store (compared with ${baseline.from}); nothing was written:`,
    ...verdict.breaks.flatMap((finding) => [findingLine(finding), `  remedies: ${remedies(finding)}`]),
  ]);
}
