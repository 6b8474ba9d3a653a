import { anyOf } from '../core/contract/monitoring';
import { OperatorNames } from '../core/install/identity';
import { monitoringJob } from './engine-alerts';

/** One graph: a title, its queries (PromQL with their legends) and the unit of its values. */
interface Panel {
  readonly title: string;
  readonly description: string;
  readonly type: 'timeseries' | 'stat';
  readonly unit: string;
  readonly queries: readonly { readonly expr: string; readonly legend: string }[];
}

/** The rows of the dashboard, four panels of 6 columns each, top to bottom; `alerts` are the names of the operator's alerts. */
function rows(alerts: readonly string[], operator: OperatorNames): readonly { readonly title: string; readonly panels: readonly Panel[] }[] {
  const job = `job="${monitoringJob(operator)}"`;
  return [
  {
    title: 'Controller',
    panels: [
      { title: 'Replicas up', description: 'Controller replicas Prometheus scrapes.', type: 'stat', unit: 'none', queries: [{ expr: `sum(up{${job}})`, legend: 'up' }] },
      {
        title: 'Leading',
        description: 'Replicas that hold the leader Lease (1 when all is well).',
        type: 'stat',
        unit: 'none',
        queries: [{ expr: `sum by (name) (leader_election_master_status{${job}})`, legend: '{{name}}' }],
      },
      { title: 'Memory', description: 'Resident memory and used JavaScript heap of each replica.', type: 'timeseries', unit: 'bytes', queries: [{ expr: `process_resident_memory_bytes{${job}}`, legend: 'rss {{instance}}' }, { expr: `nodejs_heap_size_used_bytes{${job}}`, legend: 'heap {{instance}}' }] },
      { title: 'CPU', description: 'CPU seconds used per second by each replica.', type: 'timeseries', unit: 'percentunit', queries: [{ expr: `rate(process_cpu_seconds_total{${job}}[5m])`, legend: '{{instance}}' }] },
    ],
  },
  {
    title: 'Objects',
    panels: [
      {
        title: 'Objects by kind and Ready',
        description: 'Served objects of each kind by their Ready condition and its reason.',
        type: 'timeseries',
        unit: 'none',
        queries: [{ expr: `count by (kind, status, reason) (${operator.objectConditionMetric}{type="Ready"})`, legend: '{{kind}} Ready={{status}} {{reason}}' }],
      },
      {
        title: 'Stalled objects',
        description: 'Objects failing in a way that needs a person, by kind and reason.',
        type: 'timeseries',
        unit: 'none',
        queries: [{ expr: `count by (kind, reason) (${operator.objectConditionMetric}{type="Stalled",status="True"})`, legend: '{{kind}} {{reason}}' }],
      },
      {
        title: 'Children written',
        description: 'Children applied or pruned per second, by kind.',
        type: 'timeseries',
        unit: 'ops',
        queries: [{ expr: `sum by (kind, action) (rate(${operator.metricPrefix}child_writes_total{${job}}[5m]))`, legend: '{{kind}} {{action}}' }],
      },
      {
        title: 'Firing alerts',
        description: 'Alerts of the operator that fire now.',
        type: 'stat',
        unit: 'none',
        queries: [{ expr: `count(ALERTS{alertstate="firing",alertname=~"${anyOf(alerts)}"}) or vector(0)`, legend: 'firing' }],
      },
    ],
  },
  {
    title: 'Reconciles',
    panels: [
      {
        title: 'Reconciles by result',
        description: 'Reconciles per second by controller and result (controller-runtime\u2019s success, error, requeue, requeue_after).',
        type: 'timeseries',
        unit: 'ops',
        queries: [{ expr: `sum by (controller, result) (rate(controller_runtime_reconcile_total{${job}}[5m]))`, legend: '{{controller}} {{result}}' }],
      },
      {
        title: 'Reconcile errors',
        description: 'Reconciles that failed per second, by controller.',
        type: 'timeseries',
        unit: 'ops',
        queries: [{ expr: `sum by (controller) (rate(controller_runtime_reconcile_errors_total{${job}}[5m]))`, legend: '{{controller}}' }],
      },
      {
        title: 'Reconcile latency',
        description: 'Median and 99th percentile of a reconcile\u2019s duration, by controller.',
        type: 'timeseries',
        unit: 's',
        queries: [
          { expr: `histogram_quantile(0.5, sum by (controller, le) (rate(controller_runtime_reconcile_time_seconds_bucket{${job}}[5m])))`, legend: 'p50 {{controller}}' },
          { expr: `histogram_quantile(0.99, sum by (controller, le) (rate(controller_runtime_reconcile_time_seconds_bucket{${job}}[5m])))`, legend: 'p99 {{controller}}' },
        ],
      },
      {
        title: 'Workers busy',
        description: 'Reconciles running now, by controller, against the most that may run at once.',
        type: 'timeseries',
        unit: 'none',
        queries: [
          { expr: `sum by (controller) (controller_runtime_active_workers{${job}})`, legend: 'active {{controller}}' },
          { expr: `max by (controller) (controller_runtime_max_concurrent_reconciles{${job}})`, legend: 'max {{controller}}' },
        ],
      },
    ],
  },
  {
    title: 'Queue and API',
    panels: [
      { title: 'Queue depth', description: 'Objects waiting for a worker, by queue (one per kind).', type: 'timeseries', unit: 'none', queries: [{ expr: `sum by (name) (workqueue_depth{${job}})`, legend: '{{name}}' }] },
      {
        title: 'Queue wait and retries',
        description: 'The 99th percentile of the time an object waits for a worker, and retries with backoff per second.',
        type: 'timeseries',
        unit: 's',
        queries: [
          { expr: `histogram_quantile(0.99, sum by (name, le) (rate(workqueue_queue_duration_seconds_bucket{${job}}[5m])))`, legend: 'wait p99 {{name}}' },
          { expr: `sum by (name) (rate(workqueue_retries_total{${job}}[5m]))`, legend: 'retries/s {{name}}' },
        ],
      },
      {
        title: 'API requests',
        description: 'Requests to the API server per second by status code and method; 403 means the RBAC lacks a rule.',
        type: 'timeseries',
        unit: 'reqps',
        queries: [{ expr: `sum by (code, method) (rate(rest_client_requests_total{${job}}[5m]))`, legend: '{{code}} {{method}}' }],
      },
      {
        title: 'Watch restarts',
        description: 'Watches started over in the last 15 minutes, by collection and why (expired: a relist; error; silent).',
        type: 'timeseries',
        unit: 'none',
        queries: [{ expr: `sum by (resource, reason) (increase(${operator.metricPrefix}watch_restarts_total{${job}}[15m]))`, legend: '{{resource}} {{reason}}' }],
      },
    ],
  },
  ];
}

/** Every query of the dashboard, for the test that runs each against a real Prometheus. */
export function dashboardQueries(alerts: readonly string[], operator: OperatorNames): string[] {
  return rows(alerts, operator).flatMap((row) => row.panels.flatMap((p) => p.queries.map((q) => q.expr)));
}

/** The Grafana dashboard (JSON model), on a data source the importer picks. */
export function grafanaDashboard(alerts: readonly string[], operator: OperatorNames): Record<string, unknown> {
  const datasource = { type: 'prometheus', uid: '${datasource}' };
  let id = 0;
  const panels = rows(alerts, operator).flatMap((row, r) => {
    const y = r * 9;
    return [
      { id: ++id, type: 'row', title: row.title, collapsed: false, gridPos: { h: 1, w: 24, x: 0, y }, panels: [] },
      ...row.panels.map((p, i) => ({
        id: ++id,
        type: p.type,
        title: p.title,
        description: p.description,
        datasource,
        gridPos: { h: 8, w: 6, x: i * 6, y: y + 1 },
        fieldConfig: { defaults: { unit: p.unit }, overrides: [] },
        options: p.type === 'stat' ? { reduceOptions: { calcs: ['lastNotNull'], fields: '', values: false } } : { legend: { displayMode: 'list', placement: 'bottom', showLegend: true } },
        targets: p.queries.map((q, k) => ({ refId: String.fromCharCode(65 + k), datasource, expr: q.expr, legendFormat: q.legend })),
      })),
    ];
  });
  return {
    title: operator.identity.name,
    uid: operator.identity.name,
    description: `The ${operator.identity.name} controller: health, objects by condition, reconciles, queue, API requests, memory and CPU. Generated by npm run synth (src/monitoring/dashboard.ts).`,
    tags: [operator.identity.name, 'kubernetes', 'operator'],
    editable: true,
    schemaVersion: 39,
    version: 1,
    refresh: '30s',
    time: { from: 'now-6h', to: 'now' },
    templating: { list: [{ name: 'datasource', label: 'Data source', type: 'datasource', query: 'prometheus', current: {}, hide: 0 }] },
    annotations: { list: [] },
    panels,
  };
}
