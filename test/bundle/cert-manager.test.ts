import { App } from 'cdk8s';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crdManifest } from '../../src/bundle/crd';
import { crdName } from '../../src/core/groups';
import { AnyKind } from '../../src/core/contract/kind';
import { INJECT_CA_ANNOTATION, WEBHOOK_SERVICE } from '../../src/core/install/webhook';
import { KubeObject } from '../../src/kube/objects';
import { KubeRest } from '../../src/kube/rest';
import { buildApp } from '../../src/app';
import { CertManagerSecret } from '../../src/runtime/conversion/cert-manager';
import { ConversionWebhook } from '../../src/runtime/conversion/webhook';
import { createLogger } from '../../src/runtime/log';
import { runController } from '../../src/commands/controller';
import { freePort } from '../../src/testing/controlplane/processes';
import { createTestNamespace, deleteNamespace, eventually, testKubeConfig } from '../../src/testing/cluster';
import { applyCrd } from '../../src/testing/objects';
import { loadYaml, testObjects } from '../support/manifests';
import { defineTestKind, defineVersionedTestKind } from '../../src/testing/test-kind';
import { request as httpsRequest } from 'node:https';
import { parse } from 'yaml';
import { KINDS } from '../../src/kinds';
import { METRICS_SERVICE } from '../../src/core/install/metrics-endpoint';
import { monitoringFiles } from '../../src/monitoring/manifests';
import { MetricsServer } from '../../src/runtime/metrics-server';
import { MetricsCertificate } from '../../src/runtime/metrics-certificate';
import { MetricsAuthorizer } from '../../src/runtime/metrics-auth';
import { Metrics } from '../../src/runtime/metrics';
import { selfSignedServing } from '../../src/runtime/self-signed';
import { metricsReaderToken, readerBinding } from '../support/metrics-reader';
import { PRODUCT_IDENTITY, PRODUCT_NAMES } from '../../src/product';

// The conversion webhook with cert-manager's certificates (--webhook-certificates=cert-manager).
// cert-manager's own programs do not run here (docs/operating.md#certificates-by-cert-manager says
// why): the API server checks the bundle's Issuers and Certificates against cert-manager's
// published CRDs, and the controller serves a Secret shaped as cert-manager writes it, whose
// ca.crt the test puts into the CRD's caBundle as cainjector does.

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const CERT_MANAGER = PRODUCT_NAMES.certManager;
/** The metrics certificate's names in the shape writeCertManagerSecret takes. */
const METRICS_CERT_MANAGER = { secretName: CERT_MANAGER.metricsSecretName, certificate: CERT_MANAGER.metricsCertificate };
const kc = testKubeConfig();
const rest = new KubeRest(kc);
const objects = testObjects();
const logLines: string[] = [];
const log = createLogger({ level: 'debug', write: (line) => void logLines.push(line) });

function synthesized(webhookCertificates: 'self' | 'cert-manager'): { crds: Json[]; operator: Json[] } {
  const [crds, operator] = buildApp(new App(), { instances: [], webhookCertificates }).map((chart) => chart.toJson() as Json[]);
  return { crds, operator };
}
const find = (all: Json[], kind: string, name: string) => all.find((o) => o.kind === kind && o.metadata.name === name);

/** Runs openssl in a temp folder holding `files`; returns the files it wrote that were asked for. */
function openssl(files: Record<string, string>, commands: string[][], wanted: string[]): Record<string, string> {
  const dir = mkdtempSync(join(tmpdir(), 'cert-manager-'));
  try {
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    for (const args of commands) execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
    return Object.fromEntries(wanted.map((name) => [name, readFileSync(join(dir, name), 'utf8')]));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const EC = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

/** A CA and serving certificates it signs for 127.0.0.1 and the webhook Service, by openssl, as cert-manager's CA Issuer makes them. */
function certManagerLikeCertificates(): { ca: string; cert: string; key: string; serve: () => { cert: string; key: string } } {
  const { 'ca.crt': ca, 'ca.key': caKey } = openssl({}, [['req', '-x509', ...EC, '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', '/CN=cdk8s-operators conversion webhook CA', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign']], ['ca.crt', 'ca.key']);
  // Each call a new key and certificate from the same CA, as cert-manager renews them (rotationPolicy Always).
  const serve = () => {
    const ext = `subjectAltName=IP:127.0.0.1,DNS:${WEBHOOK_SERVICE}.cdk8s-operators.svc,DNS:${METRICS_SERVICE}.cdk8s-operators.svc\nextendedKeyUsage=serverAuth\nkeyUsage=critical,digitalSignature\n`;
    const made = openssl({ 'ca.crt': ca, 'ca.key': caKey, ext }, [['req', ...EC, '-keyout', 'tls.key', '-out', 'tls.csr', '-subj', '/CN=webhook'], ['x509', '-req', '-in', 'tls.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'tls.crt', '-days', '1', '-extfile', 'ext']], ['tls.crt', 'tls.key']);
    return { cert: made['tls.crt'], key: made['tls.key'] };
  };
  return { ca, ...serve(), serve };
}

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

/** The Secret as cert-manager writes it for a Certificate (type kubernetes.io/tls, its annotations, ca.crt beside the pair). */
async function writeCertManagerSecret(namespace: string, pair: { cert: string; key: string }, ca: string, names: { secretName: string; certificate: string } = CERT_MANAGER): Promise<void> {
  await rest.request('PATCH', `/api/v1/namespaces/${namespace}/secrets/${names.secretName}`, {
    body: {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: names.secretName, namespace, annotations: { 'cert-manager.io/certificate-name': names.certificate, 'cert-manager.io/issuer-name': CERT_MANAGER.caIssuer, 'cert-manager.io/issuer-kind': 'Issuer' } },
      type: 'kubernetes.io/tls',
      data: { 'tls.crt': b64(pair.cert), 'tls.key': b64(pair.key), 'ca.crt': b64(ca) },
    },
    contentType: 'application/apply-patch+yaml',
    query: { fieldManager: 'cert-manager-certificates-issuing', force: 'true' },
  });
}

/** The kind's CRD pointing at the webhook on loopback, trusting `ca` as cainjector would set it from the Secret's ca.crt. */
async function installCrd(kind: AnyKind, port: number, ca: string): Promise<void> {
  const crd = crdManifest(kind, { url: `https://127.0.0.1:${port}/convert`, caBundle: b64(ca) }) as unknown as KubeObject;
  await applyCrd(objects, crd);
}

const object = (kind: AnyKind, version: string, namespace: string, name: string, spec: Json = {}): KubeObject => ({ apiVersion: `${kind.group}/${version}`, kind: kind.kind, metadata: { name, namespace }, spec });
const readSpec = async (kind: AnyKind, version: string, namespace: string, name: string) => (await objects.get<KubeObject & { spec: Json }>(object(kind, version, namespace, name))).spec;

afterAll(() => {
  // No key material in any log line.
  expect(logLines.join('\n')).not.toMatch(/PRIVATE KEY|BEGIN CERTIFICATE/);
});

describe('synth --webhook-certificates=cert-manager', () => {
  const self = synthesized('self');
  const certManager = synthesized('cert-manager');
  const versionedCrds = certManager.crds.filter((crd) => crd.spec.conversion?.strategy === 'Webhook');

  it('annotates exactly the CRDs that convert by webhook for cainjector, and no CRD without it', () => {
    expect(versionedCrds.length).toBeGreaterThan(0);
    for (const crd of certManager.crds) {
      const annotation = crd.metadata.annotations?.[INJECT_CA_ANNOTATION];
      expect([crd.metadata.name, annotation]).toEqual([crd.metadata.name, crd.spec.conversion?.strategy === 'Webhook' ? `cdk8s-operators/${CERT_MANAGER.certificate}` : undefined]);
    }
    for (const crd of self.crds) expect(crd.metadata.annotations?.[INJECT_CA_ANNOTATION]).toBeUndefined();
  });

  it('carries the self-signed CA chain and a Certificate for the webhook Service into the Secret the controller serves', () => {
    const issued = certManager.operator.filter((o) => o.apiVersion === 'cert-manager.io/v1');
    expect(issued.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual([
      `Issuer/${CERT_MANAGER.selfSignedIssuer}`,
      `Certificate/${CERT_MANAGER.caCertificate}`,
      `Issuer/${CERT_MANAGER.caIssuer}`,
      `Certificate/${CERT_MANAGER.certificate}`,
      `Certificate/${CERT_MANAGER.metricsCertificate}`,
    ]);
    const serving = find(issued, 'Certificate', CERT_MANAGER.certificate)!;
    expect(serving.spec).toMatchObject({ secretName: CERT_MANAGER.secretName, dnsNames: [`${WEBHOOK_SERVICE}.cdk8s-operators.svc`, `${WEBHOOK_SERVICE}.cdk8s-operators.svc.cluster.local`], issuerRef: { name: CERT_MANAGER.caIssuer, kind: 'Issuer' } });
    expect(find(issued, 'Certificate', CERT_MANAGER.caCertificate)!.spec).toMatchObject({ isCA: true, secretName: CERT_MANAGER.caSecretName, issuerRef: { name: CERT_MANAGER.selfSignedIssuer } });
    expect(find(issued, 'Issuer', CERT_MANAGER.caIssuer)!.spec).toEqual({ ca: { secretName: CERT_MANAGER.caSecretName } });
    expect(self.operator.filter((o) => o.apiVersion === 'cert-manager.io/v1')).toEqual([]);
  });

  it('grants only a get of cert-manager\u2019s Secret: no Secret create or update, no CRD patch', () => {
    expect(find(certManager.operator, 'ClusterRole', 'cdk8s-operators:conversion-webhook')).toBeUndefined();
    expect(find(self.operator, 'ClusterRole', 'cdk8s-operators:conversion-webhook')).toBeDefined();
    expect(find(certManager.operator, 'Role', 'cdk8s-operators:conversion-webhook')!.rules).toEqual([{ apiGroups: [''], resources: ['secrets'], verbs: ['get'], resourceNames: [CERT_MANAGER.secretName] }]);
    const container = find(certManager.operator, 'Deployment', 'controller')!.spec.template.spec.containers[0];
    expect(container.args).toContain('--webhook-certificates=cert-manager');
    expect(find(self.operator, 'Deployment', 'controller')!.spec.template.spec.containers[0].args.join(' ')).not.toContain('--webhook-certificates');
  });

  it('has Issuers and Certificates that cert-manager\u2019s published CRDs accept as they are (strict field validation, nothing pruned)', async () => {
    for (const crd of ['cert-manager.io_issuers.yaml', 'cert-manager.io_certificates.yaml'].flatMap((file) => loadYaml(join(__dirname, 'cert-manager', file)))) {
      await applyCrd(objects, crd);
    }
    const namespace = await createTestNamespace(kc, 'cert-manager-bundle');
    try {
      for (const issued of certManager.operator.filter((o) => o.apiVersion === 'cert-manager.io/v1')) {
        const body = { ...issued, metadata: { ...issued.metadata, namespace } };
        const path = `/apis/cert-manager.io/v1/namespaces/${namespace}/${issued.kind === 'Issuer' ? 'issuers' : 'certificates'}/${issued.metadata.name}`;
        const stored = await rest.request<Json>('PATCH', path, { body, contentType: 'application/apply-patch+yaml', query: { fieldManager: 'cdk8s-operators-tests', fieldValidation: 'Strict' } });
        expect(stored.spec).toEqual(issued.spec);
      }
      // The schema is enforced: a misspelt field is refused, naming it.
      const [serving] = certManager.operator.filter((o) => o.kind === 'Certificate' && o.metadata.name === CERT_MANAGER.certificate);
      const wrong = { ...serving, metadata: { ...serving.metadata, namespace, name: 'misspelt' }, spec: { ...serving.spec, dnsName: ['x'] } };
      await expect(rest.request('PATCH', `/apis/cert-manager.io/v1/namespaces/${namespace}/certificates/misspelt`, { body: wrong, contentType: 'application/apply-patch+yaml', query: { fieldManager: 'cdk8s-operators-tests', fieldValidation: 'Strict' } })).rejects.toThrow(/dnsName/);
    } finally {
      await deleteNamespace(kc, namespace);
    }
  });
});

describe('the metrics server with cert-manager\u2019s certificate (--metrics-certificates=cert-manager)', () => {
  const certManager = synthesized('cert-manager');
  const self = synthesized('self');
  const serverName = `${METRICS_SERVICE}.cdk8s-operators.svc`;
  const tls = certManagerLikeCertificates();
  let namespace: string;
  let token: string;

  beforeAll(async () => {
    namespace = await createTestNamespace(kc, 'metrics-cert');
    token = await metricsReaderToken(objects, namespace);
  });
  afterAll(async () => {
    await rest.request('DELETE', `/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/${readerBinding(namespace, 'prometheus')}`).catch(() => undefined);
    await deleteNamespace(kc, namespace);
  });

  /** GET /metrics over TLS, trusting `ca` only and checking the certificate names the metrics Service, as Prometheus with the ServiceMonitor's tlsConfig. */
  const verifiedScrape = (port: number) =>
    new Promise<{ status?: number; body: string }>((resolve, reject) => {
      const req = httpsRequest({ host: '127.0.0.1', port, path: '/metrics', servername: serverName, ca: tls.ca, headers: { authorization: `Bearer ${token}` } }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode, body }));
      });
      req.once('error', reject);
      req.end();
    });

  it('is synthesized: the CA signs a Certificate for the metrics Service, the controller may only get its Secret, and is told to serve it', () => {
    const certificate = find(certManager.operator, 'Certificate', CERT_MANAGER.metricsCertificate)!;
    expect(certificate.spec).toMatchObject({ secretName: CERT_MANAGER.metricsSecretName, dnsNames: [serverName, `${serverName}.cluster.local`], issuerRef: { name: CERT_MANAGER.caIssuer, kind: 'Issuer' } });
    expect(find(certManager.operator, 'Role', 'cdk8s-operators:metrics-certificate')!.rules).toEqual([{ apiGroups: [''], resources: ['secrets'], verbs: ['get'], resourceNames: [CERT_MANAGER.metricsSecretName] }]);
    expect(find(certManager.operator, 'Deployment', 'controller')!.spec.template.spec.containers[0].args).toContain('--metrics-certificates=cert-manager');
    expect(find(self.operator, 'Role', 'cdk8s-operators:metrics-certificate')).toBeUndefined();
    expect(find(self.operator, 'Deployment', 'controller')!.spec.template.spec.containers[0].args.join(' ')).not.toContain('--metrics-certificates');
  });

  it('is scraped by the ServiceMonitor verifying the certificate by that Secret\u2019s ca.crt for the Service\u2019s name; self-signed, it skips the check', () => {
    const tlsConfig = (certificates: 'self' | 'cert-manager') => (parse(monitoringFiles(KINDS, PRODUCT_NAMES, undefined, certificates).get('service-monitor.yaml')!) as Json).spec.endpoints[0].tlsConfig;
    expect(tlsConfig('cert-manager')).toEqual({ serverName, ca: { secret: { name: CERT_MANAGER.metricsSecretName, key: 'ca.crt' } } });
    expect(tlsConfig('self')).toEqual({ insecureSkipVerify: true });
  });

  it('serves the Secret\u2019s certificate from its start when cert-manager wrote it, to a scraper that verifies it', async () => {
    await writeCertManagerSecret(namespace, tls, tls.ca, METRICS_CERT_MANAGER);
    const metricsPort = await freePort();
    const args = [`--kubeconfig=${process.env.TEST_KUBECONFIG}`, '--leader-election=false', `--namespace=${namespace}`, `--leader-election-namespace=${namespace}`, '--http-port=0', `--metrics-port=${metricsPort}`, '--log-level=error', '--metrics-certificates=cert-manager'];
    const before = process.listeners('SIGTERM');
    const done = runController(args, {}, [defineTestKind('MetricsCertified', { render: () => undefined })], () => undefined, PRODUCT_IDENTITY);
    try {
      const scraped = await eventually('a verified scrape', async () => (await verifiedScrape(metricsPort).catch(() => undefined)) ?? undefined);
      expect(scraped.status).toBe(200);
      expect(scraped.body).toContain('cdk8s_operators_api_requests_total');
    } finally {
      (process.listeners('SIGTERM').find((l) => !before.includes(l)) as (signal: string) => void)('SIGTERM');
      expect(await done).toBe(0);
    }
  });

  it('keeps its self-signed certificate until the Secret can be read, then serves it and each renewal without a restart', async () => {
    await rest.request('DELETE', `/api/v1/namespaces/${namespace}/secrets/${CERT_MANAGER.metricsSecretName}`).catch(() => undefined);
    const selfSigned = await selfSignedServing({ dns: [serverName], ips: ['127.0.0.1'] });
    const server = new MetricsServer({ port: 0, host: '127.0.0.1', metrics: new Metrics(), secure: { tls: selfSigned, authorizer: new MetricsAuthorizer(rest, { path: '/metrics' }) } });
    const port = await server.start();
    const secret = new CertManagerSecret(rest, { namespace, secretName: CERT_MANAGER.metricsSecretName, certificateName: CERT_MANAGER.metricsCertificate, serves: 'metrics', checkIntervalMs: 300 }, log);
    const keeper = new MetricsCertificate(secret, server, log);
    try {
      await keeper.start();
      // Not verifiable yet: the self-signed certificate is served.
      await expect(verifiedScrape(port)).rejects.toThrow(/self.signed|unable to verify/i);
      await writeCertManagerSecret(namespace, tls, tls.ca, METRICS_CERT_MANAGER);
      await eventually('the Secret\u2019s certificate to be served', async () => ((await presentedCertificate(port, tls.ca).catch(() => undefined)) === normalized(tls.cert) ? true : undefined), 10_000);
      expect((await verifiedScrape(port)).status).toBe(200);
      const renewed = tls.serve();
      await writeCertManagerSecret(namespace, renewed, tls.ca, METRICS_CERT_MANAGER);
      await eventually('the renewed certificate to be served', async () => ((await presentedCertificate(port, tls.ca)) === normalized(renewed.cert) ? true : undefined), 10_000);
    } finally {
      keeper.stop();
      await server.stop();
    }
  });

  it('refuses --metrics-certificates=cert-manager without HTTPS, naming both flags', async () => {
    await expect(runController(['--metrics-secure=false', '--metrics-certificates=cert-manager'], {}, [], () => undefined, PRODUCT_IDENTITY)).rejects.toThrow('--metrics-certificates=cert-manager: expected --metrics-secure=true');
  });
});

describe('the controller serving cert-manager\u2019s certificate', () => {
  const kind = defineVersionedTestKind('CertManaged', { render: () => undefined });
  const tls = certManagerLikeCertificates();
  let namespace: string;
  let port: number;

  beforeAll(async () => {
    namespace = await createTestNamespace(kc, 'cert-manager');
    port = await freePort();
    await installCrd(kind, port, tls.ca);
  });
  afterAll(() => deleteNamespace(kc, namespace));

  it('waits for the Secret, serves conversion with it once cert-manager wrote it, and makes no CA nor injects any', async () => {
    const httpPort = await freePort();
    const args = [`--kubeconfig=${process.env.TEST_KUBECONFIG}`, '--leader-election=false', `--namespace=${namespace}`, `--leader-election-namespace=${namespace}`, `--http-port=${httpPort}`, '--metrics-port=0', '--log-level=error'];
    const readyz = () => fetch(`http://127.0.0.1:${httpPort}/readyz`).then((r) => r.status, () => 0);
    const before = process.listeners('SIGTERM');
    const crdBefore = await rest.request<Json>('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crdName(kind)}`);
    const done = runController([...args, `--webhook-port=${port}`, '--webhook-host=127.0.0.1', '--webhook-certificates=cert-manager'], {}, [kind], () => undefined, PRODUCT_IDENTITY);
    // No Secret yet (cert-manager has not issued): not ready.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(await readyz()).toBe(503);
    await writeCertManagerSecret(namespace, tls, tls.ca);
    await eventually('the controller to report ready', async () => ((await readyz()) === 200 ? true : undefined));
    await objects.create(object(kind, 'v2', namespace, 'one', { size: 1, tags: ['q', 'r'] }));
    expect(await readSpec(kind, 'v1', namespace, 'one')).toEqual({ size: 1, tag: 'q' });
    // It made no Secret of its own and left the CRD as cainjector (here the test) set it.
    await expect(rest.request('GET', `/api/v1/namespaces/${namespace}/secrets/${PRODUCT_NAMES.webhookSecret}`)).rejects.toThrow(/404|not found/i);
    const crdAfter = await rest.request<Json>('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crdName(kind)}`);
    expect(crdAfter.spec.conversion).toEqual(crdBefore.spec.conversion);
    expect(crdAfter.metadata.managedFields.map((f: Json) => f.manager)).toEqual(crdBefore.metadata.managedFields.map((f: Json) => f.manager));
    (process.listeners('SIGTERM').find((l) => !before.includes(l)) as (signal: string) => void)('SIGTERM');
    expect(await done).toBe(0);
  });

  it('serves a renewed certificate once cert-manager rewrites the Secret, without a restart', async () => {
    await writeCertManagerSecret(namespace, tls, tls.ca);
    const webhook = new ConversionWebhook(rest, { operator: PRODUCT_NAMES, kinds: [kind], namespace, port, host: '127.0.0.1', certificates: 'cert-manager', timing: { checkIntervalMs: 300 } }, log);
    try {
      expect(await webhook.start()).toBe(true);
      const served = () => presentedCertificate(port, tls.ca);
      expect(await served()).toBe(normalized(tls.cert));
      const renewed = tls.serve();
      await writeCertManagerSecret(namespace, renewed, tls.ca);
      await eventually('the renewed certificate to be served', async () => ((await served()) === normalized(renewed.cert) ? true : undefined), 10_000);
      await objects.create(object(kind, 'v1', namespace, 'two', { size: 2, tag: 'x' }));
      expect(await readSpec(kind, 'v2', namespace, 'two')).toEqual({ size: 2, tags: ['x'] });
    } finally {
      await webhook.stop();
    }
  });

  it('refuses a Secret whose key is not the certificate\u2019s, or that lacks a key, naming it', async () => {
    const source = new CertManagerSecret(rest, { namespace, secretName: 'half-written', certificateName: CERT_MANAGER.certificate }, log);
    await expect(source.sync()).rejects.toThrow(`Secret ${namespace}/half-written does not exist yet: cert-manager writes it for the Certificate ${namespace}/${CERT_MANAGER.certificate}`);
    const other = tls.serve();
    const write = (data: Record<string, string>) => rest.request('PATCH', `/api/v1/namespaces/${namespace}/secrets/half-written`, { body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'half-written', namespace }, data }, contentType: 'application/apply-patch+yaml', query: { fieldManager: 'cdk8s-operators-tests', force: 'true' } });
    await write({ 'tls.crt': b64(tls.cert), 'tls.key': b64(other.key), 'ca.crt': b64(tls.ca) });
    await expect(source.sync()).rejects.toThrow(`Secret ${namespace}/half-written: tls.key is not the key of tls.crt`);
    await rest.request('DELETE', `/api/v1/namespaces/${namespace}/secrets/half-written`);
    await write({ 'tls.crt': b64(tls.cert), 'tls.key': b64(tls.key) });
    await expect(source.sync()).rejects.toThrow('ca.crt missing or empty');
  });
});

function normalized(pem: string): string {
  return pem.replace(/\s+/g, '');
}

/** The certificate a server on loopback presents, trusting only `ca`. */
async function presentedCertificate(port: number, ca: string): Promise<string> {
  const { connect } = await import('node:tls');
  const { X509Certificate } = await import('node:crypto');
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, ca }, () => {
      const pem = new X509Certificate(socket.getPeerX509Certificate()!.raw).toString();
      socket.end();
      resolve(normalized(pem));
    });
    socket.once('error', reject);
  });
}
