import { spawn } from 'node:child_process';
import { openSync, closeSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

/** One control-plane process: where it logs and how to find it again from another process. */
export interface ManagedProcess {
  readonly name: string;
  readonly pid: number;
  readonly logFile: string;
  /** How it was started, so it can be restarted alike. */
  readonly binary: string;
  readonly args: string[];
}

/**
 * Starts a binary detached, in its own process group, with output to `<logDir>/<name>.log`,
 * so it outlives `npm run cluster:up` and can be stopped later by pid alone.
 */
export function startProcess(name: string, binary: string, args: string[], logDir: string): ManagedProcess {
  const logFile = join(logDir, `${name}.log`);
  const fd = openSync(logFile, 'a');
  try {
    const child = spawn(binary, args, { detached: true, stdio: ['ignore', fd, fd] });
    if (child.pid === undefined) throw new Error(`could not start ${name} (${binary}); see ${logFile}`);
    child.unref();
    return { name, pid: child.pid, logFile, binary, args };
  } finally {
    closeSync(fd);
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** SIGTERM to each process group, then SIGKILL to whatever still lives after `graceMs`. */
export async function stopProcesses(processes: readonly ManagedProcess[], graceMs = 10_000): Promise<void> {
  const signalGroup = (pid: number, signal: NodeJS.Signals) => {
    try {
      process.kill(-pid, signal);
    } catch {
      // Already gone.
    }
  };
  for (const p of processes) signalGroup(p.pid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (processes.some((p) => isAlive(p.pid)) && Date.now() < deadline) await sleep(100);
  for (const p of processes) if (isAlive(p.pid)) signalGroup(p.pid, 'SIGKILL');
  while (processes.some((p) => isAlive(p.pid))) await sleep(50);
}

/** A TCP port on 127.0.0.1 that was free a moment ago. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
