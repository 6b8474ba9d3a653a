import * as k8s from '@kubernetes/client-node';
import { App } from 'cdk8s';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeObject } from '../../src/kube/objects';
import { KubeRest } from '../../src/kube/rest';
import { buildApp } from '../../src/app';
import { applyInOrder } from '../support/apply-bundle';
import { eventually } from '../../src/testing/cluster';
import { ControllerProcess, startController } from '../support/controller-process';
import { DIST, loadYaml } from '../support/manifests';
import { LocalCluster, startLocalCluster } from '../support/operator-cluster';
import { serviceAccountKubeconfig } from '../support/tenancy';

/**
 * The namespaced install (synth's --watch-namespaces) on a control plane of its own: its RBAC
 * (Roles in two namespaces, the Deployment left out) applied, the controller run from source as
 * its ServiceAccount with --namespace. An ExchangeRate and a Database in the namespaces served
 * become Ready with their children; an ExchangeRate in another namespace is left alone; the
 * ServiceAccount may list ConfigMaps and Secrets in the namespaces served, nowhere else.
 */
type Json = KubeObject & { status?: { conditions?: { type: string; status: string }[] } };

const SERVED = ['served-a', 'served-b'];
const OUTSIDE = 'not-served';
let dir: string;
let cluster: LocalCluster;
let controller: ControllerProcess | undefined;
let serviceAccount: KubeRest;
let kubeconfig: string;
let passed = false;
const instances = loadYaml(join(DIST, '2-instances.k8s.yaml'));
const instance = (kind: string, name: string, namespace: string) => ({ ...instances.find((o) => o.kind === kind && o.metadata.name === name)!, metadata: { name, namespace } }) as KubeObject;
const isReady = (o: Json | undefined) => o?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
const get = (path: string) => cluster.objects.rest.request<Json | undefined>('GET', path, { notFoundAsUndefined: true });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'namespaced-install-'));
  cluster = await startLocalCluster(dir, 'kubectl');
  // The namespaces served exist before the install: its Roles live in them.
  for (const name of [...SERVED, OUTSIDE]) await cluster.objects.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  await applyInOrder(cluster.objects, cluster.localCrds(loadYaml(join(DIST, '0-crds.k8s.yaml'))), { webhook: { url: cluster.webhookUrl } });
  const [, operator] = buildApp(new App(), { instances: [], watchNamespaces: SERVED }).map((chart) => chart.toJson() as KubeObject[]);
  await applyInOrder(cluster.objects, operator, { skip: (o) => o.kind === 'Deployment', webhook: { url: cluster.webhookUrl } });
  kubeconfig = await serviceAccountKubeconfig(cluster.objects, join(dir, 'controller.kubeconfig'), cluster.plane.server, readFileSync(join(dir, 'cluster', 'ca.crt'), 'utf8'));
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(kubeconfig);
  serviceAccount = new KubeRest(kc);
}, 180_000);

afterAll(async () => {
  await controller?.stop(5000);
  await cluster?.stop();
  // Kept when the test failed: the controller's log is what explains it.
  if (passed) rmSync(dir, { recursive: true, force: true });
}, 120_000);

it('lets the controller ServiceAccount read ConfigMaps and Secrets in the namespaces served only', async () => {
  for (const resource of ['configmaps', 'secrets']) {
    await expect(serviceAccount.request('GET', `/api/v1/${resource}`)).rejects.toThrow(/HTTP 403/);
    await expect(serviceAccount.request('GET', `/api/v1/namespaces/${OUTSIDE}/${resource}`)).rejects.toThrow(/HTTP 403/);
  }
  for (const namespace of SERVED) await expect(serviceAccount.request('GET', `/api/v1/namespaces/${namespace}/configmaps`)).resolves.toBeDefined();
});

it('refuses at start a kind that cannot be served in some namespaces only, namespaced RBAC without namespaces, and a bad namespace name, naming the flag', async () => {
  const start = (name: string, ...args: string[]) => startController([`--kubeconfig=${kubeconfig}`, '--http-port=0', ...args], join(dir, `${name}.log`));
  const refused = start('refused', `--namespace=${SERVED.join(',')}`, '--namespaced-rbac', '--kinds=exchangerates,registrymirrors,copyrators');
  expect(await refused.exited).not.toBe(0);
  const refusal = readFileSync(refused.logFile, 'utf8');
  expect(refusal).toMatch(/--namespaced-rbac: these kinds cannot be served in some namespaces only: /);
  expect(refusal).toContain('RegistryMirror (registrymirrors): it is cluster-scoped');
  expect(refusal).toContain('CopyratorRule (copyrators): it reads or writes beyond its objects\u2019 own namespaces');
  expect(refusal).toMatch(/expected only kinds that can \(([a-z]+, )*exchangerates/);

  const noNamespaces = start('no-namespaces', '--namespaced-rbac');
  expect(await noNamespaces.exited).not.toBe(0);
  expect(readFileSync(noNamespaces.logFile, 'utf8')).toMatch(/--namespaced-rbac: expected --namespace to name the namespaces whose Roles the controller has/);
  const badName = start('bad-name', '--namespace=served-a,Not_A_Namespace', '--namespaced-rbac');
  expect(await badName.exited).not.toBe(0);
  expect(readFileSync(badName.logFile, 'utf8')).toMatch(/--namespace: "Not_A_Namespace" is no namespace name; expected lower-case letters/);
});

it('serves an ExchangeRate and a Database in the namespaces served, with their children, and leaves one outside alone', async () => {
  // As the install's Deployment runs it, but for --kinds: those that can be served so, by default.
  const args = [`--kubeconfig=${kubeconfig}`, `--namespace=${SERVED.join(',')}`, '--namespaced-rbac', '--http-port=0', '--leader-election-namespace=cdk8s-operators', ...cluster.webhookArgs];
  controller = startController(args, join(dir, 'controller.log'), { EXCHANGE_RATE_URL: cluster.rateProviderUrl, EXCHANGE_RATE_ALLOW_HTTP: 'true' });
  const outside = instance('ExchangeRate', 'usd', OUTSIDE);
  await applyInOrder(cluster.objects, [outside, instance('ExchangeRate', 'usd', SERVED[0]), instance('Database', 'orders', SERVED[1])], { webhook: { url: cluster.webhookUrl } });

  const rate = await eventually('the ExchangeRate served to be Ready', async () => {
    const o = await get(`/apis/operators.brennerm.github.io/v1/namespaces/${SERVED[0]}/exchangerates/usd`);
    return isReady(o) ? o : undefined;
  }, 120_000);
  expect(rate.status?.conditions).toBeDefined();
  const configMaps = await cluster.objects.rest.request<{ items: KubeObject[] }>('GET', `/api/v1/namespaces/${SERVED[0]}/configmaps`, { query: { labelSelector: 'app.kubernetes.io/managed-by=cdk8s-operators' } });
  expect(configMaps.items.length).toBeGreaterThan(0);
  await eventually('the Database served to be Ready', async () => (isReady(await get(`/apis/${instances.find((o) => o.kind === 'Database')!.apiVersion}/namespaces/${SERVED[1]}/databases/orders`)) ? true : undefined), 180_000);
  const statefulSets = await cluster.objects.rest.request<{ items: KubeObject[] }>('GET', `/apis/apps/v1/namespaces/${SERVED[1]}/statefulsets`, { query: { labelSelector: 'app.kubernetes.io/managed-by=cdk8s-operators' } });
  expect(statefulSets.items.length).toBe(1);

  // By now the controller has long seen the one outside, had it watched: no condition (the CRD's defaults only), no child.
  const left = await get(`/apis/operators.brennerm.github.io/v1/namespaces/${OUTSIDE}/exchangerates/usd`);
  expect(left?.status).toEqual({ observedGeneration: 0 });
  const outsideChildren = await cluster.objects.rest.request<{ items: KubeObject[] }>('GET', `/api/v1/namespaces/${OUTSIDE}/configmaps`, { query: { labelSelector: 'app.kubernetes.io/managed-by=cdk8s-operators' } });
  expect(outsideChildren.items).toEqual([]);
  // The Roles were all it needed: the API server refused it nothing (an error reads `HTTP 403: ...`; a port may hold the digits 403).
  expect(controller.logs().filter((l) => /HTTP 403\b/.test(JSON.stringify(l)))).toEqual([]);
  passed = true;
}, 300_000);
