// Set up before each unit test file (jest.config.js, project "unit"). That tier starts no
// control plane, builds no Go tool and runs none of the tests' system packages (PostgreSQL, the
// browser, promtool...), so a file that needs one fails here by name, rather than passing only
// where the cluster tier happens to have made it ready.
import type * as ChildProcess from 'node:child_process';
import { promisify } from 'node:util';
import { refuseInUnitTier } from '../../src/testing/tier';

// `npm test` runs both tiers in one Jest run, whose workers inherit the control plane's
// variables: this file's copy of the environment drops them, and testKubeConfig() refuses.
for (const name of ['TEST_KUBECONFIG', 'TEST_CONTROL_PLANE_DIR', 'TEST_CONTROL_PLANE_LOGS', 'TEST_CONVERSION_URL', 'TEST_CONVERSION_CA_BUNDLE']) delete process.env[name];
process.env.TEST_TIER = 'unit';

jest.mock('node:child_process', () => guardedChildProcess());
jest.mock('child_process', () => guardedChildProcess());

// What a command line names when it needs the cluster tier: every Go tool and the control plane
// are built by a build.sh (scripts/go-tools.sh); the rest come from scripts/system-packages.sh's
// tests and image groups, which `npm ci` alone does not give a kind's author.
const clusterTierPrograms: readonly [RegExp, string][] = [
  [/\/build\.sh\b|go-tools\.sh/, 'Go tools or control plane (they are built by a build.sh)'],
  [/(^|[\s/])(postgres|initdb|pg_ctl|pg_basebackup|chromium|promtool|busybox|htpasswd|unshare|buildah|skopeo|umoci)(\s|$)/, "tests' system packages (scripts/system-packages.sh tests image)"],
];

function refuseClusterTierPrograms(args: readonly unknown[]): void {
  const commandLine = args.flatMap((arg) => (typeof arg === 'string' ? [arg] : Array.isArray(arg) ? arg.map(String) : [])).join(' ');
  for (const [pattern, what] of clusterTierPrograms) if (pattern.test(commandLine)) refuseInUnitTier(`${what}: it ran \`${commandLine}\``);
}

function guardedChildProcess(): typeof ChildProcess {
  const actual = jest.requireActual<typeof ChildProcess>('node:child_process');
  const guard = <F extends (...args: never[]) => unknown>(run: F): F => {
    const guarded = ((...args: Parameters<F>) => {
      refuseClusterTierPrograms(args);
      return run(...args);
    }) as F;
    // exec and execFile promisify to { stdout, stderr } through this symbol (which is not itself guarded).
    const promisified = (run as { [promisify.custom]?: (...args: unknown[]) => unknown })[promisify.custom];
    if (promisified) {
      Object.defineProperty(guarded, promisify.custom, {
        // A promise rejects rather than throws, as the real one does when it cannot start the program.
        value: async (...args: unknown[]) => {
          refuseClusterTierPrograms(args);
          return promisified(...args);
        },
      });
    }
    return guarded;
  };
  return {
    ...actual,
    spawn: guard(actual.spawn),
    spawnSync: guard(actual.spawnSync),
    exec: guard(actual.exec),
    execSync: guard(actual.execSync),
    execFile: guard(actual.execFile),
    execFileSync: guard(actual.execFileSync),
    fork: guard(actual.fork),
  };
}
