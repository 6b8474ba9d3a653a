/**
 * How often the engine may write one child. A render that differs on every call (a timestamp,
 * a counter, a random name) never converges: each apply changes the child, its watch event
 * queues the owner, and the owner renders yet another child, hundreds of times a second.
 * ServerRewrites settles what the server rewrites; this bounds what nothing can settle, so a
 * kind's mistake costs a few writes a minute instead of a storm. Creates and deletes count too:
 * a child removed as soon as it is made (by a render that flips, or a garbage collector
 * finishing a deletion the cache has not seen) would otherwise be made again without end.
 * Legitimate changes (a user's edit, a refreshed rate, a rollout's steps) stay far below the bound.
 */
export class WriteBudget {
  /** When each child was written within the window, oldest first. */
  private readonly writes = new Map<string, number[]>();
  private spentSinceSweep = 0;

  constructor(
    /** Writes one child may get within `windowMs`. */
    readonly limit = 10,
    readonly windowMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** 0 when `id` may be written now, else how many milliseconds until it may. */
  waitMs(id: string): number {
    const recent = this.recent(id);
    return recent.length < this.limit ? 0 : recent[0] + this.windowMs - this.now();
  }

  /** Whether `id` was written within the window: a child of ours that is gone again was removed since. */
  wroteRecently(id: string): boolean {
    return this.recent(id).length > 0;
  }

  /** Counts a write of `id` (an apply, a create or a delete). */
  spend(id: string): void {
    this.writes.set(id, [...this.recent(id), this.now()]);
    // Children written once and never again must not be remembered forever.
    if (++this.spentSinceSweep >= 1000) this.sweep();
  }

  get size(): number {
    return this.writes.size;
  }

  private recent(id: string): number[] {
    const since = this.now() - this.windowMs;
    return (this.writes.get(id) ?? []).filter((at) => at > since);
  }

  private sweep(): void {
    this.spentSinceSweep = 0;
    for (const id of [...this.writes.keys()]) {
      if (this.recent(id).length === 0) this.writes.delete(id);
    }
  }
}
