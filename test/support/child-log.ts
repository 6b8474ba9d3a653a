import { ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';

/**
 * Appends a child's stdout and stderr to `logFile`; resolves with its exit code once the log
 * holds everything it printed. A child's 'exit' can come before its last output is read, so a
 * test reading the log right after the exit (a refusal at start) could find it empty.
 */
export function logChild(child: ChildProcess, logFile: string): Promise<number | null> {
  const log = createWriteStream(logFile, { flags: 'a' });
  child.stdout!.pipe(log, { end: false });
  child.stderr!.pipe(log, { end: false });
  return new Promise((resolve) => child.once('close', (code) => log.end(() => resolve(code))));
}
