import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import { Json } from './mirror';

/** Values this short (a user name such as "postgres") say nothing about a leak. */
const MIN_SECRET_LENGTH = 12;

/**
 * Knows every Secret value (the soak's own, and each Secret the checker saw, in clear and in
 * base64) and looks for them in log lines, Events and statuses.
 */
export class LeakScanner {
  private readonly values = new Set<string>();
  private readonly offsets = new Map<string, number>();

  constructor(private readonly found: (where: string) => void) {}

  learn(value: string): void {
    if (value.length < MIN_SECRET_LENGTH) return;
    this.values.add(value);
    this.values.add(Buffer.from(value).toString('base64'));
  }

  learnSecret(secret: Json): void {
    for (const encoded of Object.values(secret.data ?? {})) this.learn(Buffer.from(encoded, 'base64').toString('utf8'));
  }

  get known(): number {
    return this.values.size;
  }

  scan(where: string, text: string): void {
    for (const value of this.values) if (text.includes(value)) return this.found(`${where} holds a Secret value`);
  }

  /** Reads what `file` gained since the last call and scans it line by line (and hands each line to `onLine`). */
  scanFile(file: string, onLine: (line: string) => void = () => undefined): void {
    if (!existsSync(file)) return;
    const size = statSync(file).size;
    const from = this.offsets.get(file) ?? 0;
    if (size <= from) return;
    const buffer = Buffer.alloc(size - from);
    const fd = openSync(file, 'r');
    try {
      readSync(fd, buffer, 0, buffer.length, from);
    } finally {
      closeSync(fd);
    }
    const text = buffer.toString('utf8');
    const complete = text.lastIndexOf('\n') + 1;
    this.offsets.set(file, from + Buffer.byteLength(text.slice(0, complete)));
    for (const line of text.slice(0, complete).split('\n')) {
      if (!line) continue;
      this.scan(`a log line of ${file} (not shown: it holds the value)`, line);
      onLine(line);
    }
  }
}
