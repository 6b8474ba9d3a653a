/**
 * What a kind adds to the operator's monitoring (`KindDefinition.monitoring`): gauges read from
 * each of its objects at every scrape, and alerting rules over them and the engine's metrics.
 * The engine exports the gauges and ships the rules beside its own (dist/monitoring/, the Helm
 * chart); it never names a kind.
 */

/** How urgent an alert is: `critical` pages someone, `warning` is a ticket, `info` only shows. */
export type Severity = 'critical' | 'warning' | 'info';

/** One Prometheus alerting rule, with what the person on call reads. */
export interface AlertRule {
  /** CamelCase name; also the anchor of its runbook in docs/monitoring.md (lower-cased). */
  readonly alert: string;
  /** PromQL; every series it returns is one alert, carrying the series' labels. */
  readonly expr: string;
  /** How long `expr` must hold before the alert fires, e.g. `15m`. */
  readonly for: string;
  readonly severity: Severity;
  /** One line, no labels: what is wrong. */
  readonly summary: string;
  /** Names the object (or controller) with `{{ $labels.x }}` and says what to look at first. */
  readonly description: string;
}

/** A number the kind reads off one of its cached objects, exported per object at every scrape. */
export interface ObjectGauge {
  /** snake_case; exported as `<operator>_<singular>_<name>{namespace,name}` (OperatorNames.metricPrefix). */
  readonly name: string;
  readonly help: string;
  /** The value for the object as the API server stores it (spec unvalidated), or undefined for no series. */
  readonly value: (object: { readonly metadata: Record<string, unknown>; readonly spec?: unknown; readonly status?: unknown }) => number | undefined;
}

/**
 * A gauge counting the items of a list in the object's status (e.g. `conflicts`), which a kind
 * lists there up to a bound; 0 when the status has none.
 */
export function statusListGauge(name: string, field: string, help: string): ObjectGauge {
  return { name, help, value: (object) => ((object.status as Record<string, unknown[] | undefined> | undefined)?.[field] ?? []).length };
}

/** The metric names a kind's alerts select, as the operator that serves the kind exports them. */
export interface KindMetricNames {
  /** The per-object condition series (objectConditionMetric), e.g. `acme_operators_object_condition`. */
  readonly objectCondition: string;
  /** The series of one of the kind's own gauges, by its name (objectGaugeMetric), e.g. `acme_operators_widget_last_backup_timestamp_seconds`. */
  readonly gauge: (name: string) => string;
}

export interface KindMonitoring {
  /** Gauges of each object, e.g. its last backup time; one series per object. */
  readonly gauges?: readonly ObjectGauge[];
  /**
   * Alerts of the kind's own, beside the engine's generic ones (Stalled, not Ready, errors...),
   * given the metric names of the operator that serves the kind: a kind does not know its
   * operator's metric prefix. A list is still taken (the contract of 0.1.0), with
   * OBJECT_CONDITION_METRIC filled in.
   */
  readonly alerts?: ((metrics: KindMetricNames) => readonly AlertRule[]) | readonly AlertRule[];
}

/** The metric name of a kind's gauge. */
export function objectGaugeMetric(metricPrefix: string, kind: { readonly singular: string }, gauge: Pick<ObjectGauge, 'name'>): string {
  return `${metricPrefix}${kind.singular}_${gauge.name}`;
}

/**
 * The per-object condition series the engine exports for every kind: one per object and
 * condition type, value 1, labels kind, namespace, name, type, status and reason. Kinds' alerts
 * select their own reasons from it.
 */
export function objectConditionMetric(metricPrefix: string): string {
  return `${metricPrefix}object_condition`;
}

/**
 * A placeholder for the operator's objectConditionMetric in a kind's alert list, filled in by
 * the engine when it writes the rules.
 * @deprecated since 0.1.0: declare `alerts` as a function and select `metrics.objectCondition`.
 */
export const OBJECT_CONDITION_METRIC = '__operator_object_condition__';

/** A kind's alerts against the metric names of the operator serving it. */
export function kindAlerts(kind: { readonly singular: string; readonly monitoring?: KindMonitoring }, metricPrefix: string): readonly AlertRule[] {
  const alerts = kind.monitoring?.alerts;
  if (!alerts) return [];
  const objectCondition = objectConditionMetric(metricPrefix);
  if (typeof alerts === 'function') return alerts({ objectCondition, gauge: (name) => objectGaugeMetric(metricPrefix, kind, { name }) });
  return alerts.map((alert) => ({ ...alert, expr: alert.expr.split(OBJECT_CONDITION_METRIC).join(objectCondition) }));
}

/** A PromQL regex matching exactly these values (each escaped). */
export function anyOf(values: readonly string[]): string {
  return values.map((v) => v.replace(/[.*+?^${}()|[\]\\]/g, '\\\\$&')).join('|');
}
