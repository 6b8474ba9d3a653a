import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { KubeObject } from '../../src/kube/objects';
import { KINDS } from '../../src/kinds';
import { dashboardQueries } from '../../src/monitoring/dashboard';
import { DASHBOARD_FILE, serviceMonitor } from '../../src/monitoring/manifests';
import { toolsBeforeAll } from '../support/go-tool';
import { DIST, loadYaml } from '../support/manifests';
import { helm, helmBinary, helmTemplate } from '../helm/helm';
import { PRODUCT_NAMES } from '../../src/product';

toolsBeforeAll(helmBinary);

const id = (o: KubeObject) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;
const monitoring = (file: string) => loadYaml(join(DIST, 'monitoring', file));

describe('dist/monitoring', () => {
  it('scrapes the controller\u2019s own metrics Service: the ServiceMonitor selects its labels and port in its namespace', () => {
    const [monitor] = monitoring('service-monitor.yaml') as (KubeObject & { spec: { selector: { matchLabels: Record<string, string> }; endpoints: { port: string }[] } })[];
    const services = loadYaml(join(DIST, '1-operator.k8s.yaml')).filter((o) => o.kind === 'Service') as (KubeObject & { spec: { ports: { name: string }[] } })[];
    const selected = services.filter((s) => s.metadata.namespace === monitor.metadata.namespace && Object.entries(monitor.spec.selector.matchLabels).every(([k, v]) => (s.metadata.labels as Record<string, string> | undefined)?.[k] === v));
    expect(selected.map((s) => s.metadata.name)).toEqual(['controller-metrics']);
    expect(selected[0].spec.ports.map((p) => p.name)).toContain(monitor.spec.endpoints[0].port);
  });

  it('ships the same rule groups as a PrometheusRule and as a plain rules file', () => {
    const [rule] = monitoring('prometheus-rule.yaml') as (KubeObject & { spec: unknown })[];
    const [plain] = monitoring('rules.yaml');
    expect(rule.spec).toEqual(plain);
  });

  it('has a dashboard whose panels carry exactly the queries the Prometheus test runs', () => {
    const dashboard = JSON.parse(readFileSync(join(DIST, 'monitoring', DASHBOARD_FILE), 'utf8')) as { panels: { targets?: { expr: string }[] }[] };
    const alerts = (monitoring('rules.yaml')[0] as unknown as { groups: { rules: { alert: string }[] }[] }).groups.flatMap((g) => g.rules.map((r) => r.alert));
    expect(dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr))).toEqual(dashboardQueries(alerts, PRODUCT_NAMES));
    expect(KINDS.length).toBeGreaterThan(0);
  });
});

describe('the Helm chart\u2019s monitoring value', () => {
  it('adds the ServiceMonitor, the rules (their {{ $labels }} kept) and the dashboard, and nothing else', () => {
    const plain = helmTemplate();
    const rendered = helmTemplate('--set', 'monitoring.enabled=true');
    const added = rendered.filter((o) => !plain.some((p) => id(p) === id(o)));
    expect(added.map(id).sort()).toEqual(['ConfigMap/cdk8s-operators/cdk8s-operators-dashboard', 'PrometheusRule/cdk8s-operators/cdk8s-operators', 'ServiceMonitor/cdk8s-operators/controller']);
    expect(added.find((o) => o.kind === 'PrometheusRule')).toEqual(monitoring('prometheus-rule.yaml')[0]);
    expect(added.find((o) => o.kind === 'ServiceMonitor')).toEqual(monitoring('service-monitor.yaml')[0]);
    const dashboard = added.find((o) => o.kind === 'ConfigMap') as KubeObject & { data: Record<string, string> };
    expect(dashboard.data[DASHBOARD_FILE]).toBe(readFileSync(join(DIST, 'monitoring', DASHBOARD_FILE), 'utf8'));
  });

  it('verifies the controller by cert-manager\u2019s CA with webhookCertificates=cert-manager, as synth --webhook-certificates=cert-manager writes it', () => {
    const monitor = (objects: KubeObject[]) => objects.find((o) => o.kind === 'ServiceMonitor') as KubeObject & { spec: { endpoints: { tlsConfig: unknown }[] } };
    const rendered = monitor(helmTemplate('--set', 'monitoring.enabled=true', '--set', 'webhookCertificates=cert-manager'));
    expect(rendered).toEqual(serviceMonitor(PRODUCT_NAMES, 'cert-manager'));
    expect(rendered.spec.endpoints[0].tlsConfig).toEqual({ serverName: 'controller-metrics.cdk8s-operators.svc', ca: { secret: { name: 'cdk8s-operators-metrics-tls', key: 'ca.crt' } } });
    expect(monitor(helmTemplate('--set', 'monitoring.enabled=true')).spec.endpoints[0].tlsConfig).toEqual({ insecureSkipVerify: true });
  });

  it('refuses a value that is not a boolean, naming it', () => {
    const run = helm(['template', join(DIST, 'helm'), '--set-string', 'monitoring.enabled=yes']);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/monitoring(\/|\.)enabled/);
    expect(run.stderr).toMatch(/boolean/);
  });
});
