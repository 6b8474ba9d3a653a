import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
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

/**
 * Whether `p` is still there: its pid alive and not running another command line than the one
 * it was started with (a process exiting, or exited and not yet reaped, shows none). Pids are
 * reused (pid_max is often 32768, and test runs start thousands of processes), so a pid alone
 * may name someone else's process by now, e.g. another control plane's scheduler.
 */
export function stillRunning(p: ManagedProcess): boolean {
  if (!isAlive(p.pid)) return false;
  let cmdline: string;
  try {
    cmdline = readFileSync(`/proc/${p.pid}/cmdline`, 'utf8');
  } catch {
    return isAlive(p.pid); // no /proc to tell (or it just went): the pid is all there is
  }
  return cmdline === '' || cmdline === [p.binary, ...p.args, ''].join('\0');
}

/**
 * SIGTERM to each process group, then SIGKILL to whatever still lives after `graceMs`; a
 * process that is gone already gets no signal, since its pid may be another's by now.
 */
export async function stopProcesses(processes: readonly ManagedProcess[], graceMs = 10_000): Promise<void> {
  const signalGroup = (pid: number, signal: NodeJS.Signals) => {
    try {
      process.kill(-pid, signal);
    } catch {
      // Already gone.
    }
  };
  const running = processes.filter(stillRunning);
  for (const p of running) signalGroup(p.pid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (running.some(stillRunning) && Date.now() < deadline) await sleep(100);
  for (const p of running) if (stillRunning(p)) signalGroup(p.pid, 'SIGKILL');
  while (running.some(stillRunning)) await sleep(50);
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
