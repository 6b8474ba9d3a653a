/** What a queue tells its metrics (client-go's workqueue metrics follow these). */
export interface QueueHooks {
  /** A key went into line (a key already waiting, or already marked to run again, is not added twice). */
  added(key: string): void;
  /** A key failed and was queued again with backoff. */
  retried(key: string): void;
  /** A worker took `key` after it waited `waitedSeconds` in line. */
  taken(key: string, waitedSeconds: number): void;
  /** A worker finished `key` after `workedSeconds`. */
  finished(key: string, workedSeconds: number): void;
}

/**
 * How soon a key is wanted. `low` is the periodic resync's look at an object nothing changed:
 * it waits behind every `normal` key (events, retries), as in controller-runtime's priority
 * queue, so that while tens of thousands of new objects wait, the ones already served do not
 * come round again before them.
 */
export type Priority = 'normal' | 'low';

/** One line of keys, first in, first out, taken from `head` on: Array.shift() copies a long array on every call, quadratic when tens of thousands wait. */
interface Line {
  keys: string[];
  head: number;
}

/**
 * A work queue of object keys, like client-go's: a key waiting is queued once however many
 * events name it; a key being processed is never handed to a second worker, and an event
 * that arrives meanwhile queues it again for after; failures back off per key. Keys of
 * `low` priority are handed out only when no `normal` one waits.
 */
export class WorkQueue {
  /** The keys waiting, with the line each waits in. */
  private readonly waiting = new Map<string, Priority>();
  private readonly lines: Record<Priority, Line> = { normal: { keys: [], head: 0 }, low: { keys: [], head: 0 } };
  private readonly processing = new Set<string>();
  /** Keys that were added while being processed: they go back in line when done. */
  private readonly dirty = new Set<string>();
  private readonly timers = new Map<string, { at: number; timer: NodeJS.Timeout }>();
  private readonly failures = new Map<string, number>();
  private readonly idle: Array<() => void> = [];
  private shuttingDown = false;
  /** When each waiting key went into line, and when each key in process was taken (ms since the epoch). */
  private readonly addedAt = new Map<string, number>();
  private readonly takenAt = new Map<string, number>();

  constructor(
    private readonly backoff: { baseMs: number; maxMs: number } = { baseMs: 500, maxMs: 5 * 60_000 },
    private readonly hooks?: QueueHooks,
  ) {}

  /** The keys waiting, and those in process that were added again meanwhile: the work still to do. */
  *pending(): IterableIterator<string> {
    yield* this.waiting.keys();
    yield* this.dirty;
  }

  /** The keys in process, each with when a worker took it (ms since the epoch). */
  inProcess(): ReadonlyMap<string, number> {
    return this.takenAt;
  }

  /** Keys waiting (not counting ones scheduled for later). */
  get depth(): number {
    return this.waiting.size;
  }

  add(key: string, priority: Priority = 'normal'): void {
    if (this.shuttingDown) return;
    if (this.processing.has(key)) {
      // The reconcile under way is itself the fresh look a resync asks for.
      if (priority === 'low') return;
      if (!this.dirty.has(key)) this.hooks?.added(key);
      this.dirty.add(key);
      return;
    }
    const line = this.waiting.get(key);
    if (line === 'normal' || (line === 'low' && priority === 'low')) return;
    // A key waiting in the low line moves up; its old place there is skipped when reached (see take).
    if (line === undefined && !this.addedAt.has(key)) {
      this.addedAt.set(key, Date.now());
      this.hooks?.added(key);
    }
    this.waiting.set(key, priority);
    this.lines[priority].keys.push(key);
    this.idle.shift()?.();
  }

  /** Queues `key` after `ms`; an earlier schedule for the same key wins. */
  addAfter(key: string, ms: number, priority: Priority = 'normal'): void {
    if (this.shuttingDown) return;
    if (ms <= 0) return this.add(key, priority);
    const at = Date.now() + ms;
    const existing = this.timers.get(key);
    if (existing && existing.at <= at) return;
    if (existing) clearTimeout(existing.timer);
    const timer = setTimeout(() => {
      this.timers.delete(key);
      this.add(key, priority);
    }, ms);
    timer.unref();
    this.timers.set(key, { at, timer });
  }

  /** Queues `key` again after an exponentially growing delay; `forget` resets it. */
  addWithBackoff(key: string): number {
    const failures = (this.failures.get(key) ?? 0) + 1;
    this.failures.set(key, failures);
    this.hooks?.retried(key);
    const delay = Math.min(this.backoff.maxMs, this.backoff.baseMs * 2 ** (failures - 1));
    this.addAfter(key, delay);
    return delay;
  }

  forget(key: string): void {
    this.failures.delete(key);
  }

  /** The next key to process, once one is waiting; undefined when the queue shuts down. */
  async next(): Promise<string | undefined> {
    let key: string | undefined;
    while ((key = this.take('normal') ?? this.take('low')) === undefined) {
      if (this.shuttingDown) return undefined;
      await new Promise<void>((resolve) => this.idle.push(resolve));
    }
    this.waiting.delete(key);
    this.processing.add(key);
    const now = Date.now();
    this.hooks?.taken(key, (now - (this.addedAt.get(key) ?? now)) / 1000);
    this.addedAt.delete(key);
    this.takenAt.set(key, now);
    return key;
  }

  /** The first key of a line that still waits there (one that moved up to the normal line, or was taken, left its place behind). */
  private take(priority: Priority): string | undefined {
    const line = this.lines[priority];
    while (line.head < line.keys.length) {
      const key = line.keys[line.head++];
      // Drop the keys taken once they are half the array or more: amortized constant time per key.
      if (line.head >= 1024 && line.head * 2 >= line.keys.length) {
        line.keys = line.keys.slice(line.head);
        line.head = 0;
      }
      if (this.waiting.get(key) === priority) return key;
    }
    return undefined;
  }

  /** Marks `key` processed; if events arrived meanwhile, it is queued again. */
  done(key: string): void {
    this.processing.delete(key);
    const taken = this.takenAt.get(key);
    this.takenAt.delete(key);
    if (taken !== undefined) this.hooks?.finished(key, (Date.now() - taken) / 1000);
    // Added again while in process: it has waited since then, and was counted as added then.
    if (this.dirty.delete(key)) {
      this.addedAt.set(key, Date.now());
      this.add(key);
    }
  }

  shutDown(): void {
    this.shuttingDown = true;
    for (const { timer } of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    for (const wake of this.idle.splice(0)) wake();
  }
}
