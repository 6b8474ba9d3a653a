/** Log messages of a replica's life, as src/commands/controller.ts and leader.ts write them. */
const STARTING = 'controller starting';
const STOPPING = 'stopping';
// Not the elector's own "started leading": winning back its own Lease while stopping is harmless,
// starting work is not. A reconcile that was running may still end (its writes are fenced off, and
// a write after the Lease was lost is the write-without-lease invariant's).
const ACTING = new Set(['leading']);

/**
 * Follows each replica's log: once a process says it is stopping (e.g. after losing the
 * Lease), it must not start work again before it exits, since its caches are stale.
 */
export class Lifecycle {
  private readonly stopping = new Map<string, string>();

  constructor(private readonly found: (what: string) => void) {}

  observe(replica: string, line: string): void {
    if (!line.startsWith('{')) return;
    const entry = JSON.parse(line) as { msg?: string; time?: string; why?: string };
    if (entry.msg === STARTING) this.stopping.delete(replica);
    else if (entry.msg === STOPPING) this.stopping.set(replica, `${entry.time} (${entry.why})`);
    else if (entry.msg && ACTING.has(entry.msg) && this.stopping.has(replica)) {
      this.found(`${replica} logged "${entry.msg}" at ${entry.time}, after it began stopping at ${this.stopping.get(replica)}`);
    }
  }
}
