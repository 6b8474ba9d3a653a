import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FaultProxy, startFaultProxy } from '../support/fault-proxy-server';
import { apiVersionOf } from '../../src/core/contract/kind';
import { KINDS } from '../../src/kinds';
import { KubeObject } from '../../src/kube/objects';
import { createTestNamespace, deleteNamespace, eventually, testKubeConfig } from '../../src/testing/cluster';
import { ControllerProcess, startController } from '../support/controller-process';
import { installCrds, testObjects } from '../support/manifests';
import { selfSigned } from '../support/self-signed';
import { writeKubeconfig } from '../../src/testing/controlplane/credentials';

// Found by the chaos soak (docs/soak.md): a replica that lost its Lease began stopping, won its own
// Lease back before it had exited (no one had taken it yet), and started reconciling again on the
// caches it was leaving; and a reconcile still running when it lost the Lease went on writing. Here the proxy of the soak fails only the Lease's requests until the
// replica stops leading, and keeps every other request slow so that stopping takes a while.
const kc = testKubeConfig();
const objects = testObjects();
const guitar = apiVersionOf(KINDS.find((k) => k.kind === 'Guitar')!);
let namespace: string;
let proxy: FaultProxy;
let controller: ControllerProcess;

beforeAll(async () => {
  await installCrds(objects);
  namespace = await createTestNamespace(kc, 'lost-lease');
  const tls = selfSigned();
  const cluster = kc.getCurrentCluster()!;
  const ca = cluster.caData ? Buffer.from(cluster.caData, 'base64').toString() : '';
  proxy = await startFaultProxy({ upstream: cluster.server, upstreamCa: ca, ...tls, replicas: ['replica'], coin: (share) => Math.random() < share });
  const dir = mkdtempSync(join(tmpdir(), 'lost-lease-'));
  const kubeconfig = join(dir, 'kubeconfig');
  writeKubeconfig(kubeconfig, proxy.url('replica'), tls.cert, kc.getCurrentUser()!.token!);
  controller = startController(['--kubeconfig', kubeconfig, '--kinds', 'guitars', '--namespace', namespace, '--leader-election-namespace', namespace, '--leader-election-lease', 'lost-lease', '--http-port', '0'], join(dir, 'controller.log'), { POD_NAME: 'replica' });
}, 120_000);

afterAll(async () => {
  await controller?.stop();
  await proxy?.close();
  if (namespace) await deleteNamespace(kc, namespace);
});

const logged = (msg: string) => controller.logs().findIndex((l) => l.msg === msg);
const guitarNamed = (name: string, brand: string): KubeObject => ({ apiVersion: guitar, kind: 'Guitar', metadata: { name, namespace }, spec: { brand } });

it('does not start work again once it began stopping after losing its Lease, even when it wins the Lease back', async () => {
  await eventually('the replica to lead', async () => (logged('leading') >= 0 ? true : undefined));
  proxy.set([
    { path: /\/leases/, fault: { kind: 'error', share: 1 } },
    { fault: { kind: 'slow', delayMs: 8000 } },
  ]);
  // Edits keep reconciles in flight, each slowed, so that stopping waits for them.
  const stopping = eventually('the replica to stop after losing its Lease', async () => (logged('stopping') >= 0 ? true : undefined), 40_000);
  let edits = 0;
  const editing = setInterval(() => void objects.apply(guitarNamed(`g${edits % 5}`, `Brand${edits++}`)).catch(() => undefined), 300);
  try {
    await stopping;
  } finally {
    clearInterval(editing);
  }
  // Its own Lease answers again at once: it may win it back while it still stops.
  proxy.set([{ path: /\/leases/, fault: { kind: 'none' } }, { fault: { kind: 'slow', delayMs: 8000 } }]);
  const code = await controller.exited;
  const lines = controller.logs();
  const from = lines.findIndex((l) => l.msg === 'stopping');
  expect(lines[from]).toMatchObject({ why: 'lost leadership' });
  expect(lines.slice(from).filter((l) => l.msg === 'leading' || l.msg === 'children reconciled')).toEqual([]);
  expect(code).toBe(1);
}, 180_000);

it('writes nothing once it lost its Lease, not even from a reconcile still running then', () => {
  const lines = controller.logs();
  const lost = Date.parse(String(lines.find((l) => l.msg === 'stopped leading')?.time));
  expect(Number.isNaN(lost)).toBe(false);
  // Writes the proxy saw arrive after that moment; the Lease's own and Events aside.
  const late = proxy.writes.filter((w) => w.at > lost && !w.object.includes('/leases') && !w.object.includes('/events'));
  expect(late).toEqual([]);
});
