import { FaultProxy } from '../support/fault-proxy-server';
import { KubeObject } from '../../src/kube/objects';
import { KubeRest } from '../../src/kube/rest';
import { Informer } from '../../src/runtime/informer';
import { createLogger } from '../../src/runtime/log';
import { createTestNamespace, deleteNamespace, eventually, testKubeConfig } from '../../src/testing/cluster';
import { testObjects } from '../support/manifests';
import { startTestFaultProxy } from '../support/fault-proxy';

// The chaos soak's watch-gone fault (docs/soak.md) answers every watch with 410 Gone; the
// informer relisted in a loop (5,056 made-up 410s in an hour). Here the soak's proxy does the
// same in front of the test control plane, and the relists are counted.
const kc = testKubeConfig();
const objects = testObjects();
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
let namespace: string;
let proxy: FaultProxy;
let informer: Informer;
const restarts: number[] = [];

beforeAll(async () => {
  namespace = await createTestNamespace(kc, 'informer-backoff');
  const started = await startTestFaultProxy('informer');
  proxy = started.proxy;
  const onRestart = (why: string) => void (why === 'expired' && restarts.push(Date.now()));
  // Watches of 2 s: the API server ends each, and the next one meets the fault, as a watch
  // renewed after a routine timeout meets a version that expired meanwhile.
  informer = new Informer(new KubeRest(started.kubeConfig), { path: `/api/v1/namespaces/${namespace}/configmaps`, watchSeconds: 2, onRestart }, createLogger({ level: 'error', write: () => undefined }));
  informer.start();
  await informer.waitForSync(30_000);
}, 60_000);

afterAll(async () => {
  informer?.stop();
  await proxy?.close();
  if (namespace) await deleteNamespace(kc, namespace);
});

const configMap = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace } });

/** Answers every new watch with 410 for `ms` and returns the times of the relists it caused. */
async function goneFor(ms: number): Promise<number[]> {
  const from = restarts.length;
  proxy.set({ kind: 'gone' });
  await sleep(ms);
  proxy.set({ kind: 'none' });
  return restarts.slice(from);
}

/** Waits until the watch (not a relist) delivered a new object: the watch runs normally again. */
async function watchWorks(name: string): Promise<void> {
  await eventually('the informer to list again', async () => (informer.cache.has(`${namespace}/${name}-listed`) ? true : undefined));
  const before = restarts.length;
  await objects.apply(configMap(`${name}-watched`));
  await eventually('the watch to deliver a new ConfigMap', async () => (informer.cache.has(`${namespace}/${name}-watched`) ? true : undefined));
  expect(restarts.length).toBe(before);
}

it('relists at once after a 410, then backs off while every watch is answered 410, and starts over once a watch works', async () => {
  await objects.apply(configMap('first-listed'));
  await eventually('the first ConfigMap', async () => (informer.cache.has(`${namespace}/first-listed`) ? true : undefined));

  const storm = await goneFor(9000);
  const gaps = storm.slice(1).map((t, i) => t - storm[i]);
  // The first relist is prompt; the next wait 0.8 s, then doubling (with jitter): a handful in
  // 9 s, where a relist loop makes hundreds.
  expect(gaps[0]).toBeLessThan(700);
  expect(gaps.slice(1).every((gap) => gap >= 800)).toBe(true);
  expect(storm.length).toBeGreaterThanOrEqual(3);
  expect(storm.length).toBeLessThanOrEqual(6);

  await objects.apply(configMap('second-listed'));
  await watchWorks('second');

  // A watch ran normally, so the backoff starts over: prompt again.
  const again = await goneFor(3500);
  expect(again.length).toBeGreaterThanOrEqual(2);
  expect(again[1] - again[0]).toBeLessThan(700);
}, 120_000);
