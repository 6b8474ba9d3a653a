import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeObject } from '../../src/kube/objects';
import { ControllerOnRollout, startControllerOnRollout } from '../support/controller-on-rollout';
import { toolsBeforeAll } from '../support/go-tool';
import { LocalCluster, startLocalCluster } from '../support/operator-cluster';
import { enginesBin, EngineRun, kubectl } from './engines';
import { customResources, expectHealthy, lateForTheController, localDist, objectName } from './first-sync';
import { kustomizeBinary, kustomizeBuild } from './kustomize';
import { objectDiff } from './drift';
import { gitopsHealth } from './tools';

toolsBeforeAll(kustomizeBinary, enginesBin, gitopsHealth);

// A team's first sync with the real kubectl, the README's steps onto a fresh control plane: the
// CRDs, Established, then `kubectl apply --server-side -k dist` once (kubectl's own kustomize),
// in the kustomization's order. Nothing of ours runs before: the controller starts as a cluster
// starts it, once a Pod of the Deployment this very apply creates runs.
const root = join(__dirname, '..', '..');

let dir: string;
let cluster: LocalCluster | undefined;
let controller: ControllerOnRollout | undefined;
/** dist/, its CRDs pointed at this machine's webhook address. */
let dist: string;
/** `kustomize build dist`: what `-k` applies. */
let manifests: KubeObject[];
let dryRunBeforeCrds: EngineRun;
let crds: EngineRun;
let established: EngineRun;
let apply: EngineRun;
let applyMs: number;

type Live = KubeObject & { metadata: { resourceVersion?: string; managedFields?: unknown } };
/** The object without the record of who wrote it when (its resourceVersion, managedFields). */
const withoutWriteRecord = ({ metadata: { resourceVersion: _version, managedFields: _fields, ...metadata }, ...rest }: Live) => ({ ...rest, metadata });

const run = (...args: string[]) => kubectl(cluster!.plane.kubeconfig, args);
/**
 * kubectl's kustomize is always told the legacy order (by kind), so a kustomization that sets its
 * own order, as dist/'s does (fifo: the admission policies before the controller they fence), makes it
 * say which it uses: the kustomization's. That line, and nothing else, is expected on stderr.
 */
const ORDER_WARNING = /^\S+ +[\d:.]+ +\d+ log\.go:\d+\] Warning: Sorting order is set both in 'kustomization\.yaml' \('sortOptions'\) and in a CLI flag \('--reorder'\)\. Using the kustomization file over the CLI flag\.$/;
const withoutOrderWarning = ({ code, stderr }: EngineRun) => ({ code, stderr: stderr.split('\n').filter((line) => line && !ORDER_WARNING.test(line)) });

beforeAll(async () => {
  enginesBin();
  dir = mkdtempSync(join(tmpdir(), 'kubectl-first-sync-'));
  cluster = await startLocalCluster(dir, 'kubectl');
  dist = localDist(join(root, 'dist'), dir, cluster);
  manifests = kustomizeBuild(dist);
  dryRunBeforeCrds = await run('apply', '--server-side', '--dry-run=server', '-k', dist);
  controller = startControllerOnRollout(cluster, dir);
  crds = await run('apply', '--server-side', '-f', join(dist, '0-crds.k8s.yaml'));
  established = await run('wait', '--for=condition=Established', '--timeout=1m', '-f', join(dist, '0-crds.k8s.yaml'));
  const start = Date.now();
  apply = await run('apply', '--server-side', '-k', dist);
  applyMs = Date.now() - start;
}, 600_000);

afterAll(async () => {
  await controller?.stop();
  await cluster?.stop();
  rmSync(dir, { recursive: true, force: true });
}, 120_000);

describe('kubectl apply --server-side -k dist onto a fresh cluster (the README\u2019s steps)', () => {
  it('needs the CRDs first: before they exist, kubectl cannot map a custom resource to any API (its own check, before any request)', () => {
    expect(dryRunBeforeCrds.code).toBe(1);
    const team = customResources(manifests);
    expect(team.length).toBeGreaterThan(0);
    for (const o of team) expect(dryRunBeforeCrds.stderr).toContain(`resource mapping not found for name: "${o.metadata.name}"`);
    expect(dryRunBeforeCrds.stderr).toContain('ensure CRDs are installed first');
  });

  it('applies the CRDs, which become Established', () => {
    expect({ code: crds.code, stderr: crds.stderr }).toEqual({ code: 0, stderr: '' });
    expect({ code: established.code, stderr: established.stderr }).toEqual({ code: 0, stderr: '' });
  });

  it('applies everything else in one pass, no object refused, before the controller runs', () => {
    console.log(`kubectl apply --server-side -k dist: ${applyMs} ms`);
    expect(withoutOrderWarning(apply)).toEqual({ code: 0, stderr: [] });
    expect(apply.stderr.split('\n').filter((line) => ORDER_WARNING.test(line)).length).toBe(1);
    const lines = apply.stdout.trim().split('\n');
    expect(lines.length).toBe(manifests.length);
    expect(lines.filter((line) => !line.endsWith(' serverside-applied'))).toEqual([]);
  });

  it('started the controller only once its Deployment was applied and its Pod ran, after the admission policies that fence it', async () => {
    expect(await lateForTheController(cluster!.objects, manifests, controller!)).toEqual([]);
  });

  it('brings every object of dist/ to healthy: the team\u2019s resources Ready, everything Current by kstatus', async () => {
    await expectHealthy(cluster!.objects, manifests, join(dir, 'controller.log'));
  }, 300_000);

  it('a second pass changes nothing: no object\u2019s content, and a third writes no object at all', async () => {
    const read = () => Promise.all(manifests.map((m) => cluster!.objects.get<Live>(m)));
    const pass = async (before: Live[]) => {
      const again = await run('apply', '--server-side', '-k', dist, '-o', 'json');
      expect(withoutOrderWarning(again)).toEqual({ code: 0, stderr: [] });
      const answers = (JSON.parse(again.stdout) as { items: Live[] }).items;
      expect(answers.map(objectName)).toEqual(manifests.map(objectName));
      return answers.filter((answer, i) => answer.metadata.resourceVersion !== before[i].metadata.resourceVersion);
    };
    const first = await read();
    const written = await pass(first);
    const after = await read();
    // Nothing but metadata differs where anything does: no spec, data, label or annotation.
    const contentChanges = first.flatMap((before, i) => objectDiff(withoutWriteRecord(before), withoutWriteRecord(after[i])).map((d) => `${objectName(before)} ${d}`));
    expect(contentChanges).toEqual([]);
    // The one write the API server makes: a ValidatingAdmissionPolicy whose status kube-controller-manager
    // wrote since (its type check) gets kubectl's entry of managedFields moved after that writer's, once.
    expect(written.filter((o) => o.kind !== 'ValidatingAdmissionPolicy').map(objectName)).toEqual([]);
    expect(await pass(after)).toEqual([]);
  }, 120_000);
});
