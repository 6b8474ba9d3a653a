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

  constructor(registry: Metrics, kinds: readonly AnyKind[]) {
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
  }

  /** Replaces every series with what `objectsOf` holds now: objects that went away leave no series behind. */
  collect(kinds: readonly AnyKind[], objectsOf: (kind: AnyKind) => Iterable<CachedObject>): void {
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
