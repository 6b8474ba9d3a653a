import 'reflect-metadata';
import { request as httpsRequest } from 'node:https';
import { validatingWebhookManifest } from '../../src/bundle/validating-webhook';
import { AnyKind } from '../../src/core/contract/kind';
import { KubeObject } from '../../src/kube/objects';
import { KubeRest } from '../../src/kube/rest';
import { VALIDATING_WEBHOOKS_PATH } from '../../src/runtime/conversion/inject-validation';
import { ConversionWebhook } from '../../src/runtime/conversion/webhook';
import { createLogger } from '../../src/runtime/log';
import { PRODUCT_NAMES } from '../../src/product';
import { freePort } from '../../src/testing/controlplane/processes';
import { createTestNamespace, deleteNamespace, eventually, refusalOf, testKubeConfig } from '../../src/testing/cluster';
import { testObjects } from '../support/manifests';
import { defineTestKind, installTestCrd, TestSpec } from '../../src/testing/test-kind';

// A kind's `validate` hook at admission on the real control plane: the API server (a process on
// 127.0.0.1) posts its AdmissionReviews to the webhook in this process, by the `url` of local
// mode, and trusts it by the CA the webhook injected into the ValidatingWebhookConfiguration.

const kc = testKubeConfig();
const rest = new KubeRest(kc);
const objects = testObjects();
const logLines: string[] = [];
const log = createLogger({ level: 'debug', write: (line) => void logLines.push(line) });

/** A check CEL could express, but it stands for one it cannot (a cron expression parsed). */
const evenSize = (spec: TestSpec) => (spec.size % 2 ? [{ field: 'spec.size', message: `must be even, got ${spec.size}` }] : []);
const vetted = defineTestKind('Vetted', { render: () => undefined, validate: evenSize }) as unknown as AnyKind;

const object = (namespace: string, name: string, size: number): KubeObject => ({ apiVersion: `${vetted.group}/v1`, kind: vetted.kind, metadata: { name, namespace }, spec: { size } });
describe('a kind with a validate hook, served by the controller\u2019s webhook', () => {
  let namespace: string;
  let port: number;
  let webhook: ConversionWebhook;

  beforeAll(async () => {
    namespace = await createTestNamespace(kc, 'validate-hook');
    port = await freePort();
    await installTestCrd(vetted);
    // As the bundle installs it, pointed at this process; no caBundle: the webhook injects its CA.
    await objects.apply(validatingWebhookManifest([vetted], { url: `https://127.0.0.1:${port}/validate` }, { names: PRODUCT_NAMES }) as unknown as KubeObject);
    webhook = new ConversionWebhook(rest, { operator: PRODUCT_NAMES, kinds: [vetted], namespace, port, host: '127.0.0.1', url: `https://127.0.0.1:${port}/convert` }, log);
    expect(await webhook.start()).toBe(true);
    // The API server picks up a changed configuration a moment later: until then an odd size gets in.
    let probe = 0;
    await eventually('the API server to call the webhook', async () => {
      const name = `probe-${probe++}`;
      const message = await refusalOf(() => objects.create(object(namespace, name, 1)));
      if (message === undefined) await objects.delete(object(namespace, name, 1));
      // Until the CA is trusted the API server fails to call it; only the hook's own refusal counts.
      return message?.includes('denied the request') ? message : undefined;
    });
  });
  afterAll(async () => {
    await rest.request('DELETE', `${VALIDATING_WEBHOOKS_PATH}/${PRODUCT_NAMES.validatingWebhook}`, { notFoundAsUndefined: true });
    await webhook?.stop();
    if (namespace) await deleteNamespace(kc, namespace);
    expect(logLines.join('\n')).not.toMatch(/PRIVATE KEY|BEGIN CERTIFICATE/);
  });

  it('injected its CA into every webhook of the configuration', async () => {
    const live = await rest.request<{ webhooks: { name: string; clientConfig: { caBundle?: string } }[] }>('GET', `${VALIDATING_WEBHOOKS_PATH}/${PRODUCT_NAMES.validatingWebhook}`);
    const secret = await rest.request<{ data: Record<string, string> }>('GET', `/api/v1/namespaces/${namespace}/secrets/${PRODUCT_NAMES.webhookSecret}`);
    expect(live.webhooks.map((w) => [w.name, w.clientConfig.caBundle])).toEqual([[`validate.vetteds.${vetted.group}`, secret.data['ca.crt']]]);
  });

  it('refuses a spec the hook refuses, with the hook\u2019s message naming the field', async () => {
    const message = await refusalOf(() => objects.create(object(namespace, 'odd', 3)));
    expect(message).toContain(`admission webhook "validate.vetteds.${vetted.group}" denied the request`);
    expect(message).toContain('spec.size: must be even, got 3');
  });

  it('leaves the CRD\u2019s schema first: a size below its minimum is refused by the API server before any hook', async () => {
    const message = await refusalOf(() => objects.create(object(namespace, 'zero', 0)));
    expect(message).toMatch(/spec\.size/);
    expect(message).not.toContain('admission webhook');
  });

  it('admits a good spec, refuses an update to a bad one, and admits a change that leaves the spec alone', async () => {
    await objects.create(object(namespace, 'even', 2));
    const path = `/apis/${vetted.group}/v1/namespaces/${namespace}/vetteds/even`;
    const patch = (body: unknown) => rest.request('PATCH', path, { body, contentType: 'application/merge-patch+json' });
    expect(await refusalOf(() => patch({ spec: { size: 5 } }))).toContain('spec.size: must be even, got 5');
    await patch({ metadata: { labels: { reviewed: 'yes' } } });
    await patch({ spec: { size: 4 } });
    expect((await objects.get<KubeObject & { spec: TestSpec }>(object(namespace, 'even', 0))).spec.size).toBe(4);
  });

  it('answers a body that is not an AdmissionReview in the review\u2019s own words', async () => {
    const secret = await rest.request<{ data: Record<string, string> }>('GET', `/api/v1/namespaces/${namespace}/secrets/${PRODUCT_NAMES.webhookSecret}`);
    const ca = Buffer.from(secret.data['ca.crt'], 'base64').toString('utf8');
    const answer = await new Promise<{ status: number; body: { kind: string; response: { allowed: boolean; status: { message: string } } } }>((resolve, reject) => {
      const req = httpsRequest({ host: '127.0.0.1', port, path: '/validate', method: 'POST', ca, headers: { 'content-type': 'application/json' } }, (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
      });
      req.once('error', reject);
      req.end('not json');
    });
    expect(answer.status).toBe(400);
    expect(answer.body.kind).toBe('AdmissionReview');
    expect(answer.body.response.allowed).toBe(false);
    expect(answer.body.response.status.message).toMatch(/^the body is not JSON .*expected an AdmissionReview of admission\.k8s\.io\/v1$/);
  });
});
