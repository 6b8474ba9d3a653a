/**
 * `npm run bench:scrape`: what one scrape of /metrics costs the controller at N objects (100,000
 * by default), in-process: every kind's caches holding N objects between them, each with a Ready
 * condition, rendered by the engine's registry with the per-object families (object-metrics.ts).
 * A rebuild writes the families from the caches; within maxAgeMs (5 s) a scrape reuses that text.
 */
import { AnyKind } from '../src/core/contract/kind';
import { objectGaugeMetric } from '../src/core/contract/monitoring';
import { KINDS } from '../src/kinds';
import { OptionSpec } from '../src/commands/command-line';
import { Metrics } from '../src/runtime/metrics';
import { ObjectMetrics } from '../src/runtime/object-metrics';
import { benchOptions, fixed, spread, table } from './support';
import { PRODUCT_NAMES } from '../src/product';

const OPTIONS: OptionSpec[] = [
  { name: 'objects', type: 'integer', default: '100000', description: 'Objects in the caches, spread evenly over the kinds.' },
  { name: 'scrapes', type: 'integer', default: '7', description: 'Scrapes timed for each row.' },
];

interface Cached {
  metadata: { name: string; namespace: string; creationTimestamp: string };
  spec: Record<string, unknown>;
  status: { conditions: { type: string; status: string; reason: string }[] };
}

function cachesOf(objects: number): Map<AnyKind, Cached[]> {
  const caches = new Map<AnyKind, Cached[]>(KINDS.map((kind) => [kind, []]));
  for (let i = 0; i < objects; i++) {
    const kind = KINDS[i % KINDS.length];
    caches.get(kind)!.push({
      metadata: { name: `object-${i}`, namespace: `team-${i % 200}`, creationTimestamp: '2026-01-01T00:00:00Z' },
      spec: { backup: { schedule: '0 3 * * *' } },
      status: { conditions: [{ type: 'Ready', status: 'True', reason: 'Reconciled' }] },
    });
  }
  return caches;
}

function timeScrapes(registry: Metrics, scrapes: number): { ms: number[]; bytes: number } {
  const ms: number[] = [];
  let bytes = 0;
  for (let i = 0; i < scrapes; i++) {
    const start = process.hrtime.bigint();
    bytes = registry.render().length;
    ms.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return { ms, bytes };
}

/** As every scrape built them before they were kept (code 8f5fa3c): each object's series set in the registry's gauges, then the registry rendered. */
function throughTheRegistry(caches: Map<AnyKind, Cached[]>): Metrics {
  const registry = new Metrics({ prefix: PRODUCT_NAMES.metricPrefix });
  const conditions = registry.gauge(PRODUCT_NAMES.objectConditionMetric, 'Conditions.', ['kind', 'namespace', 'name', 'type', 'status', 'reason']);
  const gauges = new Map(KINDS.flatMap((kind) => (kind.monitoring?.gauges ?? []).map((g) => [objectGaugeMetric(PRODUCT_NAMES.metricPrefix, kind, g), registry.gauge(objectGaugeMetric(PRODUCT_NAMES.metricPrefix, kind, g), g.help, ['namespace', 'name'])] as const)));
  registry.onCollect(() => {
    conditions.reset();
    for (const gauge of gauges.values()) gauge.reset();
    for (const [kind, objects] of caches) {
      for (const object of objects) {
        const where = { namespace: object.metadata.namespace, name: object.metadata.name };
        for (const c of object.status.conditions) conditions.set({ kind: kind.kind, ...where, type: c.type, status: c.status, reason: c.reason }, 1);
        for (const gauge of kind.monitoring?.gauges ?? []) {
          const value = gauge.value(object);
          if (value !== undefined && Number.isFinite(value)) gauges.get(objectGaugeMetric(PRODUCT_NAMES.metricPrefix, kind, gauge))!.set(where, value);
        }
      }
    }
  });
  return registry;
}

export async function main(argv: string[]): Promise<number> {
  const values = benchOptions('bench:scrape', OPTIONS, argv);
  if (typeof values === 'number') return values;
  const objects = values.objects as number;
  const scrapes = values.scrapes as number;
  const caches = cachesOf(objects);
  const objectsOf = (kind: AnyKind) => caches.get(kind) ?? [];

  const before = timeScrapes(throughTheRegistry(caches), scrapes);
  // maxAgeMs 0: rebuilt at every scrape; the default: rebuilt at most every 5 s.
  const rebuilt = new Metrics({ prefix: PRODUCT_NAMES.metricPrefix });
  new ObjectMetrics(rebuilt, KINDS, objectsOf, 0);
  const rebuilds = timeScrapes(rebuilt, scrapes);
  const kept = new Metrics({ prefix: PRODUCT_NAMES.metricPrefix });
  new ObjectMetrics(kept, KINDS, objectsOf);
  const first = timeScrapes(kept, 1);
  const cached = timeScrapes(kept, scrapes);

  const row = (what: string, ms: number[]) => {
    const s = spread(ms);
    return [what, fixed(s.median, 1), fixed(s.min, 1), fixed(s.max, 1)];
  };
  console.log(`One scrape at ${objects} objects (${KINDS.length} kinds; ${fixed(rebuilds.bytes / 1048576, 1)} MiB of exposition text), ${scrapes} scrapes per row:`);
  console.log(table([['scrape', 'median ms', 'min ms', 'max ms'], row('through the registry, every scrape (before)', before.ms), row('rebuilt at every scrape (maxAgeMs 0)', rebuilds.ms), row('first, then kept 5 s', first.ms), row('within the 5 s', cached.ms)]));
  console.log(`\nHeap used after: ${fixed(process.memoryUsage().heapUsed / 1048576, 1)} MiB`);
  return 0;
}

if (require.main === module) void main(process.argv.slice(2)).then((code) => process.exit(code));
