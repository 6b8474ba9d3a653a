import { AnyKind } from '../core/contract/kind';
import { objectConditionMetric, ObjectGauge, objectGaugeMetric } from '../core/contract/monitoring';
import { escapeHelp, escapeLabelValue, formatNumber, Metrics } from './metrics';

interface CachedObject {
  readonly metadata: { readonly name: string; readonly namespace?: string; readonly [key: string]: unknown };
  readonly spec?: unknown;
  readonly status?: unknown;
}

type Conditions = { readonly conditions?: readonly { type?: string; status?: string; reason?: string }[] } | undefined;

/** One family's text as it is built, a line per series. */
interface Family {
  readonly name: string;
  readonly help: string;
  readonly lines: string[];
}

/**
 * Series per object, read from the caches, so that an alert can name the object: its conditions
 * (one series per condition type, value 1, with its status and reason) and the gauges its kind
 * declares. The count is bounded by the objects served times the few condition types (Ready,
 * Stalled or Reconciling) plus the kind's gauges: about as many series as kube-state-metrics
 * keeps for the same number of Pods, and none of them a histogram.
 *
 * Their cost is bounded too: they are written as text straight from the caches (no registry, no
 * sorting: tens of milliseconds at 100,000 objects, where the registry took seconds), and that
 * text is kept for maxAgeMs, so however often scrapes come, they are rebuilt at most once in
 * that time (docs/benchmarks.md#one-scrape-at-100000-objects).
 */
export class ObjectMetrics {
  private rendered?: { text: string; at: number };
  /** The operator's metric prefix (the parent registry's). */
  private readonly prefix: string;

  constructor(
    parent: Metrics,
    private readonly kinds: readonly AnyKind[],
    private readonly objectsOf: (kind: AnyKind) => Iterable<CachedObject>,
    /** How old the families may be when scraped. @default 5 seconds */
    private readonly maxAgeMs = 5000,
  ) {
    this.prefix = parent.prefix;
    parent.addSection(() => this.render());
  }

  /** The families as of at most maxAgeMs ago. */
  render(): string {
    if (this.rendered && Date.now() - this.rendered.at < this.maxAgeMs) return this.rendered.text;
    const text = this.build();
    // From when it is done: a build that took long is not thrown away at once.
    this.rendered = { text, at: Date.now() };
    return text;
  }

  private build(): string {
    const conditionMetric = objectConditionMetric(this.prefix);
    const conditions: Family = { name: conditionMetric, help: 'Conditions of each served object: 1 per object and condition type, with its status and reason.', lines: [] };
    const gauges = new Map<string, Family>();
    for (const kind of this.kinds) {
      for (const gauge of kind.monitoring?.gauges ?? []) {
        const name = objectGaugeMetric(this.prefix, kind, gauge);
        gauges.set(name, { name, help: gauge.help, lines: [] });
      }
    }
    for (const kind of this.kinds) {
      const kindLabel = `kind="${escapeLabelValue(kind.kind)}",`;
      const kindGauges = (kind.monitoring?.gauges ?? []).map((gauge) => ({ gauge, family: gauges.get(objectGaugeMetric(this.prefix, kind, gauge))! }));
      // An object of the same namespace and name in two groups of the kind would repeat a series, which fails the whole scrape.
      const seen = new Set<string>();
      for (const object of this.objectsOf(kind)) {
        const key = `${object.metadata.namespace ?? ''}/${object.metadata.name}`;
        if (seen.has(key)) continue;
        seen.add(key);
        const where = `namespace="${escapeLabelValue(object.metadata.namespace ?? '')}",name="${escapeLabelValue(object.metadata.name)}"`;
        for (const c of (object.status as Conditions)?.conditions ?? []) {
          if (!c.type) continue;
          conditions.lines.push(`${conditionMetric}{${kindLabel}${where},type="${escapeLabelValue(c.type)}",status="${escapeLabelValue(c.status ?? 'Unknown')}",reason="${escapeLabelValue(c.reason ?? '')}"} 1`);
        }
        for (const { gauge, family } of kindGauges) {
          const value = valueOf(gauge, object);
          if (value !== undefined && Number.isFinite(value)) family.lines.push(`${family.name}{${where}} ${formatNumber(value)}`);
        }
      }
    }
    return [conditions, ...gauges.values()].map(text).join('');
  }
}

function text(family: Family): string {
  const head = `# HELP ${family.name} ${escapeHelp(family.help)}\n# TYPE ${family.name} gauge\n`;
  return family.lines.length ? `${head}${family.lines.join('\n')}\n` : head;
}

/** A gauge that cannot read an object (a field of an unexpected type) gives no series rather than failing the scrape. */
function valueOf(gauge: ObjectGauge, object: CachedObject): number | undefined {
  try {
    return gauge.value(object);
  } catch {
    return undefined;
  }
}
