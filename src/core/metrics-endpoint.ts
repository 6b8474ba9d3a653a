/** The controller's metrics endpoint, which the runtime (src/runtime/metrics-server.ts), the install and the ServiceMonitor agree on. */

/** The HTTPS port of /metrics (kubebuilder's :8443); the probes have a port of their own. */
export const METRICS_PORT = 8443;
export const METRICS_PATH = '/metrics';
/** The Service Prometheus scrapes; the self-signed serving certificate names it. */
export const METRICS_SERVICE = 'controller-metrics';
/** The ClusterRole whose holders may GET /metrics (a non-resource URL), as kubebuilder's metrics-reader. */
export const METRICS_READER_ROLE = 'cdk8s-operators:metrics-reader';
/** Only Pods of namespaces with this label reach the metrics port (kubebuilder's allow-metrics-traffic). */
export const METRICS_NAMESPACE_LABEL = { metrics: 'enabled' } as const;
/**
 * With cert-manager (synth's --webhook-certificates=cert-manager): the Certificate that its CA
 * Issuer signs for the metrics Service, and the Secret it writes, which the controller serves
 * and whose ca.crt the ServiceMonitor verifies the controller by.
 */
export const METRICS_CERT_MANAGER = { certificate: 'cdk8s-operators-metrics', secretName: 'cdk8s-operators-metrics-tls' } as const;
