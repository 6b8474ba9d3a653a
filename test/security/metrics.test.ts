import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeObject } from '../../src/kube/objects';
import { createTestNamespace, deleteNamespace, eventually, testKubeConfig } from '../../src/testing/cluster';
import { ControllerProcess, startController } from '../support/controller-process';
import { installCrds, testObjects } from '../support/manifests';
import { installClusterRole, metricsReaderToken, readerBinding } from '../support/metrics-reader';
import { namespaceEditor, serviceAccountKubeconfig, untilBound } from '../support/tenancy';

/**
 * /metrics as a Pod of the cluster reaches it, asking with whatever token it has: the controller
 * runs as its own ServiceAccount with the install's ClusterRoles (its kind's, the common one and
 * metrics-auth's TokenReview and SubjectAccessReview), and only a user the metrics-reader
 * ClusterRole is bound to reads the series.
 */
const admin = testObjects();
const kc = testKubeConfig();
let ns: string;
let dir: string;
let controller: ControllerProcess;
let port: number;


async function bind(name: string, role: string, serviceAccount: string): Promise<void> {
  await admin.apply({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: `${ns}-${name}` },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
    subjects: [{ kind: 'ServiceAccount', name: serviceAccount, namespace: ns }],
  } as KubeObject);
  await untilBound(admin, `system:serviceaccount:${ns}:${serviceAccount}`, role);
}

async function tokenOf(serviceAccount: string): Promise<string> {
  await admin.apply({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: serviceAccount, namespace: ns } });
  const token = await admin.rest.request<{ status: { token: string } }>('POST', `/api/v1/namespaces/${ns}/serviceaccounts/${serviceAccount}/token`, {
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 600 } },
  });
  return token.status.token;
}

/** GET /metrics over HTTPS (the certificate is self-signed: not verified, as the ServiceMonitor does), with this Authorization header. */
function scrape(authorization?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const headers = authorization ? { authorization } : undefined;
    const req = request({ host: '127.0.0.1', port, path: '/metrics', headers, rejectUnauthorized: false, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'metrics-security-'));
  await installCrds(admin);
  ns = await createTestNamespace(kc, 'metrics-security');
  for (const name of ['cdk8s-operators:controller', 'cdk8s-operators:exchangerates', 'cdk8s-operators:metrics-auth']) await admin.apply(installClusterRole(name));
  await tokenOf('controller');
  for (const role of ['cdk8s-operators:controller', 'cdk8s-operators:exchangerates', 'cdk8s-operators:metrics-auth']) await bind(role.split(':')[1], role, 'controller');
  const cluster = kc.getCurrentCluster()!;
  const ca = cluster.caData ? Buffer.from(cluster.caData, 'base64').toString('utf8') : readFileSync(cluster.caFile!, 'utf8');
  const kubeconfig = await serviceAccountKubeconfig(admin, join(dir, 'controller.kubeconfig'), cluster.server, ca, { namespace: ns, name: 'controller' });
  controller = startController(['--kubeconfig', kubeconfig, '--kinds', 'exchangerates', '--namespace', ns, '--leader-election=false', '--http-port', '0'], join(dir, 'controller.log'));
  const started = await eventually('the controller to start', async () => controller.logs().find((l) => l.msg === 'controller starting'));
  port = started.metricsPort as number;
}, 120_000);

afterAll(async () => {
  await controller?.stop();
  if (ns) {
    for (const name of ['controller', 'exchangerates', 'metrics-auth'].map((n) => `${ns}-${n}`).concat(readerBinding(ns, 'prometheus'))) {
      await admin.rest.request('DELETE', `/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/${name}`).catch(() => undefined);
    }
    await deleteNamespace(kc, ns);
  }
  rmSync(dir, { recursive: true, force: true });
});

describe('the controller\u2019s /metrics', () => {
  it('answers 401 without a bearer token, or with one the API server does not accept', async () => {
    expect(typeof port).toBe('number');
    expect(await scrape()).toMatchObject({ status: 401, body: expect.stringMatching(/bearer token/) });
    expect((await scrape('Bearer not-a-token')).status).toBe(401);
    expect((await scrape('Basic YWRtaW46YWRtaW4=')).status).toBe(401);
  });

  it('answers 403 to a namespace editor and to any account the metrics-reader role is not bound to', async () => {
    await namespaceEditor(admin, ns);
    for (const account of ['editor', 'stranger']) {
      const answer = await scrape(`Bearer ${await tokenOf(account)}`);
      expect(answer).toMatchObject({ status: 403, body: expect.stringContaining(`system:serviceaccount:${ns}:${account}`) });
      expect(answer.body).not.toContain('controller_runtime');
    }
  });

  it('serves the series to a ServiceAccount bound to metrics-reader', async () => {
    const token = await metricsReaderToken(admin, ns);
    const answer = await eventually('the binding to take effect', async () => {
      const scraped = await scrape(`Bearer ${token}`);
      return scraped.status === 200 ? scraped : undefined;
    });
    expect(answer.body).toMatch(/^controller_runtime_reconcile_total\{controller="exchangerate",result="success"\} \d+$/m);
    expect(answer.body).toMatch(/^process_resident_memory_bytes \d+/m);
  });

  it('is not served over plain HTTP, and the probes port serves no metrics', async () => {
    await expect(fetch(`http://127.0.0.1:${port}/metrics`)).rejects.toThrow();
    const started = controller.logs().find((l) => l.msg === 'controller starting')!;
    expect((await fetch(`http://127.0.0.1:${started.httpPort as number}/metrics`)).status).toBe(404);
  });
});
