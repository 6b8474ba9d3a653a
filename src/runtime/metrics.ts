import { collectDefaultMetrics, Registry } from 'prom-client';

/**
 * A tiny Prometheus registry: counters, gauges and histograms rendered in the text exposition
 * format 0.0.4, for the controller's own metrics (synchronous, deterministic output the tests
 * compare exactly). The process and runtime metrics come from prom-client (processMetrics).
 */

export type Labels = Record<string, string>;

export interface Counter {
  /** Adds `by` (default 1, never negative: a counter only goes up) to the series of `labels`. */
  inc(labels?: Labels, by?: number): void;
}

export interface Gauge {
  set(labels: Labels | undefined, value: number): void;
  inc(labels?: Labels, by?: number): void;
  dec(labels?: Labels, by?: number): void;
  /** Drops every series, for a gauge refilled from scratch at each scrape (objects that went away must not linger). */
  reset(): void;
}

export interface Histogram {
  observe(labels: Labels | undefined, seconds: number): void;
}

type Type = 'counter' | 'gauge' | 'histogram';

/** Prometheus client libraries' default buckets, in seconds: fine for API calls and reconciles. */
export const DEFAULT_BUCKETS: readonly number[] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

interface Series {
  readonly labels: string[]; // values, in labelNames order
  value: number; // counters and gauges
  buckets: number[]; // histograms: per-bucket (not yet cumulative) counts
  sum: number;
  count: number;
}

interface Family {
  readonly name: string;
  readonly help: string;
  readonly type: Type;
  readonly labelNames: readonly string[];
  readonly buckets: readonly number[];
  readonly series: Map<string, Series>;
}

export class Metrics {
  private readonly families = new Map<string, Family>();
  private readonly instruments = new Map<string, Counter | Gauge | Histogram>();
  private readonly collectors: Array<() => void> = [];
  private readonly sections: Array<() => string> = [];

  /** `prefix`: the operator's (OperatorNames.metricPrefix), before the engine's own metric names (see named). */
  constructor(private readonly options: { readonly prefix?: string } = {}) {}

  /** The full name of one of the engine's own metrics, e.g. `reconciles_total` as `<operator>_reconciles_total`: two operators' series never share a name. */
  named(name: string): string {
    // Unprefixed, `workqueue_depth` would be client-go's metric of another shape.
    if (!this.prefix) throw new Error(`metric ${name}: the registry has no operator prefix (new Metrics({ prefix: operatorNames(identity).metricPrefix }))`);
    return `${this.prefix}${name}`;
  }

  get prefix(): string {
    return this.options.prefix ?? '';
  }

  /** Runs `collect` before every render: for gauges read from state (caches, in-flight work) at scrape time. */
  onCollect(collect: () => void): void {
    this.collectors.push(collect);
  }

  /** Appends what `render` returns to every render: the families of another registry (e.g. one rendered less often). */
  addSection(render: () => string): void {
    this.sections.push(render);
  }

  counter(name: string, help: string, labelNames: string[] = []): Counter {
    return this.register(name, help, 'counter', labelNames, [], (family) => ({
      inc: (labels, by = 1) => {
        if (!(by >= 0)) throw new Error(`metric ${name}: a counter can only increase, got inc by ${by}`);
        this.series(family, labels).value += by;
      },
    }));
  }

  gauge(name: string, help: string, labelNames: string[] = []): Gauge {
    return this.register(name, help, 'gauge', labelNames, [], (family) => ({
      set: (labels, value) => void (this.series(family, labels).value = value),
      inc: (labels, by = 1) => void (this.series(family, labels).value += by),
      dec: (labels, by = 1) => void (this.series(family, labels).value -= by),
      reset: () => {
        family.series.clear();
        if (labelNames.length === 0) this.series(family, undefined);
      },
    }));
  }

  histogram(name: string, help: string, labelNames: string[] = [], buckets: readonly number[] = DEFAULT_BUCKETS): Histogram {
    // +Inf is always the last bucket, so a caller's explicit +Inf is dropped rather than written twice.
    const bounds = buckets.filter((b) => b !== Infinity);
    if (bounds.some((b, i) => !Number.isFinite(b) || (i > 0 && b <= bounds[i - 1]))) {
      throw new Error(`metric ${name}: buckets must be finite and strictly increasing, got [${buckets.join(', ')}]`);
    }
    if (labelNames.includes('le')) throw new Error(`metric ${name}: "le" is reserved for histogram buckets`);
    return this.register(name, help, 'histogram', labelNames, bounds, (family) => ({
      observe: (labels, seconds) => {
        const series = this.series(family, labels);
        const index = bounds.findIndex((bound) => seconds <= bound);
        series.buckets[index < 0 ? bounds.length : index] += 1;
        series.sum += seconds;
        series.count += 1;
      },
    }));
  }

  /** Every family by name, every series by label values: the same state always renders the same text. */
  render(): string {
    for (const collect of this.collectors) collect();
    const lines: string[] = [];
    for (const family of [...this.families.values()].sort((a, b) => compare(a.name, b.name))) {
      lines.push(`# HELP ${family.name} ${escapeHelp(family.help)}`, `# TYPE ${family.name} ${family.type}`);
      const series = [...family.series.entries()].sort(([a], [b]) => compare(a, b)).map(([, s]) => s);
      for (const s of series) {
        const pairs = family.labelNames.map((label, i) => `${label}="${escapeLabelValue(s.labels[i])}"`);
        if (family.type !== 'histogram') {
          lines.push(`${family.name}${braces(pairs)} ${formatNumber(s.value)}`);
          continue;
        }
        let cumulative = 0;
        [...family.buckets, Infinity].forEach((bound, i) => {
          cumulative += s.buckets[i];
          lines.push(`${family.name}_bucket${braces([...pairs, `le="${formatNumber(bound)}"`])} ${cumulative}`);
        });
        lines.push(`${family.name}_sum${braces(pairs)} ${formatNumber(s.sum)}`, `${family.name}_count${braces(pairs)} ${s.count}`);
      }
    }
    return (lines.length ? lines.join('\n') + '\n' : '') + this.sections.map((section) => section()).join('');
  }

  private register<T extends Counter | Gauge | Histogram>(
    name: string,
    help: string,
    type: Type,
    labelNames: readonly string[],
    buckets: readonly number[],
    make: (family: Family) => T,
  ): T {
    const existing = this.families.get(name);
    if (existing) {
      // Registering again returns the same instrument, so two modules may each declare what they use; a different shape is a bug.
      const same = existing.type === type && sameList(existing.labelNames, labelNames) && sameList(existing.buckets, buckets);
      if (!same) {
        throw new Error(
          `metric ${name} is already registered as a ${existing.type} with labels [${existing.labelNames.join(', ')}]; ` +
            `cannot register it again as a ${type} with labels [${labelNames.join(', ')}]` +
            (type === 'histogram' && existing.type === 'histogram' ? ' (or the buckets differ)' : ''),
        );
      }
      return this.instruments.get(name) as T;
    }
    if (!METRIC_NAME.test(name)) throw new Error(`metric name "${name}" is not valid: expected [a-zA-Z_:][a-zA-Z0-9_:]*`);
    for (const label of labelNames) {
      if (!LABEL_NAME.test(label) || label.startsWith('__')) throw new Error(`metric ${name}: label name "${label}" is not valid: expected [a-zA-Z_][a-zA-Z0-9_]* not starting with __`);
    }
    if (new Set(labelNames).size !== labelNames.length) throw new Error(`metric ${name}: label names repeat: [${labelNames.join(', ')}]`);
    const family: Family = { name, help, type, labelNames: [...labelNames], buckets, series: new Map() };
    const instrument = make(family);
    this.families.set(name, family);
    this.instruments.set(name, instrument);
    // A metric without labels has exactly one series, shown as 0 from the start, so a scrape sees it before anything happened.
    if (labelNames.length === 0) this.series(family, undefined);
    return instrument;
  }

  // Called for every request and reconcile: checks and keys the labels without building arrays first.
  private series(family: Family, labels: Labels | undefined): Series {
    const names = family.labelNames;
    let given = 0;
    let known = 0;
    for (const name in labels) {
      if (!Object.hasOwn(labels, name)) continue;
      given++;
      if (names.includes(name)) known++;
    }
    if (given !== names.length || known !== given) {
      throw new Error(`metric ${family.name}: expected labels [${names.join(', ')}], got [${Object.keys(labels ?? {}).join(', ')}]`);
    }
    let key = '';
    for (const name of names) key += `${JSON.stringify(String(labels![name]))},`;
    let series = family.series.get(key);
    if (!series) {
      series = { labels: names.map((l) => String(labels![l])), value: 0, buckets: new Array(family.buckets.length + 1).fill(0), sum: 0, count: 0 };
      family.series.set(key, series);
    }
    return series;
  }
}

/** Code-unit order, not localeCompare, so the output does not depend on the machine's locale. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function sameList<T>(a: readonly T[], b: readonly T[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

function braces(pairs: string[]): string {
  return pairs.length ? `{${pairs.join(',')}}` : '';
}

export function escapeHelp(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

export function escapeLabelValue(text: string): string {
  // Most values need nothing: no regular expression run for them (a scrape escapes hundreds of thousands).
  if (!/[\\"\n]/.test(text)) return text;
  return text.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

export function formatNumber(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (n === Infinity) return '+Inf';
  if (n === -Infinity) return '-Inf';
  return String(n);
}

/**
 * The standard process and runtime metrics as the ecosystem's Prometheus client for Node
 * collects them (process_resident_memory_bytes, process_cpu_seconds_total,
 * nodejs_eventloop_lag_seconds, nodejs_gc_duration_seconds, heap sizes, ...), so the
 * controller's own cost shows beside its work. Start it once per process: it observes GC.
 */
export function processMetrics(): () => Promise<string> {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return () => registry.metrics();
}
