import * as k8s from '@kubernetes/client-node';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments, stringify } from 'yaml';
import { KubeObject, ObjectClient } from '../../src/kube/objects';
import { KubeRest } from '../../src/kube/rest';
import { ControlPlaneState, startControlPlane, stopControlPlane } from '../../src/testing/controlplane/controlplane';
import { eventually } from '../../src/testing/cluster';
import { toolsBeforeAll } from '../support/go-tool';
import { CHART, helm, helmBinary, helmTemplate } from './helm';

toolsBeforeAll(helmBinary);

type Crd = KubeObject & { spec: { versions: { schema: { openAPIV3Schema: { properties: { spec: { properties: Record<string, unknown> } } } } }[] } };
const RELEASE = 'cdk8s-operators';
const EXCHANGE_RATES = 'exchangerates.operators.brennerm.github.io';
const ROOT = join(__dirname, '..', '..');

/** `npm run synth -- --helm-instances --examples` into a folder of its own: a chart carrying resources (the examples only). */
function chartWithResources(): string {
  const out = mkdtempSync(join(tmpdir(), 'helm-resources-'));
  mkdirSync(join(out, 'none'));
  const env = { ...process.env, PATH: `${join(ROOT, 'node_modules', '.bin')}:${process.env.PATH}` };
  const synth = spawnSync('bash', [join(ROOT, 'scripts', 'synth.sh'), '--helm-instances', '--examples', '--instances', join(out, 'none'), '--output', join(out, 'dist')], { cwd: ROOT, env, encoding: 'utf8' });
  if (synth.status !== 0) throw new Error(`synth failed: ${synth.stderr}`);
  return join(out, 'dist', 'helm');
}

const rate = (name: string, spec: Record<string, unknown>): KubeObject => ({ apiVersion: 'operators.brennerm.github.io/v1', kind: 'ExchangeRate', metadata: { name, namespace: 'default' }, spec });

/**
 * The chart installed, upgraded and uninstalled by the real helm, on a control plane of this
 * file's own: the chart owns cluster-wide names (CRDs, ClusterRoles) that the shared one's
 * tests apply themselves, and this test changes a CRD. No controller runs: the API server
 * must accept every object; kwok makes the Pods it schedules Ready, nothing waits for it.
 */
describe('helm install, upgrade and uninstall of dist/helm', () => {
  let dir: string;
  let plane: ControlPlaneState;
  let rest: KubeRest;
  let objects: ObjectClient;
  let withResources: string;
  const run = (...args: string[]) => helm([...args, '--namespace', 'default'], plane.kubeconfig);
  /** Creates with fieldValidation=Strict: an unknown field fails the request, naming it, instead of being dropped. */
  const createStrict = async (object: KubeObject) => rest.request<KubeObject>('POST', await objects.discovery.objectPath(object, false), { body: object, query: { fieldValidation: 'Strict' } });
  const crdSpecFields = async () => Object.keys((await objects.get<Crd>({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: EXCHANGE_RATES } })).spec.versions[0].schema.openAPIV3Schema.properties.spec.properties);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'helm-install-'));
    plane = await startControlPlane(dir);
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(plane.kubeconfig);
    rest = new KubeRest(kc);
    objects = new ObjectClient(rest, 'helm-tests');
    withResources = chartWithResources();
  }, 180_000);

  afterAll(async () => {
    if (dir) await stopControlPlane(dir);
  });

  it('refuses bad values at install, naming the field, before anything reaches the cluster', async () => {
    const install = run('install', 'bad', CHART, '--set', 'image.pullPolicy=Sometimes');
    expect(install.code).not.toBe(0);
    expect(install.stderr).toContain("at '/image/pullPolicy': value must be one of 'Always', 'IfNotPresent', 'Never'");
    expect(run('list', '--all', '--short').stdout).not.toContain('bad');
    await expect(objects.get({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'cdk8s-operators' } })).rejects.toThrow(/HTTP 404/);
  });

  it('refuses a chart with resources (--helm-instances) on a cluster without the CRDs, creating nothing', () => {
    // Helm maps every object of a release to the API before it creates any, so CRDs and resources of theirs cannot come in one first install.
    const install = run('install', 'too-early', withResources);
    expect(install.code).not.toBe(0);
    expect(install.stderr).toMatch(/no matches for kind "ExchangeRate".*ensure CRDs are installed first/s);
    expect(run('list', '--all', '--short').stdout).not.toContain('too-early');
  });

  it('installs every object of the chart, and prints the NOTES', async () => {
    const install = run('install', RELEASE, CHART);
    expect(install.stderr).toBe('');
    expect(install.code).toBe(0);
    expect(install.stdout).toContain(`is installed as release ${RELEASE}`);
    for (const object of helmTemplate()) {
      const live = await objects.get<KubeObject & { metadata: { labels?: Record<string, string>; annotations?: Record<string, string> } }>(object);
      expect(`${live.kind}/${live.metadata.name}: ${live.metadata.annotations?.['meta.helm.sh/release-name']}`).toBe(`${object.kind}/${object.metadata.name}: ${RELEASE}`);
    }
    const status = run('status', RELEASE);
    expect(status.stdout).toContain('STATUS: deployed');
  });

  it('upgrades to other values: replicas, Secret copying, the UI left out', async () => {
    const upgrade = run('upgrade', RELEASE, CHART, '--set', 'replicas=3', '--set', 'secretCopy=true', '--set', 'ui.enabled=false');
    expect(upgrade.stderr).toBe('');
    expect(upgrade.code).toBe(0);
    const deployment = await objects.get<KubeObject & { spec: { replicas: number; template: { spec: { containers: { args: string[] }[] } } } }>({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'controller', namespace: 'cdk8s-operators' } });
    expect(deployment.spec.replicas).toBe(3);
    expect(deployment.spec.template.spec.containers[0].args).toContain('--enable-secrets');
    const role = await objects.get<KubeObject & { rules: { resources: string[] }[] }>({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'cdk8s-operators:copyrators' } });
    expect(role.rules.flatMap((r) => r.resources)).toContain('secrets');
    await expect(objects.get({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'guitar-ui', namespace: 'cdk8s-operators' } })).rejects.toThrow(/HTTP 404/);
  });

  it('brings a field a CRD gained to the cluster with helm upgrade (CRDs are templates, not crds/)', async () => {
    // Before: the API server does not know the field.
    await expect(createStrict(rate('before', { currency: 'USD', note: 'for the report' }))).rejects.toThrow(/unknown field "spec.note"/);

    // The next release of the chart: the ExchangeRate CRD has spec.note.
    const next = join(mkdtempSync(join(tmpdir(), 'helm-next-')), 'chart');
    cpSync(CHART, next, { recursive: true });
    const crdsFile = join(next, 'templates', '0-crds.k8s.yaml');
    // Without the template's guards of extra groups' CRDs (served by default), it is plain YAML.
    const crdsYaml = readFileSync(crdsFile, 'utf8').split('\n').filter((line) => !line.startsWith('{{')).join('\n');
    const crds = parseAllDocuments(crdsYaml).map((d) => d.toJS() as Crd);
    crds.find((c) => c.metadata.name === EXCHANGE_RATES)!.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.note = { type: 'string', description: 'Free text.' };
    writeFileSync(crdsFile, crds.map((c) => stringify(c)).join('---\n'));
    const chartFile = join(next, 'Chart.yaml');
    writeFileSync(chartFile, readFileSync(chartFile, 'utf8').replace(/^version: .*$/m, 'version: "99.0.0"'));

    const upgrade = run('upgrade', RELEASE, next, '--reuse-values');
    expect(upgrade.stderr).toBe('');
    expect(upgrade.code).toBe(0);
    expect(await crdSpecFields()).toContain('note');
    // The API server serves the new schema once it has rebuilt its handler for the CRD.
    const created = await eventually('an ExchangeRate with spec.note to be accepted', () => createStrict(rate('after', { currency: 'USD', note: 'for the report' })), 30_000);
    expect(created.spec).toMatchObject({ currency: 'USD', note: 'for the report' });
    expect((await objects.get<KubeObject & { spec: unknown }>(created)).spec).toMatchObject({ currency: 'USD', note: 'for the report' });
  });

  it('adds the resources of a chart built with --helm-instances at the next upgrade, once the CRDs exist', async () => {
    const upgrade = run('upgrade', RELEASE, withResources, '--reuse-values');
    expect(upgrade.stderr).toBe('');
    expect(upgrade.code).toBe(0);
    const examples = helm(['template', RELEASE, withResources, '--show-only', 'templates/3-examples.k8s.yaml']);
    const declared = parseAllDocuments(examples.stdout).map((d) => d.toJS() as KubeObject);
    expect(declared.length).toBeGreaterThan(1);
    for (const object of declared) await expect(objects.get(object)).resolves.toMatchObject({ kind: object.kind, metadata: { name: object.metadata.name } });
  });

  it('uninstalls the operator but keeps the CRDs, and with them the resources', async () => {
    const uninstall = run('uninstall', RELEASE);
    expect(uninstall.code).toBe(0);
    expect(uninstall.stdout + uninstall.stderr).toMatch(/kept due to the resource policy/);
    const crds = helmTemplate().filter((o) => o.kind === 'CustomResourceDefinition');
    for (const crd of crds) await expect(objects.get(crd)).resolves.toMatchObject({ metadata: { name: crd.metadata.name } });
    await expect(objects.get(rate('after', {}))).resolves.toMatchObject({ spec: { currency: 'USD' } });
    await expect(objects.get({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'cdk8s-operators:controller' } })).rejects.toThrow(/HTTP 404/);
  });
});
