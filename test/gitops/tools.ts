import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/** What a GitOps tool says of one object: a health or kstatus status and a message, or an error. */
export interface Judgement {
  readonly status?: string;
  readonly message?: string;
  readonly error?: string;
}

let bin: string | undefined;

/** gitops-health, built on first use by build.sh beside this file (seconds when the cache is cold). */
function gitopsHealth(): string {
  if (!bin) {
    const output = execFileSync('bash', [join(__dirname, 'build.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
    bin = join(output.trim().split('\n').at(-1)!, 'gitops-health');
  }
  return bin;
}

function run(args: string[], objects: readonly object[]): Judgement[] {
  return JSON.parse(execFileSync(gitopsHealth(), args, { input: JSON.stringify(objects), encoding: 'utf8' })) as Judgement[];
}

/** Argo CD's verdicts on `objects` by a health script (a file), in gopher-lua as Argo CD runs it. */
export const argoCdHealth = (scriptFile: string, objects: readonly object[]) => run(['lua', scriptFile], objects);

/** kstatus's verdicts on `objects` (Current, InProgress, Failed, Terminating), as Flux and `kubectl wait` compute them. */
export const kstatus = (objects: readonly object[]) => run(['kstatus'], objects);
