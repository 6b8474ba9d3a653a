import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeObject, ObjectClient } from '../../src/kube/objects';
import { KINDS } from '../../src/kinds';
import { dashboardQueries } from '../../src/monitoring/dashboard';
import { monitoringJob } from '../../src/monitoring/engine-alerts';
import { ruleGroups } from '../../src/monitoring/rules';
import { createTestNamespace, deleteNamespace, eventually, testKubeConfig } from '../../src/testing/cluster';
import { ControllerProcess, startController } from '../support/controller-process';
import { DIST, installCrds, testObjects } from '../support/manifests';
import { metricsReaderToken, readerBinding } from '../support/metrics-reader';
import { PrometheusProcess, rulesWithShortFor, startPrometheus } from '../support/prometheus';
import { FakeRateProvider, startRateProvider } from '../support/rate-provider';
import { whenReady } from '../support/resources';
import { PRODUCT_NAMES } from '../../src/product';
const MONITORING_JOB = monitoringJob(PRODUCT_NAMES);

// A real Prometheus scrapes the controller (started from source) with the shipped rules, every
// `for:` shortened to 2 s: the cluster is broken, the matching alerts fire, it is fixed, they clear.
const kc = testKubeConfig();
const dir = mkdtempSync(join(tmpdir(), 'monitoring-'));
let ns: string;
let target: string;
let objects: ObjectClient;
let provider: FakeRateProvider;
let controller: ControllerProcess;
let prometheus: PrometheusProcess;

const exchangeRate = (name: string, currency: string): KubeObject => ({ apiVersion: 'operators.brennerm.github.io/v1', kind: 'ExchangeRate', metadata: { name, namespace: ns }, spec: { currency } });
const rule = (name: string): KubeObject => ({
  apiVersion: 'test.com/v1',
  kind: 'CopyratorRule',
  metadata: { name, namespace: ns },
  spec: { ruleType: 'configmap', selector: { copyrator: 'true' }, targetNamespaces: [target] },
});
const database = (name: string, image: string): KubeObject => ({
  apiVersion: 'stable.imaginedata.com/v1',
  kind: 'Database',
  metadata: { name, namespace: ns },
  spec: { name: 'orders', 'storage-size': '1Gi', image, deletionPolicy: 'Delete' },
});
const configMap = (namespace: string, name: string, labels: Record<string, string> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace, labels }, data: { level: 'debug' } });

async function firing(alertname: string, labels: Record<string, string>) {
  const alerts = await prometheus.alerts();
  return alerts.find((a) => a.state === 'firing' && a.labels.alertname === alertname && Object.entries(labels).every(([k, v]) => a.labels[k] === v));
}

beforeAll(async () => {
  objects = testObjects();
  await installCrds(objects);
  ns = await createTestNamespace(kc, 'monitoring');
  target = await createTestNamespace(kc, 'monitoring-target');
  provider = await startRateProvider();
  controller = startController(
    [
      ...['--kubeconfig', process.env.TEST_KUBECONFIG!, '--kinds', 'exchangerates,copyrators,databases', '--namespace', ns, '--http-port', '0'],
      ...['--leader-election-namespace', ns, '--exchange-rate-url', provider.url, '--exchange-rate-allow-http', '--exchange-rate-timeout', '1s'],
      // The rule copies into another namespace: the administrator trusts its namespace (docs/kinds/copyrator.md).
      `--copyrator-trusted-namespaces=${ns}`,
    ],
    join(dir, 'controller.log'),
  );
  const port = await eventually('the controller to say its port', async () => controller.logs().find((l) => l.msg === 'controller starting')?.metricsPort as number | undefined);
  // As the ServiceMonitor scrapes: HTTPS, the self-signed certificate not verified, a token of a ServiceAccount bound to metrics-reader.
  writeFileSync(join(dir, 'token'), await metricsReaderToken(objects, ns));
  const scrape = { scheme: 'https', authorization: { credentials_file: join(dir, 'token') }, tls_config: { insecure_skip_verify: true } };
  prometheus = await startPrometheus(dir, { job: MONITORING_JOB, targets: [`127.0.0.1:${port}`], rules: rulesWithShortFor(join(DIST, 'monitoring', 'rules.yaml'), '2s'), scrape });
}, 120_000);

afterAll(async () => {
  await prometheus?.stop();
  await controller?.stop();
  await provider?.close();
  if (ns) {
    await objects.rest.request('DELETE', `/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/${readerBinding(ns, 'prometheus')}`).catch(() => undefined);
    await deleteNamespace(kc, ns);
  }
  if (target) await deleteNamespace(kc, target);
});

it('scrapes the controller and finds the shipped rules loaded', async () => {
  await eventually('the controller to be up and leading', async () => ((await prometheus.query(`sum(leader_election_master_status{job="${MONITORING_JOB}"}) == 1`)).length ? true : undefined));
  const loaded = await fetch(`${prometheus.url}/api/v1/rules`).then((r) => r.json() as Promise<{ data: { groups: { name: string; rules: { name: string }[] }[] } }>);
  expect(loaded.data.groups.flatMap((g) => g.rules.map((r) => r.name)).sort()).toEqual(ruleGroups(KINDS, PRODUCT_NAMES).flatMap((g) => g.rules.map((r) => r.alert)).sort());
});

it('fires the provider, conflict, Held and Stalled alerts when the cluster breaks, and every dashboard query returns data', async () => {
  provider.setRate('EUR', 'USD', 1.05);
  await objects.apply(exchangeRate('usd', 'USD'));
  await whenReady(objects, exchangeRate('usd', 'USD'), 'True', 'RatePublished', controller.logFile);
  await objects.apply(configMap(ns, 'settings', { copyrator: 'true' }));
  await objects.apply(rule('settings'));
  await whenReady(objects, rule('settings'), 'True', undefined, controller.logFile);
  // A Database whose StatefulSet runs postgres:17.2 (it is not Ready: nothing binds its claim here, which the Held alert does not mind).
  await objects.apply(database('held', 'postgres:17.2'));
  await eventually('the Database\u2019s StatefulSet', () => objects.get({ apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'held', namespace: ns } }));
  // Silent while all is well (Databases still Creating aside).
  await new Promise((resolve) => setTimeout(resolve, 5000));
  expect((await prometheus.alerts()).filter((a) => a.state === 'firing' && a.labels.kind !== 'Database').map((a) => a.labels.alertname)).toEqual([]);
  expect(await firing('DatabaseHeld', { name: 'held' })).toBeUndefined();

  // The provider down for a pair not fetched yet, and a ConfigMap of the copy's name planted in the target.
  provider.setMode('error500');
  await objects.apply(exchangeRate('chf', 'CHF'));
  await objects.apply(configMap(target, 'planted'));
  await objects.apply(configMap(ns, 'planted', { copyrator: 'true' }));
  await objects.apply(database('held', 'postgres:17.1')); // a downgrade: refused, Held

  const providerAlert = await eventually('ExchangeRateProviderFailing to fire', () => firing('ExchangeRateProviderFailing', { namespace: ns, name: 'chf' }), 90_000);
  expect(providerAlert).toMatchObject({ labels: { severity: 'warning' }, annotations: { description: expect.stringContaining(`ExchangeRate ${ns}/chf`), runbook_url: 'docs/monitoring.md#exchangerateproviderfailing' } });
  const stalled = await eventually('Cdk8sOperatorsObjectStalled to fire', () => firing('Cdk8sOperatorsObjectStalled', { kind: 'ExchangeRate', namespace: ns, name: 'chf', reason: 'ProviderRejected' }), 90_000);
  expect(stalled.annotations.description).toContain(`ExchangeRate ${ns}/chf has been Stalled`);
  const conflict = await eventually('CopyratorRuleConflicts to fire', () => firing('CopyratorRuleConflicts', { namespace: ns, name: 'settings' }), 90_000);
  expect(conflict.annotations.description).toBe(`CopyratorRule ${ns}/settings leaves 1 object(s) alone because it does not manage them: their names are in its status.conflicts.`);
  expect(await firing('ExchangeRateProviderFailing', { name: 'usd' })).toBeUndefined();
  const held = await eventually('DatabaseHeld to fire', () => firing('DatabaseHeld', { namespace: ns, name: 'held', reason: 'Downgrade' }), 90_000);
  expect(held.annotations.description).toContain(`Database ${ns}/held is Held (Downgrade)`);

  const alertNames = ruleGroups(KINDS, PRODUCT_NAMES).flatMap((g) => g.rules.map((r) => r.alert));
  for (const expr of dashboardQueries(alertNames, PRODUCT_NAMES)) {
    const result = await eventually(`dashboard query ${expr} to return data`, async () => ((await prometheus.query(expr)).length ? true : undefined), 30_000);
    expect(result).toBe(true);
  }
}, 300_000);

it('clears the alerts once the provider is back, the planted ConfigMap gone and the image set back', async () => {
  provider.setRate('EUR', 'CHF', 0.93);
  provider.setMode('ok');
  await objects.delete(configMap(target, 'planted'));
  await objects.apply(database('held', 'postgres:17.2'));
  await eventually('DatabaseHeld to clear', async () => ((await prometheus.alerts()).some((a) => a.labels.alertname === 'DatabaseHeld') ? undefined : true), 120_000);
  // Not Ready without a volume here: removed, so that every other alert must clear too.
  await objects.delete(database('held', 'postgres:17.2'));
  await eventually('the Database to be gone', async () => ((await objects.get(database('held', 'postgres:17.2')).then(() => false, () => true)) ? true : undefined), 120_000);
  // Cleared because Prometheus scraped the fixed state, not because it lost the controller.
  const scraped = async (expr: string) => ((await prometheus.query(expr)).length ? true : undefined);
  await eventually('Prometheus to scrape the fixed state', async () =>
    (await scraped(`cdk8s_operators_object_condition{namespace="${ns}",name="chf",type="Ready",status="True"}`)) &&
    (await scraped(`cdk8s_operators_copyrator_conflicts{namespace="${ns}",name="settings"} == 0`)) &&
    (await scraped(`up{job="${MONITORING_JOB}"} == 1`)),
    240_000,
  );
  await eventually('every alert to clear', async () => ((await prometheus.alerts()).length === 0 ? true : undefined), 60_000);
  await whenReady(objects, exchangeRate('chf', 'CHF'), 'True', 'RatePublished', controller.logFile);
}, 300_000);

it('refuses a dashboard query that is not PromQL, with Prometheus\u2019 own error', async () => {
  await expect(prometheus.query('sum by (kind (x)')).rejects.toThrow(/Prometheus \/api\/v1\/query\?query=.*parse error/);
});
