/**
 * Something the manager starts and stops (controller-runtime's Runnable): a server, the
 * controller, the leader's own work.
 */
export interface Runnable {
  /** For logs and tests. */
  readonly name: string;
  /** Started only once this replica leads (controller-runtime's NeedLeaderElection()). */
  readonly needsLeader: boolean;
  /** Resolves once it runs; what starts after it may rely on it. */
  start(): void | Promise<void>;
  stop?(): void | Promise<void>;
}

/**
 * Starts the runnables that need no leader in the order they were added, each once the one
 * before has started; those that need the leader once `lead()` is called (elected, or no
 * election); and stops whatever started in the reverse order of starting, each once the one
 * after it has stopped, so that nothing stops under what still relies on it.
 */
export class Manager {
  private readonly runnables: Runnable[] = [];
  /** In the order they were started (a start under way counts: its stop ends it). */
  private readonly started: Runnable[] = [];
  private leading = false;
  private stopped?: Promise<void>;

  add(runnable: Runnable): this {
    this.runnables.push(runnable);
    return this;
  }

  /** Whether stop() was called: nothing starts from then on. */
  get stopping(): boolean {
    return this.stopped !== undefined;
  }

  /** Starts the runnables that need no leader; resolves once they all started (or a stop came first). */
  start(): Promise<void> {
    return this.startEach(this.runnables.filter((r) => !r.needsLeader));
  }

  /** This replica leads (or there is no election): starts the runnables that need the leader, once. */
  lead(): Promise<void> {
    if (this.leading) return Promise.resolve();
    this.leading = true;
    return this.startEach(this.runnables.filter((r) => r.needsLeader));
  }

  /** Stops what started, last started first; a second call waits for the first. */
  stop(): Promise<void> {
    this.stopped ??= (async () => {
      for (const runnable of [...this.started].reverse()) await runnable.stop?.();
    })();
    return this.stopped;
  }

  private async startEach(runnables: readonly Runnable[]): Promise<void> {
    for (const runnable of runnables) {
      if (this.stopping) return;
      this.started.push(runnable);
      await runnable.start();
    }
  }
}
