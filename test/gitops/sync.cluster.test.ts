import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { KubeObject, ObjectClient } from '../../src/kube/objects';
import { childState } from '../../src/runtime/readiness';
import { eventually } from '../../src/testing/cluster';
import { toolsBeforeAll } from '../support/go-tool';
import { loadYaml } from '../support/manifests';
import { KINDS_WITH_EXAMPLES } from '../support/kinds';
import { OperatorCluster, startOperatorCluster } from '../support/operator-cluster';
import { fieldDrift, objectDiff } from './drift';
import { kustomizeBinary, kustomizeBuild } from './kustomize';

toolsBeforeAll(kustomizeBinary);

// dist/ synced as Argo CD syncs it: built by the real kustomize, applied server-side wave by
// wave (argocd.argoproj.io/sync-wave), with the controller running from source. A control
// plane of this file's own, as `npm run cluster:up` starts one: the controller serves every namespace.
const root = join(__dirname, '..', '..');
const FIELD_MANAGER = 'argocd-controller';
const SYNC_WAVE = 'argocd.argoproj.io/sync-wave';
/** Every kind's example converges on the fake node (the database's and the mirror's claims bound by the default StorageClass). */
const EXAMPLES = KINDS_WITH_EXAMPLES;

type Condition = { type: string; status: string; message?: string };
type Live = KubeObject & { metadata: { resourceVersion?: string; generation?: number }; status?: { conditions?: Condition[] } };

let dir: string;
let cluster: OperatorCluster | undefined;
let objects: ObjectClient;
/** `kustomize build` of a dist/ synthesized with the examples (and none of src/instances/). */
let examples: KubeObject[];
/** `kustomize build dist`: the committed dist/, with the team's resources of src/instances/. */
let committed: KubeObject[];

const wave = (o: KubeObject) => Number((o.metadata as { annotations?: Record<string, string> }).annotations?.[SYNC_WAVE] ?? 0);
const name = (o: KubeObject) => `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`;
const condition = (o: Live, type: string) => o.status?.conditions?.find((c) => c.type === type);

/** Argo CD's verdict in short: a CRD once Established, any other object by kstatus' rules (Deployments available, Ready not False...). */
async function healthy(manifest: KubeObject): Promise<true | undefined> {
  const live = await objects.get<Live>(manifest);
  if (live.kind === 'CustomResourceDefinition') return condition(live, 'Established')?.status === 'True' ? true : undefined;
  return childState(live as Parameters<typeof childState>[0]).ready ? true : undefined;
}

/**
 * One sync: wave by wave, in kustomize's order within a wave; as Argo CD, the next wave only
 * once every object of this one is healthy. What the API server answered.
 */
async function sync(manifests: KubeObject[]): Promise<Live[]> {
  const answers: Live[] = [];
  const waves = [...new Set(manifests.map(wave))].sort((a, b) => a - b);
  for (const [i, w] of waves.entries()) {
    const inWave = manifests.filter((o) => wave(o) === w);
    for (const manifest of inWave) answers.push(await objects.apply<Live>(manifest, { force: true }));
    if (i === waves.length - 1) break;
    for (const manifest of inWave) await eventually(`${name(manifest)} healthy before wave ${waves[i + 1]}`, () => healthy(manifest), 120_000);
  }
  return answers;
}

type DeploymentManifest = KubeObject & { spec: { replicas: number; template: { spec: { containers: { resources: { limits: Record<string, string> } }[] } } } };
const controllerDeployment = () => structuredClone(examples.find((o) => o.kind === 'Deployment' && o.metadata.name === 'controller')!) as DeploymentManifest;

async function expectReady(manifests: KubeObject[]): Promise<void> {
  expect(manifests.length).toBeGreaterThan(0);
  for (const manifest of manifests) {
    await eventually(`${name(manifest)} Ready`, async () => (condition(await objects.get<Live>(manifest), 'Ready')?.status === 'True' ? true : undefined), 120_000);
  }
}

/** The objects a sync of `manifests` created or wrote to (a new resourceVersion). */
async function changedBySync(manifests: KubeObject[]): Promise<string[]> {
  const before = new Map<string, string | undefined>();
  for (const o of manifests) before.set(name(o), (await objects.find<Live>(o))?.metadata.resourceVersion);
  return (await sync(manifests)).filter((answer) => answer.metadata.resourceVersion !== before.get(name(answer))).map(name);
}

/**
 * Drift as Argo CD's server-side diff sees it: a dry-run apply of the manifest predicts the
 * live object after a sync; any difference from the live object, in any field (also those
 * the API server or the controller fill in), is drift. And the live object holds every field
 * as written (a value the API server normalized would show here). A difference must hold
 * three reads in a row: the controller may write a status between the read and the dry-run.
 */
async function drift(manifests: KubeObject[]): Promise<string[]> {
  const found: string[] = [];
  for (const manifest of manifests) {
    let differences: string[] = [];
    for (let attempt = 0; attempt < 3 && (attempt === 0 || differences.length > 0); attempt++) {
      const live = await objects.get<Live>(manifest);
      const predicted = await objects.apply<Live>(manifest, { dryRun: true, force: true });
      differences = [
        ...fieldDrift(manifest, live).map((d) => `${name(manifest)} live ${d}`),
        ...objectDiff(live, predicted).map((d) => `${name(manifest)} a sync would change ${d}`),
      ];
    }
    found.push(...differences);
  }
  return found;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sync-test-'));
  mkdirSync(join(dir, 'no-instances'));
  // As `npm run synth -- --examples` runs it: cdk8s from node_modules/.bin on this Node.
  const PATH = [join(root, 'node_modules', '.bin'), dirname(process.execPath), process.env.PATH].join(delimiter);
  execFileSync('bash', [join(root, 'scripts', 'synth.sh'), '--instances', join(dir, 'no-instances'), '--examples', '--output', join(dir, 'dist')], {
    cwd: root,
    stdio: 'ignore',
    env: { ...process.env, PATH },
  });
  cluster = await startOperatorCluster(dir, FIELD_MANAGER);
  // The CRDs reach the controller's webhook on loopback; the caBundle it injects is no drift.
  examples = cluster.localCrds(kustomizeBuild(join(dir, 'dist')));
  committed = cluster.localCrds(kustomizeBuild(join(root, 'dist')));

  objects = cluster.objects;
  await sync(examples);
  // kube-controller-manager applies each admission policy's type check to its status once, a moment
  // after the policy is created; the next apply of the policy then rewrites its managedFields (a
  // new resourceVersion, the spec unchanged), as the API server does once after a second field
  // manager applies. That one apply is made here, so that the test below sees what every later sync does.
  const policies = examples.filter((o) => o.kind === 'ValidatingAdmissionPolicy');
  for (const policy of policies) {
    await eventually(`the type check of ${name(policy)}`, async () => ((await objects.find<Live & { status?: { typeChecking?: unknown } }>(policy))?.status?.typeChecking ? true : undefined));
  }
  for (const policy of policies) await objects.apply(policy, { force: true });
}, 300_000);

afterAll(async () => {
  await cluster?.stop();
  rmSync(dir, { recursive: true, force: true });
}, 120_000);

describe('dist/ with the examples, built by kustomize and synced wave by wave', () => {
  it('orders the waves CRDs, operator, examples', () => {
    const waves = (kind: string) => [...new Set(examples.filter((o) => o.kind === kind).map(wave))];
    expect(waves('CustomResourceDefinition')).toEqual([-1]);
    expect(waves('Deployment')).toEqual([0]);
    for (const kind of EXAMPLES) expect(waves(kind)).toEqual([1]);
  });

  it.each(EXAMPLES)('converges: the example %s becomes Ready', (kind) => expectReady(examples.filter((o) => o.kind === kind)), 150_000);

  it('a second sync changes nothing: every object keeps its resourceVersion', async () => {
    expect(await changedBySync(examples)).toEqual([]);
  });

  it('shows no drift: a dry-run apply of every object predicts the live object exactly, and the live object holds every field as written', async () => {
    expect(await drift(examples)).toEqual([]);
  });

  it('would see drift: a quantity the API server normalizes (cpu "1000m" becomes "1") shows', async () => {
    const deployment = controllerDeployment();
    deployment.spec.template.spec.containers[0].resources.limits.cpu = '1000m';
    expect(await drift([deployment])).toEqual([
      'Deployment cdk8s-operators/controller live .spec.template.spec.containers[0].resources.limits.cpu: wrote "1000m", got "1"',
    ]);
  });

  it('would see drift: a field the live object holds otherwise shows as a change a sync would make', async () => {
    const deployment = controllerDeployment();
    deployment.spec.replicas = 3;
    expect(await drift([deployment])).toContain('Deployment cdk8s-operators/controller a sync would change .spec.replicas: 2 -> 3');
  });
});

describe('the committed dist/ (kustomize build dist), synced onto it as a team syncs its repository', () => {
  /** What src/instances/ declares: the resources, and the namespace and ConfigMap they need (created by this sync too). */
  let team: KubeObject[];

  beforeAll(() => {
    const declared = new Set(loadYaml(join(root, 'dist', '2-instances.k8s.yaml')).map(name));
    team = committed.filter((o) => declared.has(name(o)));
  });

  it('changes nothing of the operator and adds the team\u2019s resources, their namespace a wave before them', async () => {
    const changed = new Set(await changedBySync(committed));
    expect(committed.filter((o) => !team.includes(o) && changed.has(name(o))).map(name)).toEqual([]);
    expect(team.filter((o) => !changed.has(name(o))).map(name)).toEqual([]);
    expect(team.filter((o) => o.kind === 'Namespace').map((o) => [name(o), wave(o)])).toEqual([['Namespace team-a', 0]]);
  });

  it('converges: every resource of src/instances/ becomes Ready', () => expectReady(team.filter((o) => wave(o) === 1)), 150_000);

  it('a second sync changes nothing, and shows no drift', async () => {
    expect(await changedBySync(committed)).toEqual([]);
    expect(await drift(committed)).toEqual([]);
  });
});
