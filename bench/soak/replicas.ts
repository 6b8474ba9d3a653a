import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ControllerProcess, startController } from '../../test/support/controller-process';

/**
 * The controller's replicas, each a real process as the image runs it, with leader election
 * on and its identity (POD_NAME) its name; each talks to the API server through its own
 * listener of the fault proxy, so the proxy knows who wrote what.
 */
export class Replicas {
  private readonly running = new Map<string, ControllerProcess>();
  /** Log lines of earlier processes of the replica (they share its log file), by name. */
  private readonly earlierLines = new Map<string, number>();

  constructor(
    readonly names: readonly string[],
    private readonly dir: string,
    private readonly args: (name: string) => string[],
  ) {}

  start(name: string): void {
    if (this.running.get(name)?.child.exitCode === null) return;
    const file = this.logFile(name);
    this.earlierLines.set(name, existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter((l) => l.startsWith('{')).length : 0);
    this.running.set(name, startController(this.args(name), this.logFile(name), { POD_NAME: name }));
  }

  startAll(): void {
    for (const name of this.names) this.start(name);
  }

  /** SIGKILL: a crash, no chance to release the Lease. */
  async kill(name: string): Promise<void> {
    await this.running.get(name)?.kill();
    this.running.delete(name);
  }

  isRunning(name: string): boolean {
    return this.running.has(name);
  }

  /**
   * Restarts the replicas that exited on their own, as the kubelet would, and returns why each
   * exited: `lost leadership` (by design: a replica that cannot renew its Lease exits, so that it
   * can never act beside the next leader) or the exit code, a finding.
   */
  restartExited(): { name: string; why: string; expected: boolean }[] {
    const exited = [...this.running].filter(([, p]) => p.child.exitCode !== null || p.child.signalCode !== null);
    return exited.map(([name, p]) => {
      const own = p.logs().slice(this.earlierLines.get(name) ?? 0);
      const last = own.at(-1);
      const expected = own.some((l) => l.why === 'lost leadership');
      this.running.delete(name);
      this.start(name);
      return { name, why: expected ? 'lost leadership' : `exit ${p.child.exitCode ?? p.child.signalCode} after "${String(last?.msg ?? '')}"`, expected };
    });
  }

  logFile(name: string): string {
    return join(this.dir, `${name}.log`);
  }

  async stopAll(): Promise<void> {
    await Promise.all([...this.running.values()].map((p) => p.stop(5_000)));
    this.running.clear();
  }
}
