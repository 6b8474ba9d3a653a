// The tiers of jest.config.js: a unit test file (*.unit.test.ts) runs in seconds with nothing
// started or built for it; test/support/unit-tier.ts marks its runs with TEST_TIER=unit.

/** Throws, naming the file and the way out, when a unit test file reaches for `what` (the cluster tier's). */
export function refuseInUnitTier(what: string): void {
  if (process.env.TEST_TIER !== 'unit') return;
  const file = (globalThis as { expect?: { getState(): { testPath?: string } } }).expect?.getState().testPath ?? 'this unit test file';
  throw new Error(`${file} is in the unit tier (*.unit.test.ts), which has no ${what}: rename it to *.test.ts to run it in the cluster tier, or test without it`);
}
