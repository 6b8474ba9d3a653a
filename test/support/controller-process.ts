import { ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../../src/testing/controlplane/controlplane';
import { logChild } from './child-log';

/** This checkout's CLI, built from source by `npm run build`; from the checkout's root, so that compiled programs in lib/ (the soak) find it too. */
const CHECKOUT_BIN = join(repoRoot(), 'bin', 'cdk8s-operators');

/** The controller as the image runs it (`cdk8s-operators controller ...`), in a child process. */
export interface ControllerProcess {
  readonly child: ChildProcess;
  readonly logFile: string;
  /** Its JSON log lines so far. */
  logs(): Array<Record<string, unknown>>;
  /** SIGTERM, then wait for the exit; SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<number | null>;
  /** SIGKILL: a crash, with no chance to clean up. */
  kill(): Promise<void>;
  readonly exited: Promise<number | null>;
}

/**
 * The administrator's step of docs/kinds/registrymirror.md (#who-may-mirror-what) for the
 * tests' clusters: the hosts their RegistryMirrors serve (the seed's quay.io, the example's
 * Docker Hub, and the test domain's). A test of the allowlist passes its own --mirror-hosts,
 * which beats this variable.
 */
export const TEST_MIRROR_HOSTS = { MIRROR_HOSTS: 'docker.io,quay.io,*.mirrors.test' };

/**
 * Starts the controller with `args`, and `env` added to this process's environment (e.g.
 * NAMESPACE). It leaves conversion to the run's own webhook (test/support/conversion.ts), where
 * the CRDs point, unless `args` say how it serves conversion itself (--webhook-url, --conversion-webhook).
 * This checkout's controller serves its metrics on a free port unless `args` name one (--metrics-port),
 * so that controllers of tests run side by side do not contend for 8443; its log line "controller
 * starting" says which (metricsPort).
 * `bin` is another build's CLI (e.g. a released one, test/support/released.ts).
 */
export function startController(args: string[], logFile: string, env: Record<string, string> = {}, bin = CHECKOUT_BIN): ControllerProcess {
  const servesConversion = args.some((a) => a.startsWith('--webhook-url') || a.startsWith('--conversion-webhook'));
  const conversion = servesConversion ? {} : { CONVERSION_WEBHOOK: 'false' };
  const metricsPort = bin === CHECKOUT_BIN && !args.some((a) => a.startsWith('--metrics-port')) ? ['--metrics-port=0'] : [];
  const child = spawn(process.execPath, [bin, 'controller', ...args, ...metricsPort], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...TEST_MIRROR_HOSTS, ...conversion, ...env } });
  const exited = logChild(child, logFile);
  return {
    child,
    logFile,
    exited,
    logs: () =>
      readFileSync(logFile, 'utf8')
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>),
    stop: async (graceMs = 15_000) => {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
    kill: async () => {
      child.kill('SIGKILL');
      await exited;
    },
  };
}
