import * as k8s from '@kubernetes/client-node';
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { KubeObject, ObjectClient } from '../../src/kube/objects';
import { KubeRest } from '../../src/kube/rest';
import { ControlPlaneState, startControlPlane, stopControlPlane } from '../controlplane/controlplane';
import { eventually } from '../support/cluster';
import { ControllerProcess, startController } from '../support/controller-process';
import { FakeRateProvider, startRateProvider } from '../support/rate-provider';
import { startStorageProvisioner, StorageProvisioner } from '../support/storage-provisioner';
import { fieldDrift } from './drift';
import { kustomizeBuild } from './kustomize';

// dist/ synced as Argo CD syncs it: built by the real kustomize, applied server-side wave by
// wave (argocd.argoproj.io/sync-wave), with the controller running from source. A control
// plane of this file's own: the controller serves every namespace.
const root = join(__dirname, '..', '..');
const FIELD_MANAGER = 'argocd-controller';
const SYNC_WAVE = 'argocd.argoproj.io/sync-wave';
/** Every kind's example converges on the fake node (the database's and the mirror's claims bound by the test provisioner). */
const EXAMPLES = ['ExchangeRate', 'Guitar', 'CopyratorRule', 'RegistryMirror', 'Database'];

type Live = KubeObject & { metadata: { resourceVersion?: string }; status?: { conditions?: { type: string; status: string }[] } };

let dir: string;
let plane: ControlPlaneState | undefined;
let objects: ObjectClient;
let provider: FakeRateProvider | undefined;
let provisioner: StorageProvisioner | undefined;
let controller: ControllerProcess | undefined;
let built: KubeObject[];

const wave = (o: KubeObject) => Number((o.metadata as { annotations?: Record<string, string> }).annotations?.[SYNC_WAVE] ?? 0);

/** One sync: wave by wave, in kustomize's order within a wave, each wave's CRDs Established before the next; what the API server answered. */
async function sync(manifests: KubeObject[]): Promise<Live[]> {
  const answers: Live[] = [];
  for (const w of [...new Set(manifests.map(wave))].sort((a, b) => a - b)) {
    const inWave = manifests.filter((o) => wave(o) === w);
    for (const manifest of inWave) answers.push(await objects.apply<Live>(manifest, { force: true }));
    for (const crd of inWave.filter((o) => o.kind === 'CustomResourceDefinition')) {
      await eventually(`CRD ${crd.metadata.name} Established`, async () =>
        (await objects.get<Live>(crd)).status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') ? true : undefined,
      );
    }
  }
  return answers;
}

const name = (o: KubeObject) => `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`;

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
  built = kustomizeBuild(join(dir, 'dist'));

  plane = await startControlPlane(join(dir, 'cluster'));
  spawn(process.execPath, [join(root, 'lib', 'test', 'controlplane', 'watchdog.js'), String(process.pid), JSON.stringify(plane.processes)], { detached: true, stdio: 'ignore' }).unref();
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(plane.kubeconfig);
  objects = new ObjectClient(new KubeRest(kc), FIELD_MANAGER);
  provisioner = await startStorageProvisioner(kc);
  provider = await startRateProvider();
  controller = startController([`--kubeconfig=${plane.kubeconfig}`, '--leader-election=false', '--http-port=0'], join(dir, 'controller.log'), { EXCHANGE_RATE_URL: provider.url });
  await sync(built);
}, 300_000);

afterAll(async () => {
  await controller?.stop();
  await provider?.close();
  await provisioner?.stop().catch(() => undefined);
  if (plane) await stopControlPlane(join(dir, 'cluster'));
  rmSync(dir, { recursive: true, force: true });
}, 120_000);

describe('dist/ built by kustomize and synced wave by wave', () => {
  it('orders the waves CRDs, operator, examples', () => {
    const waves = (kind: string) => [...new Set(built.filter((o) => o.kind === kind).map(wave))];
    expect(waves('CustomResourceDefinition')).toEqual([-1]);
    expect(waves('Deployment')).toEqual([0]);
    for (const kind of EXAMPLES) expect(waves(kind)).toEqual([1]);
  });

  it.each(EXAMPLES)('converges: the example %s becomes Ready', async (kind) => {
    const examples = built.filter((o) => o.kind === kind);
    expect(examples.length).toBeGreaterThan(0);
    for (const example of examples) {
      await eventually(`${name(example)} Ready`, async () =>
        (await objects.get<Live>(example)).status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ? true : undefined,
      120_000);
    }
  }, 150_000);

  it('a second sync changes nothing: every object keeps its resourceVersion', async () => {
    const before = new Map<string, string | undefined>();
    for (const o of built) before.set(name(o), (await objects.get<Live>(o)).metadata.resourceVersion);
    const changed = (await sync(built)).filter((answer) => answer.metadata.resourceVersion !== before.get(name(answer))).map(name);
    expect(changed).toEqual([]);
  });

  it('shows no drift: a server-side dry-run and the live object both hold every field as dist/ writes it', async () => {
    const drift: string[] = [];
    for (const manifest of built) {
      const live = await objects.get<Live>(manifest);
      const dryRun = await objects.apply<Live>(manifest, { dryRun: true, force: true });
      drift.push(...fieldDrift(manifest, live).map((d) => `${name(manifest)} live ${d}`));
      drift.push(...fieldDrift(manifest, dryRun).map((d) => `${name(manifest)} dry-run ${d}`));
    }
    expect(drift).toEqual([]);
  });

  it('would see drift: a quantity the API server normalizes (cpu "1000m" becomes "1") shows', async () => {
    const deployment = structuredClone(built.find((o) => o.kind === 'Deployment' && o.metadata.name === 'controller')!) as KubeObject & {
      spec: { template: { spec: { containers: { resources: { limits: Record<string, string> } }[] } } };
    };
    deployment.spec.template.spec.containers[0].resources.limits.cpu = '1000m';
    const dryRun = await objects.apply(deployment, { dryRun: true, force: true });
    expect(fieldDrift(deployment, dryRun)).toEqual(['.spec.template.spec.containers[0].resources.limits.cpu: wrote "1000m", got "1"']);
  });
});
