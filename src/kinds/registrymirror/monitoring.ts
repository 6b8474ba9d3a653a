import { KindMonitoring, statusListGauge } from '../../engine/kind';

/** Nodes whose container runtime does not pull through the mirror yet. */
export const registryMirrorMonitoring: KindMonitoring = {
  gauges: [statusListGauge('nodes_pending', 'nodesPending', 'Nodes that do not pull through a RegistryMirror yet (status.nodesPending, at most 100 listed).')],
  alerts: (metrics) => [
    {
      alert: 'RegistryMirrorNodesPending',
      expr: `${metrics.gauge('nodes_pending')} > 0`,
      for: '30m',
      severity: 'warning',
      summary: 'Nodes have not pulled through a RegistryMirror for 30 minutes.',
      description:
        'RegistryMirror {{ $labels.name }}: {{ $value }} node(s) have not been configured to pull through the mirror for 30 minutes; they pull from the upstream directly. Its status.nodesPending names them.',
    },
  ],
};
