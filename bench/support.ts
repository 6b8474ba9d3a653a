import { existsSync, readFileSync } from 'node:fs';
import { KubeError } from '../src/kube/rest';
import { UserError } from '../src/core/errors';
import { helpOf, OptionSpec, OptionValues, parseCommandLine, specCommand } from '../src/commands/command-line';

/** Small helpers of the benchmark: waiting with a deadline, bounded concurrency, statistics, /metrics and /proc parsing. */

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Milliseconds since `start` (a performance.now() value), in seconds. */
export function secondsSince(start: number): number {
  return (performance.now() - start) / 1000;
}

/**
 * Calls `check` every `intervalMs` (counted from the end of one call to the start of the next)
 * until it returns a value other than undefined; fails after `timeoutMs` saying what was awaited.
 * An error thrown by `check` ends the wait at once: checks swallow the errors worth retrying.
 */
export async function waitUntil<T>(what: string, timeoutMs: number, intervalMs: number, check: () => Promise<T | undefined>): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (performance.now() > deadline) throw new Error(`timed out after ${Math.round(timeoutMs / 1000)} s waiting for ${what}`);
    await sleep(intervalMs);
  }
}

/** Runs `task(i)` for every i in [0, count) with at most `concurrency` in flight; the first failure stops new starts. */
export async function forEachLimited(count: number, concurrency: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < count) {
      const i = next++;
      try {
        await task(i);
      } catch (err) {
        failed = true;
        throw err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
}

/** An API error worth another try: throttling, a server-side failure, or no answer at all. */
export function isTransient(err: unknown): boolean {
  return !(err instanceof KubeError) || err.code === 429 || err.code >= 500;
}

/** Retries `call` on transient errors, up to `attempts` times with a growing pause. */
export async function withRetries<T>(call: (attempt: number) => Promise<T>, attempts = 5): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await call(attempt);
    } catch (err) {
      if (!isTransient(err) || attempt + 1 >= attempts) throw err;
      await sleep(200 * 2 ** attempt);
    }
  }
}

export interface Spread {
  readonly median: number;
  readonly min: number;
  readonly max: number;
}

export function spread(values: readonly number[]): Spread {
  if (!values.length) throw new Error('no values to summarize');
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  return { median, min: sorted[0], max: sorted[sorted.length - 1] };
}

/** One Prometheus sample: metric name, labels, value. */
export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** Parses the text exposition format (what /metrics serves); comments and blank lines are skipped. */
export function parseMetrics(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)$/.exec(line.trim());
    if (!match) continue;
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[key] = value.replace(/\\n/g, '\n').replace(/\\(.)/g, '$1');
    }
    samples.push({ name: match[1], labels, value: Number(match[3]) });
  }
  return samples;
}

/** The sum of a metric's series whose labels pass `where`, 0 when it has none yet. */
export function total(samples: readonly Sample[], name: string, where: (labels: Readonly<Record<string, string>>) => boolean = () => true): number {
  return samples.filter((s) => s.name === name && where(s.labels)).reduce((sum, s) => sum + s.value, 0);
}

/** A metric's value per value of one label, e.g. requests per method. */
export function byLabel(samples: readonly Sample[], name: string, label: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const s of samples) if (s.name === name) out[s.labels[label] ?? ''] = (out[s.labels[label] ?? ''] ?? 0) + s.value;
  return out;
}

/** Resident and peak resident memory of a Linux process, in MiB, from /proc/<pid>/status. */
export function processMemory(pid: number): { rssMiB: number; peakMiB: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
    if (!match) throw new Error(`/proc/${pid}/status has no ${field}`);
    return Number(match[1]);
  };
  return { rssMiB: kib('VmRSS') / 1024, peakMiB: kib('VmHWM') / 1024 };
}

/** Rows as columns padded to their widest cell; numbers are right-aligned. */
export function table(rows: readonly (readonly string[])[]): string {
  const widths = rows[0].map((_, col) => Math.max(...rows.map((row) => (row[col] ?? '').length)));
  return rows
    .map((row) => row.map((cell, col) => (/^[-+]?[\d.,]+( ?[a-zA-Z/%×]+)?$/.test(cell) && col > 0 ? cell.padStart(widths[col]) : cell.padEnd(widths[col]))).join('  ').trimEnd())
    .join('\n');
}

export function fixed(n: number, digits = 2): string {
  return n.toFixed(digits);
}

/**
 * A benchmark's options from its command line alone (a variable such as IDLE set for something
 * else must not change the run), checked further by `check`, or its exit code: 0 once --help is
 * printed, 2 for a bad flag.
 */
export function benchOptions<T = OptionValues>(command: string, specs: readonly OptionSpec[], argv: string[], check?: (values: OptionValues) => T): T | number {
  const parser = specCommand(`npm run ${command} --`, `The options of npm run ${command}; a variable of the environment changes nothing.`, specs, null);
  try {
    const parsed = parseCommandLine(parser, specs, argv, {});
    if (!parsed) {
      process.stdout.write(`${helpOf(parser)}\n`);
      return 0;
    }
    return check ? check(parsed.values) : (parsed.values as T);
  } catch (err) {
    if (!(err instanceof UserError)) throw err;
    for (const line of err.lines(command)) process.stderr.write(`${line}\n`);
    return 2;
  }
}

/** The controller's --workers, as every benchmark that starts one takes it. */
export const WORKERS_OPTION: OptionSpec = { name: 'workers', type: 'integer', default: '4', description: 'The controller\u2019s --workers.' };

/** The API methods that write. */
export const WRITE_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE'];

/** The API writes a controller counted in `cdk8s_operators_api_requests_total`. */
export function apiWrites(samples: readonly Sample[]): number {
  return total(samples, 'cdk8s_operators_api_requests_total', (l) => WRITE_METHODS.includes(l.method));
}

/** What grew between two readings of per-label counts (e.g. requests per method), without the ones that did not. */
export function increase(after: Record<string, number>, before: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(after).map(([k, v]) => [k, v - (before[k] ?? 0)]).filter(([, v]) => (v as number) > 0));
}

/** A controller's HTTP endpoint on 127.0.0.1: its port, /metrics parsed, and whether /readyz says its caches synced. */
export interface ControllerHttp {
  readonly port: number;
  metrics(): Promise<Sample[]>;
  ready(): Promise<boolean>;
}

/**
 * Waits until the controller's log names the ports it serves on (it logs "controller starting"
 * with httpPort and metricsPort); the benchmarks run it with --metrics-secure=false.
 */
export async function controllerHttp(logFile: string): Promise<ControllerHttp> {
  const started = await waitUntil(`the controller to start (log ${logFile})`, 60_000, 200, async () => {
    // The log is opened asynchronously: right after the spawn it may not exist yet.
    const line = (existsSync(logFile) ? readFileSync(logFile, 'utf8') : '').split('\n').find((l) => l.includes('"controller starting"'));
    return line ? (JSON.parse(line) as { httpPort: number; metricsPort: number }) : undefined;
  });
  return {
    port: started.httpPort,
    metrics: async () => parseMetrics(await (await fetch(`http://127.0.0.1:${started.metricsPort}/metrics`)).text()),
    ready: async () => (await fetch(`http://127.0.0.1:${started.httpPort}/readyz`)).ok,
  };
}

/** Waits until `count()` has not changed for `quietMs`, e.g. until a controller's last status writes and Events are out. */
export async function untilSteady(what: string, quietMs: number, timeoutMs: number, count: () => Promise<number>): Promise<void> {
  let last = -1;
  let steadySince = performance.now();
  await waitUntil(what, timeoutMs, 1000, async () => {
    const now = await count();
    if (now !== last) [last, steadySince] = [now, performance.now()];
    return performance.now() - steadySince >= quietMs ? true : undefined;
  });
}
