import { join } from 'node:path';
import { KubeObject, ObjectClient } from '../../src/kube/objects';
import { ControllerProcess, startController } from '../support/controller-process';
import { eventually } from '../../src/testing/cluster';
import { loadYaml, DIST } from '../support/manifests';
import { PrivateCluster, startPrivateCluster } from '../support/private-cluster';
import { FakeRateProvider } from '../support/rate-provider';
import { eventsIn, gone as goneFrom, readyOf, Resource, whenReady as whenReadyIn } from '../support/resources';

// A private control plane: these tests loosen a CRD.
const ns = 'e2e';
let cluster: PrivateCluster;
let objects: ObjectClient;
let provider: FakeRateProvider;
let controller: ControllerProcess;

const exchangeRate = (name: string, spec: Record<string, unknown>): KubeObject => ({ apiVersion: 'operators.brennerm.github.io/v1', kind: 'ExchangeRate', metadata: { name, namespace: ns }, spec });
const guitar = (name: string, spec: Record<string, unknown>): KubeObject => ({ apiVersion: 'kool.karmalabs.local/v1', kind: 'Guitar', metadata: { name, namespace: ns }, spec });
const configMap = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns } });
const get = <T extends KubeObject>(o: Pick<KubeObject, 'apiVersion' | 'kind' | 'metadata'>) => objects.get<T>(o);
const ready = readyOf;
const whenReady = (o: KubeObject, status: 'True' | 'False', reason?: string, timeoutMs?: number) => whenReadyIn(objects, o, status, reason, controller.logFile, timeoutMs);
const gone = (o: Pick<KubeObject, 'apiVersion' | 'kind' | 'metadata'>) => goneFrom(objects, o);

beforeAll(async () => {
  cluster = await startPrivateCluster('e2e-controller', ns);
  ({ objects, provider } = cluster);
  controller = startController(
    ['--kubeconfig', cluster.plane.kubeconfig, '--kinds', 'exchangerates,guitars', '--leader-election=false', '--http-port', '0', '--metrics-secure=false', '--exchange-rate-url', provider.url, '--exchange-rate-allow-http', '--exchange-rate-timeout', '1s'],
    join(cluster.dir, 'controller.log'),
  );
}, 120_000);

afterAll(async () => {
  await controller?.stop();
  await cluster?.stop();
});

describe('ExchangeRate', () => {
  it('publishes the rate in a ConfigMap Pods can name, and in status', async () => {
    provider.setRate('EUR', 'USD', 1.0512);
    await objects.apply(exchangeRate('usd', { currency: 'USD', configMapName: 'usd-rate' }));
    const er = await whenReady(exchangeRate('usd', {}), 'True', 'RatePublished');
    expect(er.status).toMatchObject({ rate: '1.0512', date: '2026-11-20' });
    const cm = await get<KubeObject & { data: Record<string, string> }>(configMap('usd-rate'));
    expect(cm.data).toEqual({ base: 'EUR', currency: 'USD', rate: '1.0512', date: '2026-11-20' });
    expect(cm.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'ExchangeRate', name: 'usd', controller: true })]);
  });

  it('asks the provider once per currency pair, however many ExchangeRates want it', async () => {
    provider.setRate('EUR', 'CHF', 0.93);
    provider.resetCounts();
    for (let i = 0; i < 10; i++) await objects.apply(exchangeRate(`chf-${i}`, { currency: 'CHF' }));
    for (let i = 0; i < 10; i++) await whenReady(exchangeRate(`chf-${i}`, {}), 'True');
    expect(provider.requests('EUR', 'CHF')).toBe(1);
  });

  it('keeps the last good ConfigMap through provider failures, says why in status, and recovers', async () => {
    provider.setRate('EUR', 'GBP', 0.85);
    await objects.apply(exchangeRate('gbp', { currency: 'GBP', refreshInterval: '1m' }));
    await whenReady(exchangeRate('gbp', {}), 'True');
    provider.setMode('error500');
    // The next refresh comes a minute after the last: wait longer than that, whatever the machine's load.
    const failing = await whenReady(exchangeRate('gbp', {}), 'False', 'ProviderRejected', 120_000);
    expect(ready(failing)!.message).toMatch(/HTTP 500/);
    expect((await get<KubeObject & { data: Record<string, string> }>(configMap('gbp'))).data.rate).toBe('0.85');
    provider.setMode('garbage');
    await whenReady(exchangeRate('gbp', {}), 'False', 'ProviderAnswerInvalid');
    provider.setMode('ok');
    provider.setRate('EUR', 'GBP', 0.86);
    const recovered = await whenReady(exchangeRate('gbp', {}), 'True');
    expect(recovered.status?.rate).toBe('0.86');
    expect((await get<KubeObject & { data: Record<string, string> }>(configMap('gbp'))).data.rate).toBe('0.86');
  }, 240_000);

  it('puts back a ConfigMap deleted or edited by hand', async () => {
    await whenReady(exchangeRate('usd', {}), 'True');
    await objects.delete(configMap('usd-rate'));
    await eventually('the ConfigMap to be recreated', async () => ((await gone(configMap('usd-rate'))) ? undefined : true));
    await objects.rest.request('PATCH', `/api/v1/namespaces/${ns}/configmaps/usd-rate`, { body: { data: { rate: '999' } }, contentType: 'application/merge-patch+json' });
    await eventually('the rate to be restored', async () => ((await get<KubeObject & { data: Record<string, string> }>(configMap('usd-rate'))).data.rate === '1.0512' ? true : undefined));
  });

  it('never applies over a ConfigMap it does not manage: Conflict in status and an Event, until the name is free', async () => {
    const users = { ...configMap('users-own'), data: { rate: 'mine' } };
    await objects.create(users);
    const before = await get<KubeObject & { data: Record<string, string> }>(configMap('users-own'));
    provider.setRate('EUR', 'CAD', 1.45);
    await objects.apply(exchangeRate('cad', { currency: 'CAD', configMapName: 'users-own' }));
    const conflicted = await whenReady(exchangeRate('cad', {}), 'False', 'Conflict');
    expect(ready(conflicted)!.message).toBe(`left alone ConfigMap ${ns}/users-own: they exist and ExchangeRate does not manage them`);
    const event = await eventually('a Warning Event naming the ConfigMap', async () => (await eventsIn(objects, ns)).find((e) => e.regarding.name === 'cad' && e.reason === 'Conflict'));
    expect(event).toMatchObject({ type: 'Warning', note: expect.stringContaining(`ConfigMap ${ns}/users-own`) });
    const after = await get<KubeObject & { data: Record<string, string> }>(configMap('users-own'));
    expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
    expect(after.data).toEqual({ rate: 'mine' });

    await objects.delete(configMap('users-own'));
    await whenReady(exchangeRate('cad', {}), 'True', 'RatePublished');
    expect((await get<KubeObject & { data: Record<string, string> }>(configMap('users-own'))).data.rate).toBe('1.45');
  });

  it('loses its ConfigMap to the garbage collector when deleted', async () => {
    provider.setRate('EUR', 'JPY', 160.5);
    await objects.apply(exchangeRate('jpy', { currency: 'JPY' }));
    await whenReady(exchangeRate('jpy', {}), 'True');
    await objects.delete(exchangeRate('jpy', {}));
    await eventually('the ConfigMap to be collected', async () => ((await gone(configMap('jpy'))) ? true : undefined));
  });
});

describe('Guitar', () => {
  it('is reviewed into status, and reviewed again when its brand changes', async () => {
    await objects.apply(guitar('strat', { brand: ' Fender ' }));
    const first = await whenReady(guitar('strat', {}), 'True', 'Reviewed');
    expect(first.status).toMatchObject({ verdict: 'great', reviewedGeneration: first.metadata.generation });
    await objects.apply(guitar('strat', { brand: 'Yamaha' }));
    const second = await eventually('a new review', async () => {
      const g = await get<Resource>(guitar('strat', {}));
      return g.status?.verdict === 'not great' && g.status.reviewedGeneration === g.metadata.generation ? g : undefined;
    });
    expect(second.spec).toEqual({ brand: 'Yamaha' }); // the controller never writes spec
  });

  it('reports an object that slipped past a looser CRD as InvalidSpec, with an Event, and keeps serving', async () => {
    const crds = loadYaml(join(DIST, '0-crds.k8s.yaml'));
    const strict = crds.find((c) => c.metadata.name === 'guitars.kool.karmalabs.local')!;
    const loose = structuredClone(strict) as KubeObject & { spec: { versions: { schema: { openAPIV3Schema: { properties: Record<string, unknown> } }; selectableFields?: unknown }[] } };
    loose.spec.versions[0].schema.openAPIV3Schema.properties.spec = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
    // A selectable field must be a field of the schema, which the loose one no longer declares.
    delete loose.spec.versions[0].selectableFields;
    await objects.apply(loose);
    await eventually('the loose schema to be served', () => objects.create(guitar('broken', { review: 'yes' })).then(() => true, () => undefined));
    await objects.apply(strict);

    const broken = await whenReady(guitar('broken', {}), 'False', 'InvalidSpec');
    expect(ready(broken)!.message).toContain('spec.brand: is required');
    const event = await eventually('a Warning Event about it', async () => {
      return (await eventsIn(objects, ns)).find((e) => e.regarding.name === 'broken' && e.reason === 'InvalidSpec');
    });
    expect(event).toMatchObject({ type: 'Warning', note: expect.stringContaining('spec.brand: is required') });

    await objects.apply(guitar('after', { brand: 'martin' }));
    expect((await whenReady(guitar('after', {}), 'True')).status?.verdict).toBe('great');
    expect(controller.child.exitCode).toBeNull();
  });
});

describe('the controller process', () => {
  it('serves /healthz, /readyz and Prometheus /metrics with reconcile counts and durations', async () => {
    // Plain HTTP (--metrics-secure=false): what is checked here is the series; test/security/metrics.test.ts checks who may read them.
    const started = controller.logs().find((l) => l.msg === 'controller starting')!;
    const get = (port: unknown, path: string) => fetch(`http://127.0.0.1:${port as number}${path}`).then(async (r) => ({ status: r.status, text: await r.text() }));
    await expect(get(started.httpPort, '/healthz')).resolves.toEqual({ status: 200, text: 'ok' });
    await expect(get(started.httpPort, '/readyz')).resolves.toEqual({ status: 200, text: 'ok' });
    const metrics = (await get(started.metricsPort, '/metrics')).text;
    expect(metrics).toMatch(/^cdk8s_operators_reconciles_total\{kind="ExchangeRate",result="success"\} [1-9]\d*$/m);
    expect(metrics).toMatch(/^cdk8s_operators_reconcile_duration_seconds_count\{kind="Guitar"\} [1-9]\d*$/m);
    expect(metrics).toMatch(/^cdk8s_operators_workqueue_depth \d+$/m);
    // The process's own cost, as prom-client's default metrics report it.
    for (const name of ['process_resident_memory_bytes', 'process_cpu_seconds_total', 'nodejs_eventloop_lag_seconds', 'nodejs_heap_size_used_bytes']) {
      expect(metrics).toMatch(new RegExp(`^${name} [0-9.e+-]+$`, 'm'));
    }
    expect(metrics).toMatch(/^# TYPE nodejs_gc_duration_seconds histogram$/m);
  });

  it('logs JSON lines that name the object', () => {
    const line = controller.logs().find((l) => l.msg === 'children reconciled')!;
    expect(line).toMatchObject({ level: 'info', kind: 'ExchangeRate', namespace: ns, name: expect.any(String) });
  });

  it('lists every flag with its environment variable in --help, and rejects a bad one in one line', async () => {
    const { spawnSync } = await import('node:child_process');
    const bin = join(__dirname, '..', '..', 'bin', 'cdk8s-operators');
    const help = spawnSync(process.execPath, [bin, 'controller', '--help'], { encoding: 'utf8' });
    expect(help.status).toBe(0);
    for (const flag of ['--kubeconfig', '--workers', '--namespace', '--leader-election', '--exchange-rate-url', '--resync-period']) expect(help.stdout).toContain(flag);
    expect(help.stdout).toContain('EXCHANGE_RATE_URL');
    const bad = spawnSync(process.execPath, [bin, 'controller', '--workers', 'many'], { encoding: 'utf8' });
    expect(bad.status).toBe(1);
    expect(bad.stderr.trim()).toBe('cdk8s-operators controller: --workers: expected a positive integer, got "many"');
  });
});
