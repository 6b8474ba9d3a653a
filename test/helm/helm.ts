import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { KubeObject } from '../../src/kube/objects';
import { goTool } from '../support/go-tool';

/** dist/helm, the chart `npm run synth` writes. */
export const CHART = join(__dirname, '..', '..', 'dist', 'helm');

/** Helm's own config, cache and data: a folder of this run's, never the user's ~/.config/helm. */
let home: string | undefined;

const helmBin = goTool(join(__dirname, 'build.sh'));

/** The real helm, built on first use by build.sh beside this file (minutes when the tool cache is cold). */
export const helmBinary = () => join(helmBin(), 'helm');

export interface HelmRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs helm; with a kubeconfig, against that cluster (else none: template and lint need none). */
export function helm(args: string[], kubeconfig?: string): HelmRun {
  home ??= mkdtempSync(join(tmpdir(), 'helm-home-'));
  const env = {
    PATH: process.env.PATH ?? '',
    // The Kubernetes client's discovery cache goes under $HOME/.kube (the working directory without a HOME).
    HOME: home,
    HELM_CONFIG_HOME: join(home, 'config'),
    HELM_CACHE_HOME: join(home, 'cache'),
    HELM_DATA_HOME: join(home, 'data'),
    KUBECONFIG: kubeconfig ?? join(home, 'no-cluster'),
  };
  const run = spawnSync(helmBinary(), args, { encoding: 'utf8', env, timeout: 180_000 });
  if (run.error) throw run.error;
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** `helm template` of the chart with these `--set`/`-f` arguments: the objects it renders. */
export function helmTemplate(...valueArgs: string[]): KubeObject[] {
  const run = helm(['template', 'cdk8s-operators', CHART, ...valueArgs]);
  if (run.code !== 0) throw new Error(`helm template ${valueArgs.join(' ')} failed: ${run.stderr}`);
  return parseAllDocuments(run.stdout)
    .map((doc) => doc.toJS() as KubeObject | null)
    .filter((o): o is KubeObject => o !== null);
}
