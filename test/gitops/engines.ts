import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { goTool } from '../support/go-tool';

/** The engines' bin directory (kubectl, flux-apply), built on first use by engines/build.sh (minutes when the tool cache is cold). */
export const enginesBin = goTool(join(__dirname, 'engines', 'build.sh'));

/** What an engine's run printed, and its exit code. */
export interface EngineRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs an engine without blocking this process: the test's own helpers (the controller started on its rollout) go on meanwhile. */
function runEngine(program: string, args: readonly string[], input?: string): Promise<EngineRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(join(enginesBin(), program), args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.on('error', () => undefined); // an engine that exits before reading its input says why on stderr
    child.stdin.end(input ?? '');
  });
}

/** The real kubectl (k8s.io/kubectl at the control plane's release) with `args`, against `kubeconfig`. */
export const kubectl = (kubeconfig: string, args: readonly string[]) => runEngine('kubectl', [`--kubeconfig=${kubeconfig}`, ...args]);

/** One entry of Flux's change set: `Kind/namespace/name` and what the apply did (created, configured, unchanged, skipped). */
export interface FluxChange {
  readonly subject: string;
  readonly action: string;
}

/**
 * One reconcile of a Kustomization with `wait: true` over `built` (the output of `kustomize
 * build`), by flux-apply: kustomize-controller's staged server-side apply and health check.
 */
export async function fluxApply(kubeconfig: string, built: string, timeout = '5m'): Promise<EngineRun & { changes: FluxChange[] }> {
  const run = await runEngine('flux-apply', [`--kubeconfig=${kubeconfig}`, `--timeout=${timeout}`], built);
  const changes = run.stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as FluxChange);
  return { ...run, changes };
}
