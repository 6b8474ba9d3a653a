/**
 * Durations as Go's time.ParseDuration writes them (`500ms`, `90s`, `1h30m`, `1.5s`), without
 * its sign and sub-millisecond units; a bare 0 is the one unitless duration. The one parser of
 * durations: a kind's fields (a refresh interval) and the options of every command.
 */
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** What a duration looks like, for messages: "expected <DURATION_EXPECTED>". */
export const DURATION_EXPECTED = 'a duration like 500ms, 30s, 5m or 1h30m';

/** Milliseconds (rounded) in a duration, or undefined when the text is not one. */
export function durationMs(text: string): number | undefined {
  const trimmed = text.trim();
  if (trimmed === '0') return 0;
  const parts = [...trimmed.matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)];
  if (!parts.length || parts.map((p) => p[0]).join('') !== trimmed) return undefined;
  return Math.round(parts.reduce((total, [, amount, unit]) => total + Number(amount) * UNIT_MS[unit], 0));
}

/** Milliseconds in a duration such as `1h30m` or `90s`; throws on anything else. */
export function parseDuration(text: string): number {
  const ms = durationMs(text);
  if (ms === undefined) throw new Error(`"${text}" is not ${DURATION_EXPECTED}`);
  return ms;
}
