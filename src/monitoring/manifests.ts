import { Yaml } from 'cdk8s';
import { AnyKind, KubeJson } from '../core/contract/kind';
import { OperatorNames } from '../core/install/identity';
import { METRICS_PATH, METRICS_SERVICE } from '../core/install/metrics-endpoint';
import { WebhookCertificates } from '../core/install/webhook';
import { grafanaDashboard } from './dashboard';
import { monitoringJob } from './engine-alerts';
import { RuleGroup, ruleGroups } from './rules';

/** The optional part of dist/ (like dist/argocd/): not in dist/kustomization.yaml, since it needs the Prometheus Operator's CRDs. */
export const MONITORING_DIR = 'monitoring';

/** The labels of the controller's metrics Service (src/bundle/operator.ts; a test checks they match). */
const controllerLabels = (operator: OperatorNames) => ({ 'app.kubernetes.io/name': 'controller', 'app.kubernetes.io/part-of': operator.partOf });
const labels = (operator: OperatorNames) => ({ 'app.kubernetes.io/part-of': operator.partOf });

/** The ConfigMap Grafana's dashboard sidecar (kube-prometheus-stack) loads by its label. */
export const dashboardConfigMapName = (operator: OperatorNames): string => `${operator.identity.name}-dashboard`;
export const DASHBOARD_FILE = 'grafana-dashboard.json';

/** Each object names its namespace and carries the product's labels. */
type Manifest = KubeJson & { metadata: { namespace: string; labels: Record<string, string> } };

/** The rules for the Prometheus Operator. */
export function prometheusRule(groups: readonly RuleGroup[], operator: OperatorNames): Manifest {
  return { apiVersion: 'monitoring.coreos.com/v1', kind: 'PrometheusRule', metadata: { name: operator.identity.name, namespace: operator.identity.namespace, labels: labels(operator) }, spec: { groups } };
}

/** Where Prometheus' Pod has its ServiceAccount's token (which the metrics-reader ClusterRole must be bound to). */
export const PROMETHEUS_TOKEN_FILE = '/var/run/secrets/kubernetes.io/serviceaccount/token';

/**
 * How Prometheus checks the controller's certificate. Self-signed at each start (`self`), there
 * is no CA to verify it by: the connection is encrypted, not verified, as kubebuilder's default.
 * With cert-manager, its CA signs the metrics Service's certificate, and Prometheus verifies it
 * by the ca.crt of that Certificate's Secret, for the Service's name (each replica is scraped by
 * its Pod IP), as kubebuilder's monitor_tls_patch (docs/security.md#metrics).
 */
export function serviceMonitorTls(certificates: WebhookCertificates, operator: OperatorNames): Record<string, unknown> {
  if (certificates === 'self') return { insecureSkipVerify: true };
  return { serverName: `${METRICS_SERVICE}.${operator.identity.namespace}.svc`, ca: { secret: { name: operator.certManager.metricsSecretName, key: 'ca.crt' } } };
}

/**
 * Scrapes the controller's metrics Service, every replica, with the job label the rules select
 * on: over HTTPS with Prometheus' own ServiceAccount token, as kubebuilder's ServiceMonitor.
 */
export function serviceMonitor(operator: OperatorNames, certificates: WebhookCertificates = 'self'): Manifest {
  const namespace = operator.identity.namespace;
  return {
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'ServiceMonitor',
    metadata: { name: 'controller', namespace, labels: labels(operator) },
    spec: {
      selector: { matchLabels: controllerLabels(operator) },
      namespaceSelector: { matchNames: [namespace] },
      endpoints: [
        {
          port: 'https',
          scheme: 'https',
          path: METRICS_PATH,
          interval: '30s',
          bearerTokenFile: PROMETHEUS_TOKEN_FILE,
          tlsConfig: serviceMonitorTls(certificates, operator),
          relabelings: [{ action: 'replace', targetLabel: 'job', replacement: monitoringJob(operator) }],
        },
      ],
    },
  };
}

/** The dashboard as a ConfigMap, for the Helm chart (dist/monitoring/ makes it with kustomize's configMapGenerator instead). */
export function dashboardConfigMap(dashboard: string, operator: OperatorNames): Manifest {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: dashboardConfigMapName(operator), namespace: operator.identity.namespace, labels: { ...labels(operator), grafana_dashboard: '1' } },
    data: { [DASHBOARD_FILE]: dashboard },
  };
}

/** Every alert's name, for the dashboard's panel of firing alerts. */
function alertNames(groups: readonly RuleGroup[]): string[] {
  return groups.flatMap((g) => g.rules.map((r) => r.alert));
}

/** What the Helm chart installs behind `monitoring.enabled` (its template picks the ServiceMonitor's tlsConfig by the value webhookCertificates). */
export function monitoringObjects(kinds: readonly AnyKind[], operator: OperatorNames, runbookUrl?: string): Manifest[] {
  const groups = ruleGroups(kinds, operator, runbookUrl);
  return [serviceMonitor(operator), prometheusRule(groups, operator), dashboardConfigMap(dashboardJson(groups, operator), operator)];
}

function dashboardJson(groups: readonly RuleGroup[], operator: OperatorNames): string {
  return `${JSON.stringify(grafanaDashboard(alertNames(groups), operator), null, 2)}\n`;
}

const HEADER = '# Generated by npm run synth from src/monitoring/ and each kind\u2019s monitoring.ts; docs/monitoring.md says how to install it.\n';

/** The files of dist/monitoring/, by name. */
export function monitoringFiles(kinds: readonly AnyKind[], operator: OperatorNames, runbookUrl?: string, certificates: WebhookCertificates = 'self'): Map<string, string> {
  const groups = ruleGroups(kinds, operator, runbookUrl);
  const kustomization = {
    apiVersion: 'kustomize.config.k8s.io/v1beta1',
    kind: 'Kustomization',
    resources: ['service-monitor.yaml', 'prometheus-rule.yaml'],
    configMapGenerator: [
      { name: dashboardConfigMapName(operator), namespace: operator.identity.namespace, files: [DASHBOARD_FILE], options: { disableNameSuffixHash: true, labels: { ...labels(operator), grafana_dashboard: '1' } } },
    ],
  };
  return new Map([
    ['rules.yaml', HEADER + Yaml.stringify({ groups })],
    ['prometheus-rule.yaml', HEADER + Yaml.stringify(prometheusRule(groups, operator))],
    ['service-monitor.yaml', HEADER + Yaml.stringify(serviceMonitor(operator, certificates))],
    [DASHBOARD_FILE, dashboardJson(groups, operator)],
    ['kustomization.yaml', HEADER + Yaml.stringify(kustomization)],
  ]);
}
