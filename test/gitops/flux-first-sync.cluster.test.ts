import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeObject } from '../../src/kube/objects';
import { ControllerOnRollout, startControllerOnRollout } from '../support/controller-on-rollout';
import { toolsBeforeAll } from '../support/go-tool';
import { LocalCluster, startLocalCluster } from '../support/operator-cluster';
import { enginesBin, fluxApply, FluxChange } from './engines';
import { expectHealthy, lateForTheController, localDist } from './first-sync';
import { kustomizeBinary, kustomizeBuildText, manifestsOf } from './kustomize';
import { gitopsHealth } from './tools';

toolsBeforeAll(kustomizeBinary, enginesBin, gitopsHealth);

// A team's first sync with Flux: a Kustomization on dist/ with `wait: true`, reconciled once by
// kustomize-controller's own engine (fluxcd/pkg/ssa: CRDs, Namespaces and ClusterRoles applied
// and Established first, then the rest, each stage dry-run first; then every object's health by
// kstatus) onto a fresh control plane. Nothing of ours runs before: the controller starts as a
// cluster starts it, once a Pod of the Deployment this very sync applies runs.
const root = join(__dirname, '..', '..');

let dir: string;
let cluster: LocalCluster | undefined;
let controller: ControllerOnRollout | undefined;
/** `kustomize build dist`, as the Kustomization builds it. */
let built: string;
let manifests: KubeObject[];
let first: Awaited<ReturnType<typeof fluxApply>>;
let firstSyncMs: number;

const changes = (run: { changes: FluxChange[] }) => run.changes.map((c) => `${c.subject} ${c.action}`);

beforeAll(async () => {
  enginesBin();
  dir = mkdtempSync(join(tmpdir(), 'flux-first-sync-'));
  cluster = await startLocalCluster(dir, 'kustomize-controller');
  built = kustomizeBuildText(localDist(join(root, 'dist'), dir, cluster));
  manifests = manifestsOf(built);
  controller = startControllerOnRollout(cluster, dir);
  const start = Date.now();
  first = await fluxApply(cluster.plane.kubeconfig, built, '4m');
  firstSyncMs = Date.now() - start;
}, 600_000);

afterAll(async () => {
  await controller?.stop();
  await cluster?.stop();
  rmSync(dir, { recursive: true, force: true });
}, 120_000);

describe('Flux (kustomize-controller\u2019s staged apply, wait: true) on dist/ onto a fresh cluster', () => {
  it('gets through in its first reconcile: every object applied and healthy by kstatus', () => {
    console.log(`flux first sync: ${firstSyncMs} ms`);
    expect({ code: first.code, stderr: first.stderr }).toEqual({ code: 0, stderr: '' });
    expect(first.changes.length).toBe(manifests.length);
    expect(first.changes.filter((c) => c.action !== 'created').map((c) => `${c.subject} ${c.action}`)).toEqual([]);
  });

  it('started the controller only once its Deployment was applied and its Pod ran, after the admission policies that fence it', async () => {
    expect(await lateForTheController(cluster!.objects, manifests, controller!)).toEqual([]);
  });

  it('brings every object of dist/ to healthy: the team\u2019s resources Ready, everything Current by kstatus', async () => {
    await expectHealthy(cluster!.objects, manifests, join(dir, 'controller.log'));
  }, 300_000);

  it('a second reconcile, once all is healthy, changes nothing: every object unchanged, still healthy', async () => {
    const second = await fluxApply(cluster!.plane.kubeconfig, built, '1m');
    expect({ code: second.code, stderr: second.stderr }).toEqual({ code: 0, stderr: '' });
    expect(second.changes.map((c) => c.subject)).toEqual(first.changes.map((c) => c.subject));
    expect(changes(second).filter((c) => !c.endsWith(' unchanged'))).toEqual([]);
  }, 120_000);
});
