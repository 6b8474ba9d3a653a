/**
 * promtool unit tests of every shipped alert: input series under which it must fire (with the
 * labels and text the person on call gets) and series under which it must stay silent.
 */
export interface AlertCase {
  /** Input series, promtool's notation: `metric{labels}` and `values` such as `0+6x30`. */
  readonly series: Record<string, string>;
  /** When to look (promtool's time starts at 0; samples every minute). */
  readonly at: string;
  /** The labels the firing alert carries beside alertname and severity; undefined: it must not fire. */
  readonly labels?: Record<string, string>;
  /** What `{{ $value }}` (with its filter) renders as, for the description. */
  readonly value?: string;
}

const JOB = 'job="cdk8s-operators",instance="10.0.0.1:8080"';
const at = { job: 'cdk8s-operators', instance: '10.0.0.1:8080' };
const cond = (kind: string, ns: string, name: string, type: string, status: string, reason: string) =>
  `cdk8s_operators_object_condition{kind="${kind}",namespace="${ns}",name="${name}",type="${type}",status="${status}",reason="${reason}"}`;

export const ALERT_CASES: Record<string, { readonly fires: AlertCase; readonly silent: readonly AlertCase[] }> = {
  Cdk8sOperatorsControllerDown: {
    fires: { series: { [`up{${JOB}}`]: '0x20' }, at: '10m', labels: {} },
    silent: [{ series: { [`up{${JOB}}`]: '1x20' }, at: '10m' }, { series: { [`up{${JOB}}`]: '0x20', 'up{job="cdk8s-operators",instance="10.0.0.2:8080"}': '1x20' }, at: '10m' }],
  },
  Cdk8sOperatorsNoLeader: {
    fires: { series: { [`leader_election_master_status{${JOB},name="cdk8s-operators-leader"}`]: '0x20' }, at: '10m', labels: { name: 'cdk8s-operators-leader' } },
    silent: [{ series: { [`leader_election_master_status{${JOB},name="cdk8s-operators-leader"}`]: '0x2 1x20' }, at: '10m' }],
  },
  Cdk8sOperatorsReconcileErrors: {
    fires: { series: { [`controller_runtime_reconcile_errors_total{${JOB},controller="database"}`]: '0+6x40' }, at: '30m', labels: { controller: 'database' }, value: '0.10' },
    silent: [{ series: { [`controller_runtime_reconcile_errors_total{${JOB},controller="database"}`]: '0+1x40' }, at: '30m' }],
  },
  Cdk8sOperatorsReconcileRetries: {
    fires: { series: { [`controller_runtime_reconcile_total{${JOB},controller="copyratorrule",result="requeue"}`]: '0+12x40' }, at: '30m', labels: { controller: 'copyratorrule' }, value: '0.20' },
    silent: [{ series: { [`controller_runtime_reconcile_total{${JOB},controller="copyratorrule",result="success"}`]: '0+600x40' }, at: '30m' }],
  },
  Cdk8sOperatorsWorkQueueBacklog: {
    fires: { series: { [`workqueue_depth{${JOB},name="exchangerate",controller="exchangerate"}`]: '60x30' }, at: '20m', labels: { name: 'exchangerate' }, value: '60' },
    silent: [{ series: { [`workqueue_depth{${JOB},name="exchangerate",controller="exchangerate"}`]: '60x5 0x30' }, at: '20m' }],
  },
  Cdk8sOperatorsWorkQueueSlow: {
    fires: {
      series: {
        [`workqueue_queue_duration_seconds_bucket{${JOB},name="database",le="1"}`]: '0x40',
        [`workqueue_queue_duration_seconds_bucket{${JOB},name="database",le="100"}`]: '0x40',
        [`workqueue_queue_duration_seconds_bucket{${JOB},name="database",le="1000"}`]: '0+10x40',
        [`workqueue_queue_duration_seconds_bucket{${JOB},name="database",le="+Inf"}`]: '0+10x40',
      },
      at: '30m',
      labels: { name: 'database' },
      value: '16m 31s',
    },
    silent: [
      {
        series: {
          [`workqueue_queue_duration_seconds_bucket{${JOB},name="database",le="1"}`]: '0+10x40',
          [`workqueue_queue_duration_seconds_bucket{${JOB},name="database",le="100"}`]: '0+10x40',
          [`workqueue_queue_duration_seconds_bucket{${JOB},name="database",le="+Inf"}`]: '0+10x40',
        },
        at: '30m',
      },
    ],
  },
  Cdk8sOperatorsWatchesRestarting: {
    fires: { series: { [`cdk8s_operators_watch_restarts_total{${JOB},resource="configmaps",reason="error"}`]: '0+1x40' }, at: '30m', labels: { resource: 'configmaps' }, value: '15' },
    silent: [
      { series: { [`cdk8s_operators_watch_restarts_total{${JOB},resource="configmaps",reason="expired"}`]: '0+1x40' }, at: '30m' },
      { series: { [`cdk8s_operators_watch_restarts_total{${JOB},resource="configmaps",reason="error"}`]: '0+1x40' }, at: '15m' },
    ],
  },
  Cdk8sOperatorsApiForbidden: {
    fires: { series: { [`rest_client_requests_total{${JOB},code="403",method="GET",host="10.96.0.1:443"}`]: '0+1x20' }, at: '15m', labels: { method: 'GET' } },
    silent: [{ series: { [`rest_client_requests_total{${JOB},code="403",method="GET",host="10.96.0.1:443"}`]: '5x20', [`rest_client_requests_total{${JOB},code="200",method="GET",host="10.96.0.1:443"}`]: '0+9x20' }, at: '15m' }],
  },
  Cdk8sOperatorsObjectStalled: {
    fires: { series: { [cond('ExchangeRate', 'team-a', 'usd', 'Stalled', 'True', 'ProviderTimeout')]: '1x30' }, at: '20m', labels: { kind: 'ExchangeRate', namespace: 'team-a', name: 'usd', reason: 'ProviderTimeout' } },
    silent: [
      { series: { [cond('ExchangeRate', 'team-a', 'usd', 'Stalled', 'True', 'ProviderTimeout')]: '1x30' }, at: '10m' },
      { series: { [cond('Database', 'team-a', 'orders', 'Reconciling', 'True', 'ReplicasNotReady')]: '1x30' }, at: '20m' },
    ],
  },
  Cdk8sOperatorsObjectNotReady: {
    fires: { series: { [cond('Database', 'team-a', 'orders', 'Ready', 'False', 'ReplicasNotReady')]: '1x90' }, at: '70m', labels: { kind: 'Database', namespace: 'team-a', name: 'orders' } },
    silent: [
      { series: { [cond('Database', 'team-a', 'orders', 'Ready', 'True', 'Ready')]: '1x90' }, at: '70m' },
      { series: { [cond('Database', 'team-a', 'orders', 'Ready', 'False', 'ReplicasNotReady')]: '1x30', [cond('Database', 'team-a', 'orders', 'Ready', 'True', 'Ready')]: '_x30 1x60' }, at: '70m' },
    ],
  },
  ExchangeRateProviderFailing: {
    fires: {
      series: { [cond('ExchangeRate', 'team-a', 'usd', 'Ready', 'False', 'ProviderUnreachable')]: '1x40 _x50', [cond('ExchangeRate', 'team-a', 'usd', 'Ready', 'False', 'ProviderTimeout')]: '_x40 1x50' },
      at: '70m',
      labels: { namespace: 'team-a', name: 'usd' },
    },
    silent: [
      { series: { [cond('ExchangeRate', 'team-a', 'usd', 'Ready', 'False', 'Conflict')]: '1x90' }, at: '70m' },
      { series: { [cond('ExchangeRate', 'team-a', 'usd', 'Ready', 'False', 'ProviderUnreachable')]: '1x90' }, at: '50m' },
    ],
  },
  CopyratorRuleConflicts: {
    fires: { series: { 'cdk8s_operators_copyrator_conflicts{namespace="team-a",name="settings"}': '2x20' }, at: '15m', labels: { namespace: 'team-a', name: 'settings' }, value: '2' },
    silent: [{ series: { 'cdk8s_operators_copyrator_conflicts{namespace="team-a",name="settings"}': '2x5 0x20' }, at: '15m' }],
  },
  RegistryMirrorNodesPending: {
    fires: { series: { 'cdk8s_operators_registrymirror_nodes_pending{name="docker"}': '3x40' }, at: '35m', labels: { name: 'docker' }, value: '3' },
    silent: [{ series: { 'cdk8s_operators_registrymirror_nodes_pending{name="docker"}': '3x20 0x20' }, at: '35m' }],
  },
  DatabaseBackupOverdue: {
    // The last backup at time 0, an hourly schedule: overdue after 1h + the 1h margin, firing 5m later.
    fires: {
      series: { 'cdk8s_operators_database_last_backup_timestamp_seconds{namespace="team-a",name="orders"}': '0x200', 'cdk8s_operators_database_backup_interval_seconds{namespace="team-a",name="orders"}': '3600x200' },
      at: '130m',
      labels: { namespace: 'team-a', name: 'orders' },
      value: '2h 10m 0s',
    },
    silent: [
      { series: { 'cdk8s_operators_database_last_backup_timestamp_seconds{namespace="team-a",name="orders"}': '0x200', 'cdk8s_operators_database_backup_interval_seconds{namespace="team-a",name="orders"}': '86400x200' }, at: '130m' },
      { series: { 'cdk8s_operators_database_last_backup_timestamp_seconds{namespace="team-a",name="orders"}': '0x200', 'cdk8s_operators_database_backup_interval_seconds{namespace="team-a",name="orders"}': '3600x200' }, at: '122m' },
    ],
  },
  DatabaseHeld: {
    fires: { series: { [cond('Database', 'team-a', 'orders', 'Ready', 'False', 'Downgrade')]: '1x20' }, at: '10m', labels: { namespace: 'team-a', name: 'orders', reason: 'Downgrade' } },
    silent: [{ series: { [cond('Database', 'team-a', 'orders', 'Ready', 'False', 'Upgrading')]: '1x20' }, at: '10m' }],
  },
};

/** The labels every engine alert's series carry in these cases, which `sum by` drops. */
export const SCRAPE_LABELS = at;
