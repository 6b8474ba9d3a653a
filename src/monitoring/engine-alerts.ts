import { AlertRule } from '../core/contract/monitoring';
import { OperatorNames } from '../core/install/identity';

/**
 * The `job` label of the controller's series: the ServiceMonitor sets it, and a Prometheus
 * without the operator names its scrape job so (docs/monitoring.md). The engine's alerts select
 * on it because controller-runtime's metric names are shared with every Go operator scraped.
 */
export const monitoringJob = (operator: OperatorNames): string => operator.identity.name;

/** Alerts on what every kind shares: the controller's process, leader, reconciles, queue, watches, API access and objects' conditions. */
export function engineAlerts(operator: OperatorNames): readonly AlertRule[] {
  const job = `job="${monitoringJob(operator)}"`;
  return [
  {
    alert: `${operator.alertPrefix}ControllerDown`,
    expr: `absent(up{${job}} == 1)`,
    for: '5m',
    severity: 'critical',
    summary: `No ${operator.identity.name} controller can be scraped.`,
    description: `No replica of the ${operator.identity.name} controller has answered Prometheus (job ${monitoringJob(operator)}) for 5 minutes: nothing reconciles, and objects of every kind stay as they are.`,
  },
  {
    alert: `${operator.alertPrefix}NoLeader`,
    expr: `sum by (name) (leader_election_master_status{${job}}) < 1`,
    for: '5m',
    severity: 'critical',
    summary: 'The controller runs but no replica leads.',
    description: 'Controller replicas are up but none has held the leader Lease {{ $labels.name }} for 5 minutes, so none reconciles.',
  },
  {
    alert: `${operator.alertPrefix}ReconcileErrors`,
    expr: `sum by (controller) (rate(controller_runtime_reconcile_errors_total{${job}}[5m])) > 0.05`,
    for: '15m',
    severity: 'warning',
    summary: 'Reconciles keep failing.',
    description: 'The {{ $labels.controller }} controller fails {{ $value | printf "%.2f" }} reconciles a second (more than 3 a minute for 15 minutes); the controller log says why ("reconcile failed").',
  },
  {
    alert: `${operator.alertPrefix}ReconcileRetries`,
    expr: `sum by (controller) (rate(controller_runtime_reconcile_total{${job},result="requeue"}[5m])) > 0.1`,
    for: '15m',
    severity: 'warning',
    summary: 'Reconciles keep being retried.',
    description: 'The {{ $labels.controller }} controller retries {{ $value | printf "%.2f" }} reconciles a second with backoff (more than 6 a minute for 15 minutes): objects report a failure or a conflict in their Ready condition.',
  },
  {
    alert: `${operator.alertPrefix}WorkQueueBacklog`,
    expr: `sum by (name) (workqueue_depth{${job}}) > 50`,
    for: '15m',
    severity: 'warning',
    summary: 'Work waits in the controller\u2019s queue.',
    description: 'The {{ $labels.name }} queue has held more than 50 objects waiting for a worker for 15 minutes ({{ $value }} now): the workers do not keep up.',
  },
  {
    alert: `${operator.alertPrefix}WorkQueueSlow`,
    expr: `histogram_quantile(0.99, sum by (name, le) (rate(workqueue_queue_duration_seconds_bucket{${job}}[5m]))) > 60`,
    for: '15m',
    severity: 'warning',
    summary: 'Objects wait long in the controller\u2019s queue.',
    description: 'In the {{ $labels.name }} queue, 1 object in 100 waited more than {{ $value | humanizeDuration }} for a worker over the last 15 minutes.',
  },
  {
    alert: `${operator.alertPrefix}WatchesRestarting`,
    expr: `sum by (resource) (increase(${operator.metricPrefix}watch_restarts_total{${job},reason!="expired"}[15m])) > 5`,
    for: '10m',
    severity: 'warning',
    summary: 'The controller\u2019s watches keep failing.',
    description: 'The watch of {{ $labels.resource }} failed or went silent {{ $value | humanize }} times in 15 minutes: the controller sees changes late. The log says why ("list/watch failed").',
  },
  {
    alert: `${operator.alertPrefix}ApiForbidden`,
    expr: `sum by (method) (rate(rest_client_requests_total{${job},code="403"}[5m])) > 0`,
    for: '5m',
    severity: 'critical',
    summary: 'The API server refuses the controller\u2019s requests (403).',
    description: 'The API server has answered {{ $labels.method }} requests of the controller with 403 Forbidden for 5 minutes: its RBAC lacks a rule. The log names the request.',
  },
  {
    alert: `${operator.alertPrefix}ObjectStalled`,
    expr: `max by (kind, namespace, name, reason) (${operator.objectConditionMetric}{type="Stalled",status="True"}) == 1`,
    for: '15m',
    severity: 'warning',
    summary: 'An object fails in a way that needs a person.',
    description: '{{ $labels.kind }} {{ $labels.namespace }}/{{ $labels.name }} has been Stalled for 15 minutes ({{ $labels.reason }}): it will not get well without a change to it or outside the cluster. Its Ready condition says what.',
  },
  {
    alert: `${operator.alertPrefix}ObjectNotReady`,
    expr: `max by (kind, namespace, name) (${operator.objectConditionMetric}{type="Ready",status!="True"}) == 1`,
    for: '1h',
    severity: 'warning',
    summary: 'An object has not been Ready for an hour.',
    description: '{{ $labels.kind }} {{ $labels.namespace }}/{{ $labels.name }} has not been Ready for an hour. Its Ready condition says why; kubectl describe shows its Events.',
  },
];
}
