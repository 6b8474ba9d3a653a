import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';

// docs/adding-a-kind.md's promise, kept: a kind written from the Operator SDK tutorial's
// Memcached (test/kinds/fixtures/memcached/) goes into a scratch copy of this checkout as one
// folder and one line of src/kinds/index.ts, and with nothing else edited, npm run synth
// writes it and the kind-generic test files pass on it, the controller serving its example.
const root = join(__dirname, '..', '..');
const FIXTURE = join(__dirname, 'fixtures', 'memcached');
const KINDS_INDEX = join('src', 'kinds', 'index.ts');

/** The test files that cover every kind alike; each runs against the new kind too. */
const KIND_GENERIC_TESTS = [
  'test/kinds/validation.test.ts',
  'test/bundle/bundle.unit.test.ts',
  'test/gitops/health.test.ts',
  'test/core/constructs-on-first-use.unit.test.ts',
  'test/instances/instances.unit.test.ts',
  'test/helm/chart.test.ts',
  'test/dist/fresh.test.ts',
  'test/lint/manifests.test.ts',
];
/** Argo CD's sync of dist/ with the examples, the controller running from source: only the new kind's example is waited for. */
const SERVED = ['test/gitops/sync.cluster.test.ts', '--testNamePattern', 'the example Memcached becomes Ready'];

let scratch: string;

/** The checkout's files as they are now (tracked and new, not ignored), not its history. */
function checkoutFiles(): string[] {
  const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' });
  return listed.split('\0').filter((file) => file && existsSync(join(root, file)));
}

/** Files of the scratch copy (outside node_modules/ and lib/) that differ from or are missing in the checkout. */
function changedFiles(): string[] {
  const changed: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      const file = relative(scratch, path);
      if (['node_modules', 'lib', '.git'].includes(file)) continue;
      if (entry.isDirectory()) walk(path);
      else if (!existsSync(join(root, file)) || !readFileSync(join(root, file)).equals(readFileSync(path))) changed.push(file);
    }
  };
  walk(scratch);
  return changed.sort();
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): string {
  const result = spawnSync(command, args, { cwd: scratch, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (exit ${result.status}) in ${scratch}:\n${result.stdout}\n${result.stderr}`);
  return `${result.stdout}${result.stderr}`;
}

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'new-kind-'));
  for (const file of checkoutFiles()) {
    mkdirSync(dirname(join(scratch, file)), { recursive: true });
    cpSync(join(root, file), join(scratch, file));
  }
  symlinkSync(join(root, 'node_modules'), join(scratch, 'node_modules'));
});

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('a new kind from the Operator SDK tutorial (Memcached)', () => {
  it('goes in as one folder and one line', () => {
    cpSync(FIXTURE, join(scratch, 'src', 'kinds', 'memcached'), { recursive: true });
    const index = readFileSync(join(scratch, KINDS_INDEX), 'utf8');
    // The line, as docs/adding-a-kind.md says to write it: the folder's name, after the last kind.
    const withMemcached = index.replace(/\n\];/, "\n  'memcached',\n];");
    writeFileSync(join(scratch, KINDS_INDEX), withMemcached);
    expect(withMemcached.split('\n').length - index.split('\n').length).toBe(1);
    const folder = readdirSync(FIXTURE).map((file) => join('src', 'kinds', 'memcached', file));
    expect(changedFiles()).toEqual([KINDS_INDEX, ...folder].sort());
  });

  it('builds and synthesizes with npm run synth, which also generates its typed class into imports/', () => {
    run('bash', ['scripts/synth.sh']);
    const crds = readFileSync(join(scratch, 'dist', '0-crds.k8s.yaml'), 'utf8');
    expect(crds).toContain('name: memcacheds.cache.example.com');
    // Generated files only: dist/ and imports/ (nothing a person edits).
    expect(changedFiles().filter((file) => !/^(dist|imports)\//.test(file) && !file.startsWith(join('src', 'kinds', 'memcached')))).toEqual([KINDS_INDEX]);
    expect(existsSync(join(scratch, 'imports', 'cache.example.com.ts'))).toBe(true);
  }, 300_000);

  // Jest as `npm test` runs it, on the cluster of this run (TEST_KUBECONFIG).
  const jest = (args: string[]) => run(process.execPath, ['--experimental-vm-modules', '--disable-warning=ExperimentalWarning', join('node_modules', 'jest', 'bin', 'jest.js'), '--ci', ...args]);

  it('passes the kind-generic tests', () => {
    expect(jest(KIND_GENERIC_TESTS)).toContain(`Test Suites: ${KIND_GENERIC_TESTS.length} passed`);
  }, 600_000);

  it('is served to Ready by the controller, as Argo CD syncs dist/ with the examples', () => {
    expect(jest(SERVED)).toMatch(/Tests: .*\b1 passed/);
  }, 600_000);
});
