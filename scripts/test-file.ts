import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { isRunning, readState, repoRoot } from '../src/testing/controlplane/controlplane';
import { sameRelease } from '../src/testing/controlplane/release';

/**
 * `npm run test:file -- <test file>... [jest options]`: Jest on some test files as `npm test`
 * runs it (with Node's VM modules, which `npx jest` lacks: "Must use import to load ES
 * Module"). It uses the control plane `npm run cluster:up` started (in CLUSTER_DIR or
 * .cluster/) when it runs, else Jest's global setup starts a throw-away one; TEST_KUBECONFIG,
 * when set, names the cluster instead.
 */
function main(args: readonly string[]): number {
  if (!args.some((arg) => !arg.startsWith('-'))) {
    console.error('usage: npm run test:file -- <test file>... [jest options], e.g. npm run test:file -- test/kinds/validation.test.ts');
    return 2;
  }
  const root = repoRoot();
  const env = { ...process.env };
  // Unit test files alone need no control plane (jest.config.js starts none for them).
  const files = args.filter((arg) => arg.endsWith('.ts'));
  const clusterTier = files.length === 0 || files.some((file) => !file.endsWith('.unit.test.ts'));
  if (clusterTier && !env.TEST_KUBECONFIG) {
    const dir = resolve(env.CLUSTER_DIR ?? join(root, '.cluster'));
    const local = readState(dir);
    const asked = env.KUBERNETES_VERSION;
    if (local && isRunning(local) && asked && local.release && !sameRelease(local.release, asked)) {
      console.error(`test:file: the control plane in ${dir} runs Kubernetes ${local.release.version}, not KUBERNETES_VERSION=${asked}; Jest starts a throw-away one of ${asked}`);
    } else if (local && isRunning(local)) env.TEST_KUBECONFIG = local.kubeconfig;
    else console.error(`test:file: no control plane of npm run cluster:up runs in ${dir}; Jest starts a throw-away one (npm run cluster:up keeps one for the next run)`);
  }
  const jest = join(root, 'node_modules', 'jest', 'bin', 'jest.js');
  const run = spawnSync(process.execPath, ['--experimental-vm-modules', '--disable-warning=ExperimentalWarning', jest, ...args], { cwd: root, env, stdio: 'inherit' });
  return run.status ?? 1;
}

process.exit(main(process.argv.slice(2)));
