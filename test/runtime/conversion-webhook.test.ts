import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { webcrypto, X509Certificate } from 'node:crypto';
import { request as httpsRequest } from 'node:https';
import { crdManifest } from '../../src/bundle/crd';
import { crdName } from '../../src/core/groups';
import { AnyKind } from '../../src/core/contract/kind';
import { KubeObject } from '../../src/kube/objects';
import { KubeRest } from '../../src/kube/rest';
import { splitPem } from '../../src/runtime/conversion/certificates';
import { CaInjector } from '../../src/runtime/conversion/inject';
import { ConversionWebhook, ConversionWebhookOptions } from '../../src/runtime/conversion/webhook';
import { createLogger } from '../../src/runtime/log';
import { runController } from '../../src/commands/controller';
import { createTestNamespace, deleteNamespace, eventually, suiteNamespace, testKubeConfig } from '../../src/testing/cluster';
import { applyCrd } from '../../src/testing/objects';
import { presentedCertificate } from '../support/conversion';
import { testObjects } from '../support/manifests';
import { defineTestKind, defineVersionedTestKind, installTestCrd } from '../../src/testing/test-kind';
import { PRODUCT_IDENTITY, PRODUCT_NAMES } from '../../src/product';
import { freePort } from '../../src/testing/controlplane/processes';

// The conversion webhook on the real control plane: the API server (a process on 127.0.0.1)
// posts its ConversionReviews to the webhook in this process, by the `url` client config of
// local mode, and trusts it by the CA bundle the webhook injected.

const kc = testKubeConfig();
const rest = new KubeRest(kc);
const objects = testObjects();
const logLines: string[] = [];
const log = createLogger({ level: 'debug', write: (line) => void logLines.push(line) });
const running: ConversionWebhook[] = [];

const urlOf = (port: number) => `https://127.0.0.1:${port}/convert`;

/** Installs the kind's CRD pointing at `url` (no CA yet: the webhook injects it) and waits until it is Established. */
async function installCrd(kind: AnyKind, url: string): Promise<void> {
  const crd = crdManifest(kind, { url }) as unknown as KubeObject;
  await applyCrd(objects, crd);
}

async function startWebhook(options: Omit<ConversionWebhookOptions, 'host' | 'operator'> & { host?: string }): Promise<ConversionWebhook> {
  const webhook = new ConversionWebhook(rest, { operator: PRODUCT_NAMES, host: '127.0.0.1', ...options }, log);
  running.push(webhook);
  expect(await webhook.start()).toBe(true);
  return webhook;
}

interface Secret {
  metadata: { resourceVersion: string; uid: string };
  data: Record<string, string>;
}
const readSecret = (namespace: string) => rest.request<Secret>('GET', `/api/v1/namespaces/${namespace}/secrets/${PRODUCT_NAMES.webhookSecret}`);
const decoded = (secret: Secret, key: string) => Buffer.from(secret.data[key], 'base64').toString('utf8');

function object(kind: AnyKind, version: string, namespace: string, name: string, spec: Record<string, unknown>): KubeObject {
  return { apiVersion: `${kind.group}/${version}`, kind: kind.kind, metadata: { name, namespace }, spec };
}
const read = (kind: AnyKind, version: string, namespace: string, name: string) => objects.get<KubeObject & { spec: Record<string, unknown> }>(object(kind, version, namespace, name, {}));

/** POST a body to a webhook over HTTPS, trusting only `ca`; the status and the parsed answer. */
function post(port: number, ca: string, body: string): Promise<{ status: number; answer: { response: { uid: string; result: { status: string; message?: string }; convertedObjects: unknown[] } } }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest({ host: '127.0.0.1', port, path: '/convert', method: 'POST', ca, headers: { 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode!, answer: JSON.parse(text) }));
    });
    req.once('error', reject);
    req.end(body);
  });
}


const review = (uid: string, desiredAPIVersion: string, items: unknown[]) => JSON.stringify({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', request: { uid, desiredAPIVersion, objects: items } });

afterAll(async () => {
  await Promise.all(running.splice(0).map((w) => w.stop()));
  // No key material in any log line.
  expect(logLines.join('\n')).not.toMatch(/PRIVATE KEY|BEGIN CERTIFICATE/);
});

describe('the conversion webhook, two replicas sharing one Secret', () => {
  const kind = defineVersionedTestKind('Webhooked', { render: () => undefined });
  let namespace: string;
  let port: number;
  let other: ConversionWebhook;

  beforeAll(async () => {
    namespace = await createTestNamespace(kc, 'conversion');
    port = await freePort();
    await installCrd(kind, urlOf(port));
    // Both at once: one creates the Secret, the other's create is answered 409 and it reads it.
    [, other] = await Promise.all([
      startWebhook({ kinds: [kind], namespace, port, url: urlOf(port) }),
      startWebhook({ kinds: [kind], namespace, port: 0 }),
    ]);
  });
  afterAll(() => deleteNamespace(kc, namespace));

  it('keeps its CA and serving certificate in one Secret, and injects the CA and the URL into the CRD', async () => {
    const secret = await readSecret(namespace);
    expect(Object.keys(secret.data).sort()).toEqual(['ca.crt', 'ca.key', 'tls.crt', 'tls.key']);
    const [ca] = splitPem(decoded(secret, 'ca.crt'));
    const serving = new X509Certificate(decoded(secret, 'tls.crt'));
    expect(serving.checkIssued(new X509Certificate(ca))).toBe(true);
    expect(serving.subjectAltName?.split(', ').sort()).toEqual(
      [`DNS:controller-webhook.${namespace}.svc`, `DNS:controller-webhook.${namespace}.svc.cluster.local`, 'DNS:localhost', 'IP Address:127.0.0.1'].sort(),
    );
    const crd = await rest.request<{ spec: { conversion: { webhook: { clientConfig: Record<string, string> } } } }>('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crdName(kind)}`);
    expect(crd.spec.conversion.webhook.clientConfig).toEqual({ url: urlOf(port), caBundle: secret.data['ca.crt'] });
    expect(logLines.filter((l) => l.includes('created Secret'))).toHaveLength(1);
  });

  it('converts through the API server: created in v1, read in v2 and in v1', async () => {
    await objects.create(object(kind, 'v1', namespace, 'from-v1', { size: 2, tag: 'blue' }));
    expect((await read(kind, 'v2', namespace, 'from-v1')).spec).toEqual({ size: 2, tags: ['blue'] });
    expect((await read(kind, 'v1', namespace, 'from-v1')).spec).toEqual({ size: 2, tag: 'blue' });
  });

  it('keeps through a write in v1 what v1 cannot hold: written in v2, edited in v1, read in v2', async () => {
    await objects.create(object(kind, 'v2', namespace, 'from-v2', { size: 1, tags: ['a', 'b', 'c'] }));
    const old = await read(kind, 'v1', namespace, 'from-v2');
    expect(old.spec).toEqual({ size: 1, tag: 'a' });
    await rest.request('PUT', `/apis/${kind.group}/v1/namespaces/${namespace}/${kind.plural}/from-v2`, { body: { ...old, spec: { ...old.spec, size: 5 } } });
    expect((await read(kind, 'v2', namespace, 'from-v2')).spec).toEqual({ size: 5, tags: ['a', 'b', 'c'] });
  });

  it('serves from both replicas with the one certificate of the Secret', async () => {
    const secret = await readSecret(namespace);
    const ca = decoded(secret, 'ca.crt');
    const tls = new X509Certificate(decoded(secret, 'tls.crt')).toString();
    expect(await presentedCertificate(port, ca)).toBe(tls);
    expect(await presentedCertificate(other.port!, ca)).toBe(tls);
    for (const p of [port, other.port!]) {
      const { status, answer } = await post(p, ca, review('u1', `${kind.group}/v2`, [object(kind, 'v1', namespace, 'x', { size: 1, tag: 't' })]));
      expect(status).toBe(200);
      expect(answer.response).toEqual({ uid: 'u1', result: { status: 'Success' }, convertedObjects: [object(kind, 'v2', namespace, 'x', { size: 1, tags: ['t'] })] });
    }
  });

  it('answers bad reviews posted over HTTPS with a failure, and keeps serving', async () => {
    const ca = decoded(await readSecret(namespace), 'ca.crt');
    const malformed = await post(port, ca, '{"apiVersion": "apiextensions.k8s.io/v1", "kind": ');
    expect(malformed.status).toBe(400);
    expect(malformed.answer.response.result).toEqual({ status: 'Failure', message: expect.stringMatching(/^the body is not JSON .*expected a ConversionReview/) });
    const unknown = await post(port, ca, review('u2', `${kind.group}/v9`, [object(kind, 'v1', namespace, 'x', { size: 1 })]));
    expect(unknown.status).toBe(200);
    expect(unknown.answer.response).toEqual({ uid: 'u2', convertedObjects: [], result: { status: 'Failure', message: expect.stringMatching(/Webhooked .*\/x: apiVersion: unknown version "v9"/) } });
    const notReview = await post(port, ca, '[1, 2]');
    expect(notReview.answer.response.result.status).toBe('Failure');
    expect((await read(kind, 'v1', namespace, 'from-v1')).spec).toEqual({ size: 2, tag: 'blue' });
  });
});

describe('the conversion webhook while its certificates rotate', () => {
  const kind = defineVersionedTestKind('Rotated', { render: () => undefined });
  const space = suiteNamespace('rotation');

  it('renews the CA and the serving certificate while conversions run, and no read fails', async () => {
    const namespace = space.name;
    const port = await freePort();
    await installCrd(kind, urlOf(port));
    // A CA of 8 s (renewed after 5.3 s), serving certificates of 3 s (renewed after 2 s), checked every 200 ms.
    const timing = { caLifetimeMs: 8000, servingLifetimeMs: 3000, checkIntervalMs: 200, settleMs: 600 };
    await startWebhook({ kinds: [kind], namespace, port, url: urlOf(port), timing });
    await objects.create(object(kind, 'v2', namespace, 'read-often', { size: 3, tags: ['x', 'y'] }));
    const cas = new Set<string>();
    const servings = new Set<string>();
    let bundleOfTwo = false;
    const failures: string[] = [];
    let reads = 0;
    const until = Date.now() + 12_000;
    while (Date.now() < until) {
      try {
        const old = await read(kind, 'v1', namespace, 'read-often');
        if ((old.spec as { tag?: string }).tag !== 'x') failures.push(`read ${JSON.stringify(old.spec)}`);
        reads++;
      } catch (err) {
        failures.push((err as Error).message);
      }
      const secret = await readSecret(namespace);
      const bundle = splitPem(decoded(secret, 'ca.crt'));
      bundle.forEach((ca) => cas.add(ca));
      bundleOfTwo ||= bundle.length === 2;
      servings.add(decoded(secret, 'tls.crt'));
    }
    expect(failures).toEqual([]);
    expect(reads).toBeGreaterThan(50);
    expect(cas.size).toBeGreaterThanOrEqual(2);
    expect(bundleOfTwo).toBe(true);
    expect(servings.size).toBeGreaterThanOrEqual(4);
  }, 60_000);
});

describe('the conversion webhook down', () => {
  const kind = defineVersionedTestKind('Downed', { render: () => undefined });
  const space = suiteNamespace('webhook-down');

  it('makes the API server refuse a read in the other version, naming the webhook, and write nothing', async () => {
    const namespace = space.name;
    const port = await freePort();
    await installCrd(kind, urlOf(port));
    const webhook = await startWebhook({ kinds: [kind], namespace, port, url: urlOf(port) });
    await objects.create(object(kind, 'v2', namespace, 'stored', { size: 1, tags: ['a', 'b'] }));
    await webhook.stop();
    const failed = await read(kind, 'v1', namespace, 'stored').then(
      () => undefined,
      (err: Error) => err.message,
    );
    expect(failed).toMatch(/conversion webhook for .*Downed.*failed/);
    expect(failed).toContain(urlOf(port));
    // A write in v1 fails too, and the stored object is as it was.
    await expect(objects.apply(object(kind, 'v1', namespace, 'stored', { size: 9, tag: 'z' }))).rejects.toThrow(/conversion webhook/);
    expect((await read(kind, 'v2', namespace, 'stored')).spec).toEqual({ size: 1, tags: ['a', 'b'] });
  });
});

/** A self-signed CA certificate (PEM): the API server refuses a caBundle that is not one. */
async function someCa(): Promise<string> {
  const keys = await webcrypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify']);
  const cert = await x509.X509CertificateGenerator.createSelfSigned({ name: 'CN=test CA', keys, signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' }, extensions: [new x509.BasicConstraintsExtension(true, 0, true)] });
  return cert.toString('pem') + '\n';
}

describe('CA injection into a CRD that points at the Service', () => {
  const kind = defineVersionedTestKind('Injected', { render: () => undefined });
  type Crd = KubeObject & { spec: { conversion: { webhook: { clientConfig: Record<string, unknown> } } }; metadata: { managedFields: { manager: string; fieldsV1: unknown }[] } };

  it('server-side applies the caBundle alone under its own field manager, keeping the installer’s service', async () => {
    const service = { namespace: 'cdk8s-operators', name: 'controller-webhook', path: '/convert', port: 443 };
    const crd = crdManifest(kind, { service }) as unknown as KubeObject;
    await objects.apply(crd);
    const injector = new CaInjector(rest, [crdName(kind)], undefined, log, PRODUCT_NAMES.caInjector);
    const ca = await someCa();
    await injector.inject(ca);
    const live = await objects.get<Crd>(crd);
    expect(live.spec.conversion.webhook.clientConfig).toEqual({ service, caBundle: Buffer.from(ca).toString('base64') });
    expect(await injector.trusts(ca)).toBe(true);
    const ours = live.metadata.managedFields.find((f) => f.manager === 'cdk8s-operators-ca-injector');
    expect(JSON.stringify(ours?.fieldsV1)).toBe(JSON.stringify({ 'f:spec': { 'f:conversion': { 'f:webhook': { 'f:clientConfig': { 'f:caBundle': {} } } } } }));
    // The installer applying its manifest again neither removes the caBundle nor conflicts.
    await objects.apply(crd, { force: false });
    expect((await objects.get<Crd>(crd)).spec.conversion.webhook.clientConfig.caBundle).toBeDefined();
    await objects.delete(crd);
  });
});

describe('the controller with a kind of several versions', () => {
  const kind = defineVersionedTestKind('Started', { render: () => undefined });
  const space = suiteNamespace('webhook-start');

  it('serves conversion and injects its CA before it reports ready; with --conversion-webhook=false it does neither', async () => {
    const namespace = space.name;
    const [port, httpPort] = [await freePort(), await freePort()];
    await installCrd(kind, urlOf(port));
    const args = (more: string[]) => [`--kubeconfig=${process.env.TEST_KUBECONFIG}`, '--leader-election=false', `--namespace=${namespace}`, `--leader-election-namespace=${namespace}`, `--http-port=${httpPort}`, '--metrics-port=0', '--log-level=error', ...more];
    const readyz = () => fetch(`http://127.0.0.1:${httpPort}/readyz`).then((r) => r.status, () => 0);

    const before = process.listeners('SIGTERM');
    const done = runController(args([`--webhook-port=${port}`, '--webhook-host=127.0.0.1', `--webhook-url=${urlOf(port)}`]), {}, [kind], () => undefined, PRODUCT_IDENTITY);
    await eventually('the controller to report ready', async () => ((await readyz()) === 200 ? true : undefined));
    // Ready means served and trusted: the CA is in the CRD already, and a read in v1 converts.
    const secret = await readSecret(namespace);
    const crd = await rest.request<{ spec: { conversion: { webhook: { clientConfig: { caBundle?: string } } } } }>('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crdName(kind)}`);
    expect(crd.spec.conversion.webhook.clientConfig.caBundle).toBe(secret.data['ca.crt']);
    await objects.create(object(kind, 'v2', namespace, 'one', { size: 1, tags: ['q'] }));
    expect((await read(kind, 'v1', namespace, 'one')).spec).toEqual({ size: 1, tag: 'q' });
    const stop = process.listeners('SIGTERM').find((l) => !before.includes(l)) as (signal: string) => void;
    stop('SIGTERM');
    expect(await done).toBe(0);

    // Another process serves conversion: this one neither listens nor touches the Secret.
    const resourceVersion = secret.metadata.resourceVersion;
    const before2 = process.listeners('SIGTERM');
    const done2 = runController(args(['--conversion-webhook=false', `--webhook-port=${port}`]), {}, [kind], () => undefined, PRODUCT_IDENTITY);
    await eventually('the controller to report ready', async () => ((await readyz()) === 200 ? true : undefined));
    await expect(fetch(`https://127.0.0.1:${port}/convert`, { method: 'POST' })).rejects.toThrow();
    expect((await readSecret(namespace)).metadata.resourceVersion).toBe(resourceVersion);
    (process.listeners('SIGTERM').find((l) => !before2.includes(l)) as (signal: string) => void)('SIGTERM');
    expect(await done2).toBe(0);
  });

  it('serves a kind of one version while the webhook cannot start yet, and reports not ready until it does', async () => {
    const plain = defineTestKind('Unconverted', { render: () => undefined });
    const namespace = space.name;
    const [port, httpPort] = [await freePort(), await freePort()];
    await installCrd(kind, urlOf(port));
    await installTestCrd(plain);
    const before = process.listeners('SIGTERM');
    // The webhook's own namespace does not exist: it cannot store its certificate, and retries.
    const args = [`--kubeconfig=${process.env.TEST_KUBECONFIG}`, '--leader-election=false', `--namespace=${namespace}`, '--leader-election-namespace=no-such-namespace', `--kinds=${plain.plural}`, `--http-port=${httpPort}`, '--metrics-port=0', '--conversion-webhook=true', `--webhook-port=${port}`, '--webhook-host=127.0.0.1', `--webhook-url=${urlOf(port)}`];
    const done = runController(args, {}, [plain, kind], () => undefined, PRODUCT_IDENTITY);
    await objects.create({ apiVersion: `${plain.group}/v1`, kind: plain.kind, metadata: { name: 'served', namespace }, spec: { size: 1 } });
    await eventually('the kind of one version to be reconciled', async () => {
      const live = await objects.get<KubeObject & { status?: { conditions?: { type: string; status: string }[] } }>({ apiVersion: `${plain.group}/v1`, kind: plain.kind, metadata: { name: 'served', namespace } });
      return live.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ? true : undefined;
    });
    await expect(fetch(`https://127.0.0.1:${port}/convert`, { method: 'POST' })).rejects.toThrow();
    expect(await fetch(`http://127.0.0.1:${httpPort}/readyz`).then((r) => r.status)).not.toBe(200);
    (process.listeners('SIGTERM').find((l) => !before.includes(l)) as (signal: string) => void)('SIGTERM');
    expect(await done).toBe(0);
  });
});
