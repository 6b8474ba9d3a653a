const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Milliseconds in a Go-style duration such as `1h30m` or `90s`; throws on anything else. */
export function parseDuration(text: string): number {
  const parts = [...text.matchAll(/([0-9]+(?:\.[0-9]+)?)(ms|s|m|h)/g)];
  if (!parts.length || parts.map((p) => p[0]).join('') !== text) {
    throw new Error(`"${text}" is not a duration such as 30m or 1h`);
  }
  return parts.reduce((total, [, amount, unit]) => total + Number(amount) * UNIT_MS[unit], 0);
}
