import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeJson } from '../../src/core/contract/kind';
import { KubeObject } from '../../src/kube/objects';
import { createTestNamespace, deleteNamespace, eventually, testKubeConfig } from '../../src/testing/cluster';
import { ControllerProcess, startController } from '../support/controller-process';
import { installCrds, testObjects } from '../support/manifests';
import { FakeRateProvider, startRateProvider } from '../support/rate-provider';
import { eventsIn, gone, whenReady } from '../support/resources';

/**
 * An ExchangeRate the original (kopf) operator served: its ConfigMap has a generated name, an
 * ownerReference to the ExchangeRate and none of our labels, and status.on_create names it.
 * Made by hand as the original left it, then our controller starts.
 */
const kc = testKubeConfig();
const objects = testObjects();
let namespace: string;
let provider: FakeRateProvider;
let controller: ControllerProcess;

type ConfigMapJson = KubeJson & { data?: Record<string, string> };
const exchangeRate = (name: string): KubeObject => ({ apiVersion: 'operators.brennerm.github.io/v1', kind: 'ExchangeRate', metadata: { name, namespace }, spec: { currency: 'USD' } });
const configMap = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace } });
const read = (name: string) => objects.find<ConfigMapJson>(configMap(name));
const LEGACY = 'exchange-rate-usd-j98bc';
/** A change to the object (a label) makes it reconcile at once. */
const touch = (name: string) =>
  objects.rest.request('PATCH', `/apis/operators.brennerm.github.io/v1/namespaces/${namespace}/exchangerates/${name}`, {
    body: { metadata: { labels: { touched: String(Date.now()) } } },
    contentType: 'application/merge-patch+json',
  });

beforeAll(async () => {
  await installCrds(objects);
  namespace = await createTestNamespace(kc, 'er-takeover');
  provider = await startRateProvider();
  provider.setRate('EUR', 'USD', 1.0731);

  // What the original left behind: the object, its ConfigMap (kopf.adopt: a controller ownerReference) and its status.
  const owner = await objects.create<KubeJson>(exchangeRate('usd'));
  const ownerReference = { apiVersion: owner.apiVersion, kind: owner.kind, name: owner.metadata.name, uid: owner.metadata.uid, controller: true, blockOwnerDeletion: true };
  await objects.create({ ...configMap(LEGACY), metadata: { name: LEGACY, namespace, ownerReferences: [ownerReference] }, data: { rate: '1.02' } } as KubeObject);
  await objects.rest.request('PATCH', `/apis/operators.brennerm.github.io/v1/namespaces/${namespace}/exchangerates/usd/status`, {
    body: { status: { on_create: { 'configmap-name': LEGACY } } },
    contentType: 'application/merge-patch+json',
    // Written as the original operator (kopf) writes it, not as ours: whose field it is decides whether ours may remove it.
    query: { fieldManager: 'kopf' },
  });

  const log = join(mkdtempSync(join(tmpdir(), 'er-takeover-')), 'controller.log');
  controller = startController(
    ['--kubeconfig', process.env.TEST_KUBECONFIG!, '--kinds', 'exchangerates', '--namespace', namespace, '--leader-election=false', '--http-port', '0', '--exchange-rate-url', provider.url, '--exchange-rate-allow-http'],
    log,
  );
}, 120_000);

afterAll(async () => {
  await controller?.stop();
  await provider?.close();
  await deleteNamespace(kc, namespace);
});

describe('an ExchangeRate taken over from the original operator', () => {
  it('keeps the original\u2019s status.on_create: the CRD\u2019s status schema has it', async () => {
    const live = await objects.get<KubeJson & { status?: Record<string, unknown> }>(exchangeRate('usd'));
    expect(live.status?.on_create).toEqual({ 'configmap-name': LEGACY });
  });

  it('keeps the original\u2019s ConfigMap up to date for the Pods that reference it, beside its own, and says so', async () => {
    const ready = await whenReady(objects, exchangeRate('usd'), 'True', 'RatePublished', controller.logFile);
    expect(ready.status).toMatchObject({ rate: '1.0731', legacyConfigMap: LEGACY, on_create: { 'configmap-name': LEGACY } });
    expect((await read('usd'))?.data).toEqual({ base: 'EUR', currency: 'USD', rate: '1.0731', date: '2026-11-20' });
    const legacy = await read(LEGACY);
    expect(legacy?.data).toEqual({ base: 'EUR', currency: 'USD', rate: '1.0731', date: '2026-11-20' });
    expect(legacy?.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'ExchangeRate', name: 'usd', controller: true })]);
    await eventually('the LegacyConfigMap Warning', async () => {
      const events = (await eventsIn(objects, namespace)).filter((e) => e.reason === 'LegacyConfigMap');
      return events.length ? events : undefined;
    });
    const [event] = (await eventsIn(objects, namespace)).filter((e) => e.reason === 'LegacyConfigMap');
    expect(event.type).toBe('Warning');
    expect(event.note).toContain(`ConfigMap ${LEGACY}, which the original operator created for this ExchangeRate, is kept up to date beside usd`);
  });

  it('never creates it again once the user deleted it, and says so in status', async () => {
    await objects.delete(configMap(LEGACY));
    await touch('usd');
    await eventually('status to stop naming the legacy ConfigMap', async () => {
      const live = await objects.get<KubeJson & { status?: Record<string, unknown> }>(exchangeRate('usd'));
      return live.status?.legacyConfigMap === undefined ? live : undefined;
    });
    expect(await gone(objects, configMap(LEGACY))).toBe(true);
    expect((await read('usd'))?.data?.rate).toBe('1.0731');
  });

  it('leaves a ConfigMap alone that status names but this ExchangeRate does not own, reporting the conflict', async () => {
    await objects.create({ ...configMap('exchange-rate-cad-zz9aa'), data: { rate: 'mine' } } as KubeObject);
    await objects.create(exchangeRate('other'));
    await objects.rest.request('PATCH', `/apis/operators.brennerm.github.io/v1/namespaces/${namespace}/exchangerates/other/status`, {
      body: { status: { on_create: { 'configmap-name': 'exchange-rate-cad-zz9aa' } } },
      contentType: 'application/merge-patch+json',
      query: { fieldManager: 'kopf' },
    });
    await touch('other');
    await whenReady(objects, exchangeRate('other'), 'False', 'Conflict', controller.logFile);
    expect((await read('exchange-rate-cad-zz9aa'))?.data).toEqual({ rate: 'mine' });
  });
});
