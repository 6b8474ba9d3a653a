import { ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';

/**
 * One long-running command of the CLI (`cdk8s-operators controller ...`), run from the
 * checkout's lib/ so that a rebuild and a restart run the new code. Its output goes to ours,
 * each line prefixed with its name.
 */
export class DevChild {
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();
  private stopping = false;

  constructor(
    readonly name: string,
    private readonly command: string[],
    private readonly env: NodeJS.ProcessEnv,
    private readonly say: (line: string) => void,
    /** True once dev itself stops: Ctrl-C in a terminal reaches the children too, and their exit is expected then. */
    private readonly devStopping: () => boolean,
  ) {}

  get pid(): number | undefined {
    return this.child?.exitCode === null ? this.child.pid : undefined;
  }

  start(): void {
    this.stopping = false;
    const child = spawn(process.execPath, this.command, { stdio: ['ignore', 'pipe', 'pipe'], env: this.env });
    this.child = child;
    for (const stream of [child.stdout, child.stderr]) this.prefix(stream!);
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        // Left stopped until the next change: restarting a crash at once would only loop.
        if (!this.stopping && !this.devStopping()) this.say(`dev: ${this.name} exited (${signal ?? `code ${code}`}); it starts again on the next change`);
        resolve();
      });
      child.once('error', (err) => {
        this.say(`dev: ${this.name} could not start: ${err.message}`);
        resolve();
      });
    });
    this.say(`dev: ${this.name} started (pid ${child.pid})`);
  }

  /** SIGTERM, then SIGKILL if it has not exited after `graceMs`. */
  async stop(graceMs = 10_000): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    this.stopping = true;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }

  private prefix(stream: Readable): void {
    createInterface({ input: stream }).on('line', (line) => this.say(`[${this.name}] ${line}`));
  }
}
