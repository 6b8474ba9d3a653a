import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { goTool } from '../support/go-tool';
import { parse } from 'yaml';

/** The Argo CD health checks `npm run synth` ships. */
export const SHIPPED_HEALTH = join(__dirname, '..', '..', 'dist', 'argocd', 'argocd-cm-health.yaml');

/** The shipped health scripts by argocd-cm key, each written to a file for gitops-health. */
export function shippedHealthScripts(): Map<string, string> {
  const dir = mkdtempSync(join(tmpdir(), 'argocd-health-'));
  const data = (parse(readFileSync(SHIPPED_HEALTH, 'utf8')) as { data: Record<string, string> }).data;
  return new Map(
    Object.entries(data).map(([key, script]) => {
      const file = join(dir, `${key}.lua`);
      writeFileSync(file, script);
      return [key, file];
    }),
  );
}

/** What a GitOps tool says of one object: a health or kstatus status and a message, or an error. */
export interface Judgement {
  readonly status?: string;
  readonly message?: string;
  readonly error?: string;
}

const gitopsHealthBin = goTool(join(__dirname, 'build.sh'));

/** gitops-health, built on first use by build.sh beside this file (seconds when the cache is cold). */
export const gitopsHealth = () => join(gitopsHealthBin(), 'gitops-health');

function run(args: string[], objects: readonly object[]): Judgement[] {
  return JSON.parse(execFileSync(gitopsHealth(), args, { input: JSON.stringify(objects), encoding: 'utf8' })) as Judgement[];
}

/** Argo CD's verdicts on `objects` by a health script (a file), in gopher-lua as Argo CD runs it. */
export const argoCdHealth = (scriptFile: string, objects: readonly object[]) => run(['lua', scriptFile], objects);

/** kstatus's verdicts on `objects` (Current, InProgress, Failed, Terminating), as Flux and `kubectl wait` compute them. */
export const kstatus = (objects: readonly object[]) => run(['kstatus'], objects);
