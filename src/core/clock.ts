/**
 * What time it is, as the engine tells a kind's hooks (observer, render, wakeAt): a kind that
 * plans by the clock asks this one rather than `new Date()`, so that a test can set the time.
 */
export interface Clock {
  now(): Date;
}

/** The real time; the engine's clock unless a test hands it another. */
export const SYSTEM_CLOCK: Clock = { now: () => new Date() };
