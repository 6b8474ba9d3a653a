import { canonicalJson } from '../../core/contract/versions';

/** One entry of `x-kubernetes-validations`, as a CRD carries it. */
export interface CelRule {
  readonly rule: string;
  readonly message?: string;
  readonly messageExpression?: string;
  readonly fieldPath?: string;
  readonly reason?: string;
  readonly optionalOldSelf?: boolean;
}

/**
 * Whether a rule only ratchets: a transition rule (it names `oldSelf`) without `optionalOldSelf`.
 * The API server runs such a rule on updates only, comparing a value with its own stored self,
 * so no object already stored stops validating and no create is refused; only later changes
 * are judged. Any other new rule also judges what is already stored, and is a break.
 */
export function onlyRatchets(rule: CelRule): boolean {
  return /\boldSelf\b/.test(rule.rule) && rule.optionalOldSelf !== true;
}

/** What decides what a rule accepts: its expression and when it runs (not its message, field path or reason). */
function verdictOf(rule: CelRule): string {
  return canonicalJson({ rule: rule.rule, optionalOldSelf: rule.optionalOldSelf === true });
}

/**
 * The new rules that accept less than the old ones did: each new rule (or rule whose expression
 * changed) that does not only ratchet. A rule removed accepts more, and is safe.
 */
export function tighteningRules(before: readonly CelRule[], after: readonly CelRule[]): CelRule[] {
  const known = new Set(before.map(verdictOf));
  return after.filter((rule) => !known.has(verdictOf(rule)) && !onlyRatchets(rule));
}
