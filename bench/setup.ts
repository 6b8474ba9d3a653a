import { ChildProcess, spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { KINDS } from '../src/kinds';
import { ObjectClient } from '../src/kube/objects';
import { repoRoot } from '../test/controlplane/controlplane';
import { runConversion, startLocalConversion } from '../test/support/conversion';
import { installCrds as installCrdsConverting } from '../test/support/manifests';

/*
 * test/support's startController() finds bin/ relative to its own source file, which holds
 * under ts-jest but not once compiled into lib/test/support/; the benchmarks run compiled, so
 * this one finds it from the checkout's root instead.
 */

/** The CRDs' conversion webhook for a benchmark or the soak; close() stops it (when it is theirs). */
export interface Conversion {
  close(): Promise<void>;
}

/**
 * The conversion webhook the CRDs point at (test/support's installCrds reads where from the
 * environment): the test run's when inside one, else the product's conversion server on
 * loopback of this process's own, whose close() also forgets it again. A kind served in more
 * than one version converts through it, so without it the API server refuses its objects.
 */
export async function conversionWebhook(): Promise<Conversion> {
  if (runConversion()) return { close: async () => undefined };
  const own = await startLocalConversion(KINDS);
  process.env.TEST_CONVERSION_URL = own.url;
  process.env.TEST_CONVERSION_CA_BUNDLE = own.caBundle;
  return {
    close: async () => {
      delete process.env.TEST_CONVERSION_URL;
      delete process.env.TEST_CONVERSION_CA_BUNDLE;
      await own.close();
    },
  };
}

/** Applies the synthesized CRDs, converting through a conversionWebhook, and waits until each is Established; close() stops that webhook. */
export async function installCrds(objects: ObjectClient): Promise<Conversion> {
  const conversion = await conversionWebhook();
  try {
    await installCrdsConverting(objects);
    return conversion;
  } catch (err) {
    await conversion.close();
    throw err;
  }
}

export interface ControllerChild {
  readonly child: ChildProcess;
  readonly logFile: string;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once it has exited. */
  stop(graceMs?: number): Promise<void>;
}

/**
 * `bin/cdk8s-operators controller <args>` with this Node, stdout and stderr appended to `logFile`
 * (closed by the pipes when it exits). Conversion is left to the conversionWebhook the CRDs point
 * at (CONVERSION_WEBHOOK=false), as in the tests: the controller's own would wait for its
 * install namespace's Secret, and its kinds with it.
 */
export function startController(args: string[], logFile: string): ControllerChild {
  const log = createWriteStream(logFile, { flags: 'a' });
  const env = { ...process.env, CONVERSION_WEBHOOK: 'false' };
  const child = spawn(process.execPath, [join(repoRoot(), 'bin', 'cdk8s-operators'), 'controller', ...args], { stdio: ['ignore', 'pipe', 'pipe'], env });
  child.stdout!.pipe(log);
  child.stderr!.pipe(log);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    child,
    logFile,
    stop: async (graceMs = 15_000) => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
        await exited;
        clearTimeout(timer);
      }
    },
  };
}
