/**
 * What time it is, as the engine tells a kind's hooks (observer, render, wakeAt): a kind that
 * plans by the clock asks this one rather than `new Date()`, so that a test can set the time.
 */
export interface Clock {
  now(): Date;
  /**
   * Only a clock that jumps (a test's): calls `listener` after each jump, so that the engine asks
   * every object's wake time again rather than wait on timers set by the old time; returns what
   * stops the calls. The real time has none.
   */
  onJump?(listener: () => void): () => void;
}

/** The real time; the engine's clock unless a test hands it another. */
export const SYSTEM_CLOCK: Clock = { now: () => new Date() };
