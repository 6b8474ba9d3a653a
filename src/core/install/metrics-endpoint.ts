/** The controller's metrics endpoint, which the runtime (src/runtime/metrics-server.ts), the install and the ServiceMonitor agree on. */

/** The HTTPS port of /metrics (kubebuilder's :8443); the probes have a port of their own. */
export const METRICS_PORT = 8443;
export const METRICS_PATH = '/metrics';
/** The Service Prometheus scrapes; the self-signed serving certificate names it. */
export const METRICS_SERVICE = 'controller-metrics';
/** Only Pods of namespaces with this label reach the metrics port (kubebuilder's allow-metrics-traffic). */
export const METRICS_NAMESPACE_LABEL = { metrics: 'enabled' } as const;
