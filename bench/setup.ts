import { ChildProcess, spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { KubeObject, ObjectClient } from '../src/kube/objects';
import { repoRoot } from '../test/controlplane/controlplane';
import { loadYaml } from '../test/support/manifests';
import { waitUntil } from './support';

/*
 * test/support's installCrds() and startController() find dist/ and bin/ relative to their
 * own source file, which holds under ts-jest but not once compiled into lib/test/support/;
 * the benchmark runs compiled, so these two find them from the checkout's root instead.
 */

/** Applies the synthesized CRDs (dist/0-crds.k8s.yaml) and waits until each is Established. */
export async function installCrds(objects: ObjectClient): Promise<void> {
  const crds = loadYaml(join(repoRoot(), 'dist', '0-crds.k8s.yaml'));
  for (const crd of crds) await objects.apply(crd);
  for (const crd of crds) {
    await waitUntil(`CRD ${crd.metadata.name} to be Established`, 60_000, 250, async () => {
      const current = await objects.get<KubeObject & { status?: { conditions?: { type: string; status: string }[] } }>(crd);
      return current.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') ? true : undefined;
    });
  }
}

export interface ControllerChild {
  readonly child: ChildProcess;
  readonly logFile: string;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once it has exited. */
  stop(graceMs?: number): Promise<void>;
}

/** `bin/cdk8s-operators controller <args>` with this Node, stdout and stderr appended to `logFile` (closed by the pipes when it exits). */
export function startController(args: string[], logFile: string): ControllerChild {
  const log = createWriteStream(logFile, { flags: 'a' });
  const child = spawn(process.execPath, [join(repoRoot(), 'bin', 'cdk8s-operators'), 'controller', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
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
