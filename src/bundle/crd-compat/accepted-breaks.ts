import { UserError } from '../../core/errors';
import { AcceptedBreak, AnyKind } from '../../core/contract/kind';
import { versionNames } from '../../core/contract/versions';
import { CRD_RULES, CrdFinding } from './finding';

/** Whether a kind declared this finding as a break made on purpose. */
export function isAccepted(finding: CrdFinding, kind: AnyKind | undefined): boolean {
  return (kind?.acceptedBreaks ?? []).some((b) => b.version === finding.version && b.path === finding.path && b.rule === finding.rule);
}

/** Each kind's declared breaks, checked: a known rule, one of its versions, a reason. */
export function checkAcceptedBreaks(kinds: readonly AnyKind[]): void {
  const problems = kinds.flatMap((kind) =>
    (kind.acceptedBreaks ?? []).flatMap((declared: AcceptedBreak, index) => {
      const at = `${kind.kind}: acceptedBreaks[${index}]`;
      const wrong: string[] = [];
      if (!(CRD_RULES as readonly string[]).includes(declared.rule)) wrong.push(`${at}.rule: expected one of ${CRD_RULES.join(', ')}, got "${declared.rule}"`);
      if (declared.version !== '*' && !versionNames(kind).includes(declared.version)) wrong.push(`${at}.version: expected * or one of ${versionNames(kind).join(', ')}, got "${declared.version}"`);
      if (typeof declared.path !== 'string') wrong.push(`${at}.path: expected a field path, e.g. spec.mode ('' for a whole version)`);
      if (!declared.reason?.trim()) wrong.push(`${at}.reason: is required: it goes into the release notes`);
      return wrong;
    }),
  );
  if (problems.length) throw new UserError(problems);
}

/** The CRDs' release notes: every declared break with its reason, or none when no kind declares one. */
export function crdChangesMarkdown(kinds: readonly AnyKind[]): string | undefined {
  const lines = kinds.flatMap((kind) => (kind.acceptedBreaks ?? []).map((b) => `- ${kind.kind} ${b.version} ${b.path || '(the whole version)'} (rule ${b.rule}): ${b.reason.trim()}`));
  if (!lines.length) return undefined;
  return ['# Breaking changes of the CRDs', '', 'Declared in each kind\u2019s `acceptedBreaks` (docs/evolving-a-kind.md): what users must know before they upgrade.', '', ...lines, ''].join('\n');
}
