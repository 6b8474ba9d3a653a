import { AnyKind } from '../../core/contract/kind';
import { ChartCompanion, checkCompanionKey, Companion, declaredCompanions, declaringPlurals, kindCompanions } from '../../core/contract/companion';
import { OperatorBundleProps } from '../../bundle/operator';
import type { OperatorVariant } from './operator-template';

export type { ChartCompanion } from '../../core/contract/companion';

/**
 * The chart's companions: those the kinds declare, then those an app still lists itself (the
 * same object counts once), after checking that no two different companions take one key.
 */
export function chartCompanions(kinds: readonly AnyKind[], listed: readonly ChartCompanion[] = []): ChartCompanion[] {
  const declared = kindCompanions(kinds);
  const all = [...declared, ...listed.filter((companion) => !declared.includes(companion))];
  for (const companion of listed) checkCompanionKey(companion, 'the app');
  const clash = all.find((companion, i) => all.findIndex((other) => other.key === companion.key) !== i);
  if (clash) {
    const first = all.find((companion) => companion.key === clash.key)!;
    const owner = (c: ChartCompanion) => (declared.includes(c) ? `${c.title}, declared by ${kinds.filter((kind) => declaredCompanions(kind).includes(c)).map((kind) => kind.kind).join(' and ')}` : `${c.title}, which the app lists`);
    throw new Error(`two companions are keyed "${clash.key}" (${owner(first)}; ${owner(clash)}): give one of them another key, or let one kind declare it alone`);
  }
  return all;
}

/**
 * The plurals of the kinds the companion goes with: those declaring it and those its `kinds`
 * names; undefined (every install) for a companion the app lists with no `kinds`.
 */
export function companionPlurals(companion: ChartCompanion, kinds: readonly AnyKind[], listed: readonly ChartCompanion[] = []): readonly string[] | undefined {
  if (listed.includes(companion) && !companion.kinds) return undefined;
  return [...new Set([...declaringPlurals(companion, kinds), ...(companion.kinds ?? [])])];
}

/** The companions a variant of the chart has: those not left out, whose kinds are served, each in its mode's options. */
export function variantCompanions(
  listed: readonly ChartCompanion[],
  variant: { readonly kinds: readonly AnyKind[]; readonly withoutCompanions?: readonly string[]; readonly companionOptions?: Readonly<Record<string, unknown>> },
): Companion[] {
  return chartCompanions(variant.kinds, listed)
    .filter((c) => !variant.withoutCompanions?.includes(c.key))
    .filter((c) => {
      const plurals = companionPlurals(c, variant.kinds, listed);
      return !plurals || variant.kinds.some((kind) => plurals.includes(kind.plural));
    })
    .map((c) => c.companion(variant.companionOptions?.[c.key]));
}

/** The Helm condition that one of these kinds is served, by plural (each is, when the value kinds is empty). */
export function kindsServed(plurals: readonly string[]): string {
  return `or (empty .Values.kinds) ${plurals.map((plural) => `(has ${JSON.stringify(plural)} .Values.kinds)`).join(' ')}`;
}

/** The Helm condition that one of the kinds the companion goes with is served (true when it goes with every install). */
export function companionServed(companion: ChartCompanion, kinds: readonly AnyKind[], listed: readonly ChartCompanion[] = []): string {
  const plurals = companionPlurals(companion, kinds, listed);
  return plurals ? `(${kindsServed(plurals)})` : 'true';
}

/**
 * The bundle's props for a variant of the chart, its companions added: those of the served
 * kinds, and those an app still lists itself (`listed`, kept for compatibility). What an
 * OperatorChartBuilder passes to OperatorBundle beside the operator's names.
 */
export function variantBundleProps(variant: OperatorVariant, listed: readonly ChartCompanion[] = []): Omit<OperatorBundleProps, 'operator'> {
  const { withoutCompanions: _left, companionOptions: _options, ...props } = variant;
  return { ...props, companions: variantCompanions(listed, variant) };
}
