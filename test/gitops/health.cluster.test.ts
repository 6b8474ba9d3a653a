import { join } from 'node:path';
import { KubeObject, ObjectClient } from '../../src/kube/objects';
import { eventually } from '../../src/testing/cluster';
import { ControllerProcess, startController } from '../support/controller-process';
import { toolsBeforeAll } from '../support/go-tool';
import { PrivateCluster, startPrivateCluster } from '../support/private-cluster';
import { readyOf, Resource } from '../support/resources';
import { argoCdHealth, gitopsHealth, kstatus, shippedHealthScripts } from './tools';

toolsBeforeAll(gitopsHealth);

// A private control plane: the test stops the controller to make generations stale and
// deletions wait, which must not disturb the test files running beside it.
const ns = 'health';
let cluster: PrivateCluster;
let objects: ObjectClient;
let controller: ControllerProcess;

const object = (apiVersion: string, kind: string, name: string, spec: Record<string, unknown>): KubeObject & { spec: Record<string, unknown> } => ({
  apiVersion,
  kind,
  metadata: { name, namespace: ns },
  spec,
});
const guitar = object('kool.karmalabs.local/v1', 'Guitar', 'strat', { brand: 'fender' });
const usd = object('operators.brennerm.github.io/v1', 'ExchangeRate', 'usd', { currency: 'USD' });
/** A pair the fake provider does not know: it answers 404, as the real one does. */
const zar = object('operators.brennerm.github.io/v1', 'ExchangeRate', 'zar', { currency: 'ZAR' });
const copies = object('test.com/v1', 'CopyratorRule', 'copies', { ruleType: 'configmap', selector: { copy: 'me' }, targetNamespaces: ['default'] });
/** This install does not copy Secrets. */
const secrets = object('test.com/v1', 'CopyratorRule', 'secrets', { ruleType: 'secret', selector: { copy: 'me' }, targetNamespaces: ['default'] });
/** No storage provisioner runs: its claims stay pending, so it stays in progress; its final snapshot waits likewise. */
const database = object('stable.imaginedata.com/v1', 'Database', 'pending', { name: 'orders', 'storage-size': '1Gi', deletionPolicy: 'Snapshot' });

/** Each kind's health script from the shipped dist/argocd/argocd-cm-health.yaml, as a file. */
const shippedScript = (kind: string) => [...shippedHealthScripts()].find(([key]) => key.endsWith(`_${kind}`))![1];

/** What Argo CD and kstatus say of live objects, one line each. */
function judge(live: Resource[]): { object: string; argoCd?: string; kstatus?: string }[] {
  const kinds = [...new Set(live.map((o) => o.kind))];
  const argo = new Map(kinds.flatMap((kind) => {
    const ofKind = live.filter((o) => o.kind === kind);
    const verdicts = argoCdHealth(shippedScript(kind), ofKind);
    return ofKind.map((o, i) => [o, verdicts[i]] as const);
  }));
  const flux = kstatus(live);
  return live.map((o, i) => ({ object: `${o.kind} ${o.metadata.name}`, argoCd: argo.get(o)!.error ?? argo.get(o)!.status, kstatus: flux[i].error ?? flux[i].status }));
}

const get = (o: KubeObject) => objects.get<Resource>(o);

/** Waits until the controller wrote status for the object's current generation and `holds` says yes. */
function whenServed(o: KubeObject, what: string, holds: (live: Resource) => boolean): Promise<Resource> {
  return eventually(`${o.kind} ${o.metadata.name} ${what}; controller log: ${controller.logFile}`, async () => {
    const live = await get(o);
    return live.status?.observedGeneration === live.metadata.generation && holds(live) ? live : undefined;
  });
}
const readyIs = (status: string, reasons?: readonly string[]) => (live: Resource) =>
  readyOf(live)?.status === status && (!reasons || reasons.includes(readyOf(live)!.reason));

beforeAll(async () => {
  cluster = await startPrivateCluster('gitops-health', ns);
  objects = cluster.objects;
  cluster.provider.setRate('EUR', 'USD', 1.05);
}, 120_000);

afterAll(async () => {
  await controller?.stop();
  await cluster?.stop();
});

describe('Argo CD health and kstatus of live objects', () => {
  it('say in progress for every new object, before the controller acted on it', async () => {
    for (const o of [guitar, usd, zar, copies, secrets, database]) await objects.apply(o);
    const fresh = await Promise.all([guitar, usd, zar, copies, secrets, database].map(get));
    expect(fresh.map((o) => o.status)).toEqual(fresh.map(() => ({ observedGeneration: 0 })));
    expect(judge(fresh)).toEqual(fresh.map((o) => ({ object: `${o.kind} ${o.metadata.name}`, argoCd: 'Progressing', kstatus: 'InProgress' })));
  });

  it('say Healthy/Current, Degraded/Failed and Progressing/InProgress for what the controller wrote', async () => {
    controller = startController(
      ['--kubeconfig', cluster.plane.kubeconfig, '--kinds', 'exchangerates,guitars,copyrators,databases', '--leader-election=false', '--http-port', '0', '--exchange-rate-url', cluster.provider.url, '--exchange-rate-allow-http', `--copyrator-trusted-namespaces=${ns}`],
      join(cluster.dir, 'controller.log'),
    );
    const live = [
      await whenServed(guitar, 'Ready', readyIs('True')),
      await whenServed(usd, 'Ready', readyIs('True')),
      await whenServed(copies, 'Ready', readyIs('True')),
      await whenServed(zar, 'failing', readyIs('False', ['ProviderRejected'])),
      await whenServed(secrets, 'failing', readyIs('False', ['SecretCopyingDisabled'])),
      await whenServed(database, 'in progress', readyIs('False')),
    ];
    expect(readyOf(live[5])?.reason).toMatch(/^(Creating|ReplicasNotReady|ChildNotReady)$/);
    expect(judge(live)).toEqual([
      { object: 'Guitar strat', argoCd: 'Healthy', kstatus: 'Current' },
      { object: 'ExchangeRate usd', argoCd: 'Healthy', kstatus: 'Current' },
      { object: 'CopyratorRule copies', argoCd: 'Healthy', kstatus: 'Current' },
      { object: 'ExchangeRate zar', argoCd: 'Degraded', kstatus: 'Failed' },
      { object: 'CopyratorRule secrets', argoCd: 'Degraded', kstatus: 'Failed' },
      { object: 'Database pending', argoCd: 'Progressing', kstatus: 'InProgress' },
    ]);
    // What kstatus reads: Stalled for the failures, Reconciling for the work in progress, neither when Ready.
    const engineConditions = (o: Resource) => (o.status?.conditions ?? []).filter((c) => c.type !== 'Ready').map((c) => `${c.type}=${c.status}`);
    expect(live.map(engineConditions)).toEqual([[], [], [], ['Stalled=True'], ['Stalled=True'], ['Reconciling=True']]);
  });

  it('say Progressing/Terminating for an object being deleted that waits for its last step', async () => {
    await objects.delete(database);
    const deleting = await whenServed(database, 'deleting', (o) => o.metadata.deletionTimestamp !== undefined && o.status?.phase === 'Deleting');
    expect(judge([deleting])).toEqual([{ object: 'Database pending', argoCd: 'Progressing', kstatus: 'Terminating' }]);
  });

  it('say Progressing/InProgress for a change the controller has not acted on, and Progressing/Terminating for a deletion it has not seen', async () => {
    await controller.stop();
    await objects.apply({ ...guitar, spec: { brand: 'gibson' } });
    await objects.delete(copies);
    const stale = await get(guitar);
    const deleting = await get(copies);
    expect([stale.metadata.generation, stale.status?.observedGeneration]).toEqual([2, 1]);
    expect(deleting.metadata.deletionTimestamp).toBeDefined();
    expect(judge([stale, deleting])).toEqual([
      { object: 'Guitar strat', argoCd: 'Progressing', kstatus: 'InProgress' },
      { object: 'CopyratorRule copies', argoCd: 'Progressing', kstatus: 'Terminating' },
    ]);
  });
});
