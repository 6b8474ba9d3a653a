import { Clock } from '../engine/kind';

/**
 * A clock a test moves: it runs with the real time from where the test set it, and each jump
 * forward has the engine it is handed to reconcile every object at once, so that a wake time the
 * jump reached is acted on now (see Clock.onJump), not when the old timer would have fired.
 */
export class TestClock implements Clock {
  private offsetMs: number;
  private readonly listeners = new Set<() => void>();

  constructor(start = new Date()) {
    this.offsetMs = start.getTime() - Date.now();
  }

  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }

  /** Moves the clock `ms` forward. */
  advance(ms: number): void {
    if (ms < 0) throw new Error(`a test clock only moves forward: advance(${ms})`);
    if (ms === 0) return;
    this.offsetMs += ms;
    for (const listener of this.listeners) listener();
  }

  /** Moves the clock to `at`, or leaves it where it is when `at` is past. */
  jumpTo(at: Date): void {
    this.advance(Math.max(0, at.getTime() - this.now().getTime()));
  }

  onJump(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }
}
