import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apiVersionOf } from '../../src/core/contract/kind';
import { KubeObject } from '../../src/kube/objects';
import { KINDS } from '../../src/kinds';
import { applyInOrder } from '../support/apply-bundle';
import { ControllerOnRollout, startControllerOnRollout } from '../support/controller-on-rollout';
import { toolsBeforeAll } from '../support/go-tool';
import { LocalCluster, startLocalCluster } from '../support/operator-cluster';
import { whenReady } from '../support/resources';
import { kustomizeBinary, kustomizeBuild } from './kustomize';

toolsBeforeAll(kustomizeBinary);

// A team's first apply of its repository, `kubectl apply -k dist` without kubectl: the committed
// dist/ built by the real kustomize and applied in its output order onto a fresh control plane
// started as `npm run cluster:up` starts one (storage included). Nothing is created beforehand:
// dist/ declares the team's namespace itself, and the controller starts from source as a cluster
// starts it, once a Pod of the Deployment this apply creates runs (kubectl-first-sync.cluster.test.ts
// runs the real kubectl so).
const root = join(__dirname, '..', '..');
const name = (o: KubeObject) => `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`;
const isTeamResource = (o: KubeObject) => KINDS.some((kind) => apiVersionOf(kind) === o.apiVersion && kind.kind === o.kind);

let dir: string;
let cluster: LocalCluster | undefined;
let controller: ControllerOnRollout | undefined;
/** `kustomize build dist`, in its output order. */
let manifests: KubeObject[];
/** What the API server answered to each. */
let applied: KubeObject[];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'first-apply-'));
  manifests = kustomizeBuild(join(root, 'dist'));
  cluster = await startLocalCluster(dir, 'kubectl');
  controller = startControllerOnRollout(cluster, dir);
  applied = await applyInOrder(cluster.objects, manifests, { webhook: { url: cluster.webhookUrl } });
}, 300_000);

afterAll(async () => {
  await controller?.stop();
  await cluster?.stop();
  rmSync(dir, { recursive: true, force: true });
}, 120_000);

describe('kubectl apply -k dist on a fresh cluster (kustomize build dist, applied in order)', () => {
  it('declares every namespace it uses, before anything in it, and the CRD of each resource before it', () => {
    /** Whether `first` is among the manifests and comes before `o`. */
    const before = (first: KubeObject | undefined, o: KubeObject) => first !== undefined && manifests.indexOf(first) < manifests.indexOf(o);
    const namespaceOf = (o: KubeObject) => manifests.find((n) => n.kind === 'Namespace' && n.metadata.name === o.metadata.namespace);
    expect(manifests.filter((o) => o.metadata.namespace && !before(namespaceOf(o), o)).map(name)).toEqual([]);
    const crdOf = (o: KubeObject) => manifests.find((c) => c.kind === 'CustomResourceDefinition' && (c as { spec?: { names?: { kind?: string } } }).spec?.names?.kind === o.kind);
    expect(manifests.filter(isTeamResource).filter((o) => !before(crdOf(o), o)).map(name)).toEqual([]);
    // Each in the version its CRD stores: applying it needs no conversion webhook, so no controller yet.
    const storedVersion = (o: KubeObject) => {
      const { spec } = crdOf(o) as unknown as { spec: { group: string; versions: { name: string; storage: boolean }[] } };
      return `${spec.group}/${spec.versions.find((v) => v.storage)!.name}`;
    };
    const customResources = manifests.filter((o) => crdOf(o));
    expect(customResources.filter((o) => !isTeamResource(o)).map(name)).toEqual([]);
    expect(customResources.filter((o) => o.apiVersion !== storedVersion(o)).map((o) => `${name(o)} ${o.apiVersion}`)).toEqual([]);
    expect(manifests.filter((o) => o.metadata.namespace === 'team-a').length).toBeGreaterThan(0);
    // The controller's admission policies are in place before the controller that they fence.
    const controller = manifests.find((o) => o.kind === 'Deployment' && o.metadata.name === 'controller')!;
    const policies = manifests.filter((o) => o.kind.startsWith('ValidatingAdmissionPolicy'));
    expect(policies.length).toBe(12); // six policies and their bindings
    expect(policies.filter((o) => !before(o, controller)).map(name)).toEqual([]);
  });

  it('is accepted object by object: every one exists, none refused', () => {
    expect(applied.map(name)).toEqual(manifests.map(name));
    expect(applied.filter((o) => !(o.metadata as { uid?: string }).uid).map(name)).toEqual([]);
  });

  it('converges: every team resource becomes Ready, the Database\u2019s and the RegistryMirror\u2019s claims bound by the default StorageClass', async () => {
    const team = manifests.filter(isTeamResource);
    expect(team.length).toBeGreaterThan(0);
    await Promise.all(team.map((o) => whenReady(cluster!.objects, o, 'True', undefined, join(dir, 'controller.log'), 150_000)));
  }, 180_000);
});
