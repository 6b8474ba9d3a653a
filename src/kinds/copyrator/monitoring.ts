import { KindMonitoring, statusListGauge } from '../../engine/kind';

/** Objects a rule would copy over but leaves alone because something else manages them. */
export const copyratorMonitoring: KindMonitoring = {
  gauges: [statusListGauge('conflicts', 'conflicts', 'Objects a CopyratorRule leaves alone because something else manages them (status.conflicts, at most 100 listed).')],
  alerts: (metrics) => [
    {
      alert: 'CopyratorRuleConflicts',
      expr: `${metrics.gauge('conflicts')} > 0`,
      for: '10m',
      severity: 'warning',
      summary: 'A CopyratorRule cannot copy onto objects that something else manages.',
      description:
        'CopyratorRule {{ $labels.namespace }}/{{ $labels.name }} leaves {{ $value }} object(s) alone because it does not manage them: their names are in its status.conflicts.',
    },
  ],
};
