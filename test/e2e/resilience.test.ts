import { join } from 'node:path';
import { KubeObject, ObjectClient } from '../../src/kube/objects';
import { restartProcess } from '../../src/testing/controlplane/controlplane';
import { eventually } from '../../src/testing/cluster';
import { ControllerProcess, startController } from '../support/controller-process';
import { PrivateCluster, startPrivateCluster } from '../support/private-cluster';
import { FakeRateProvider } from '../support/rate-provider';

// A private control plane: its API server is restarted here.
const ns = 'resilience';
let cluster: PrivateCluster;
let objects: ObjectClient;
let provider: FakeRateProvider;
const controllers: ControllerProcess[] = [];

type Resource = KubeObject & { status?: { observedGeneration?: number; conditions?: { type: string; status: string }[] } };
const exchangeRate = (name: string): KubeObject => ({ apiVersion: 'operators.brennerm.github.io/v1', kind: 'ExchangeRate', metadata: { name, namespace: ns }, spec: { currency: 'USD' } });
const list = async <T>(path: string) => (await objects.rest.request<{ items: T[] }>('GET', path)).items;
const exchangeRates = () => list<Resource>(`/apis/operators.brennerm.github.io/v1/namespaces/${ns}/exchangerates`);
const configMaps = () => list<KubeObject>(`/api/v1/namespaces/${ns}/configmaps?labelSelector=app.kubernetes.io/managed-by%3Dcdk8s-operators`);
const isReady = (o: Resource) => o.status?.observedGeneration === o.metadata.generation && o.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');

function controller(name: string, extra: string[] = ['--leader-election=false']): ControllerProcess {
  const args = ['--kubeconfig', cluster.plane.kubeconfig, '--kinds', 'exchangerates', '--http-port', '0', '--exchange-rate-url', provider.url, '--exchange-rate-allow-http', ...extra];
  const started = startController(args, join(cluster.dir, `${name}.log`));
  controllers.push(started);
  return started;
}

async function allReady(count: number, why: string): Promise<Resource[]> {
  return eventually(`${count} ExchangeRates Ready (${why}); logs in ${cluster.dir}`, async () => {
    const items = await exchangeRates();
    return items.length === count && items.every(isReady) ? items : undefined;
  }, 120_000);
}

beforeAll(async () => {
  cluster = await startPrivateCluster('e2e-resilience', ns);
  ({ objects, provider } = cluster);
}, 120_000);

afterEach(async () => {
  await Promise.all(controllers.splice(0).map((c) => c.stop()));
  await objects.rest.request('DELETE', `/apis/operators.brennerm.github.io/v1/namespaces/${ns}/exchangerates`);
  await eventually('the ExchangeRates and their ConfigMaps to be gone', async () => ((await exchangeRates()).length + (await configMaps()).length === 0 ? true : undefined), 90_000);
});

afterAll(async () => {
  await cluster?.stop();
});

it('converges after being killed mid-work, with one ConfigMap per ExchangeRate and no orphan', async () => {
  const first = controller('killed');
  for (let i = 0; i < 40; i++) await objects.apply(exchangeRate(`rate-${i}`));
  await eventually('some but not all to be reconciled', async () => ((await configMaps()).length >= 5 ? true : undefined));
  await first.kill();
  for (let i = 30; i < 40; i++) await objects.delete(exchangeRate(`rate-${i}`));

  const restarted = controller('restarted');
  const ready = await allReady(30, 'after the restart');
  const maps = await eventually('exactly one ConfigMap per remaining ExchangeRate', async () => {
    const items = await configMaps();
    return items.length === 30 ? items : undefined;
  }, 90_000);
  expect(maps.map((m) => m.metadata.name).sort()).toEqual(ready.map((r) => r.metadata.name).sort());
  for (const map of maps) expect(map.metadata.ownerReferences).toHaveLength(1);
  // A restart starts from LISTs, not watch events: nothing may fail on what they return.
  expect(restarted.logs().filter((l) => l.level === 'error')).toEqual([]);
}, 300_000);

it('carries on when the API server restarts under it', async () => {
  const running = controller('steady');
  await objects.apply(exchangeRate('before'));
  await allReady(1, 'before the restart');

  await restartProcess(cluster.dir, 'kube-apiserver', () => new Promise((resolve) => setTimeout(resolve, 3000)));

  await objects.apply(exchangeRate('after'));
  await allReady(2, 'after the restart');
  expect(running.child.exitCode).toBeNull();
  expect(running.logs().some((l) => l.msg === 'list/watch failed, retrying')).toBe(true);
}, 300_000);

it('with two replicas, lets exactly one act, and the other take over when it dies', async () => {
  await objects.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'cdk8s-operators' } });
  const replicas = [controller('replica-a', []), controller('replica-b', [])];
  const leads = (c: ControllerProcess) => c.logs().some((l) => l.msg === 'leading');
  const acted = (c: ControllerProcess) => c.logs().some((l) => l.msg === 'children reconciled');
  const leader = await eventually('a leader', async () => replicas.find(leads), 60_000);
  const standby = replicas.find((r) => r !== leader)!;

  for (let i = 0; i < 5; i++) await objects.apply(exchangeRate(`ha-${i}`));
  await allReady(5, 'served by the leader');
  expect([acted(leader), leads(standby), acted(standby)]).toEqual([true, false, false]);

  await leader.kill(); // no chance to release the Lease: the standby waits for it to expire
  await eventually('the standby to lead', async () => (leads(standby) ? true : undefined), 60_000);
  await objects.apply(exchangeRate('ha-after'));
  await allReady(6, 'served by the new leader');
  expect(acted(standby)).toBe(true);
}, 300_000);

it('serves only the namespaces it is scoped to', async () => {
  await objects.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'scoped' } });
  const elsewhere = { ...exchangeRate('elsewhere'), metadata: { name: 'elsewhere', namespace: 'scoped' } };
  controller('scoped', ['--leader-election=false', '--namespace', 'scoped']);
  await objects.apply(exchangeRate('ignored'));
  await objects.apply(elsewhere);
  await eventually('the ExchangeRate in the served namespace to be Ready', async () => (isReady(await objects.get<Resource>(elsewhere)) ? true : undefined));
  // Only the CRD's default status: no controller wrote one.
  expect((await objects.get<Resource>(exchangeRate('ignored'))).status).toEqual({ observedGeneration: 0 });
  await objects.delete(elsewhere);
});
