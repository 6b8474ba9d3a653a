import { AnyKind } from '../core/kind';
import { OBJECT_CONDITION_METRIC, ObjectGauge, objectGaugeMetric } from '../core/monitoring';
import { Gauge, Metrics } from './metrics';

interface CachedObject {
  readonly metadata: { readonly name: string; readonly namespace?: string; readonly [key: string]: unknown };
  readonly spec?: unknown;
  readonly status?: unknown;
}

type Conditions = { readonly conditions?: readonly { type?: string; status?: string; reason?: string }[] } | undefined;

/**
 * Series per object, read from the caches at every scrape, so that an alert can name the object:
 * its conditions (one series per condition type, value 1, with its status and reason) and the
 * gauges its kind declares. The count is bounded by the objects served times the few condition
 * types (Ready, Stalled or Reconciling) plus the kind's gauges: about as many series as
 * kube-state-metrics keeps for the same number of Pods, and none of them a histogram.
 */
export class ObjectMetrics {
  private readonly conditions: Gauge;
  private readonly gauges = new Map<string, Gauge>();
  /** Its own registry, rendered at most once per maxAgeMs. */
  private readonly registry = new Metrics();
  private rendered?: { text: string; at: number };

  constructor(
    parent: Metrics,
    private readonly kinds: readonly AnyKind[],
    objectsOf: (kind: AnyKind) => Iterable<CachedObject>,
    /**
     * How old the per-object families may be when scraped. Rebuilding them costs time in
     * proportion to the objects served (docs/benchmarks.md: about a second at 100,000), so
     * however often scrapes come, they are rebuilt at most once in this time. @default 5 seconds
     */
    private readonly maxAgeMs = 5000,
  ) {
    const registry = this.registry;
    this.conditions = registry.gauge(
      OBJECT_CONDITION_METRIC,
      'Conditions of each served object: 1 per object and condition type, with its status and reason.',
      ['kind', 'namespace', 'name', 'type', 'status', 'reason'],
    );
    for (const kind of kinds) {
      for (const gauge of kind.monitoring?.gauges ?? []) {
        const metric = objectGaugeMetric(kind, gauge);
        this.gauges.set(metric, registry.gauge(metric, gauge.help, ['namespace', 'name']));
      }
    }
    parent.addSection(() => this.render(objectsOf));
  }

  /** The families as of at most maxAgeMs ago. */
  render(objectsOf: (kind: AnyKind) => Iterable<CachedObject>, now = Date.now()): string {
    if (this.rendered && now - this.rendered.at < this.maxAgeMs) return this.rendered.text;
    this.collect(this.kinds, objectsOf);
    const text = this.registry.render();
    // The series are in the text now: dropped, so that 100,000 objects' are not held twice between scrapes.
    this.conditions.reset();
    for (const gauge of this.gauges.values()) gauge.reset();
    this.rendered = { text, at: now };
    return text;
  }

  /** Replaces every series with what `objectsOf` holds now: objects that went away leave no series behind. */
  private collect(kinds: readonly AnyKind[], objectsOf: (kind: AnyKind) => Iterable<CachedObject>): void {
    this.conditions.reset();
    for (const gauge of this.gauges.values()) gauge.reset();
    for (const kind of kinds) {
      for (const object of objectsOf(kind)) {
        const where = { namespace: object.metadata.namespace ?? '', name: object.metadata.name };
        for (const c of (object.status as Conditions)?.conditions ?? []) {
          if (!c.type) continue;
          this.conditions.set({ kind: kind.kind, ...where, type: c.type, status: c.status ?? 'Unknown', reason: c.reason ?? '' }, 1);
        }
        for (const gauge of kind.monitoring?.gauges ?? []) {
          const value = valueOf(gauge, object);
          if (value !== undefined && Number.isFinite(value)) this.gauges.get(objectGaugeMetric(kind, gauge))!.set(where, value);
        }
      }
    }
  }
}

/** A gauge that cannot read an object (a field of an unexpected type) gives no series rather than failing the scrape. */
function valueOf(gauge: ObjectGauge, object: CachedObject): number | undefined {
  try {
    return gauge.value(object);
  } catch {
    return undefined;
  }
}
