import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

/** A release of this repository, built from its commit: its dist/, its controller, its examples. */
export interface Released {
  /** The checkout of the commit (src, bin, dist, imports), built with tsc into its lib/. */
  readonly dir: string;
  /** Its committed dist/: what a user installed from it. */
  readonly dist: string;
  /** Its CLI: `node <bin> controller ...` runs the released controller. */
  readonly bin: string;
  /** `npm run synth -- --examples` of it: its kinds' examples in the versions it served. */
  readonly examples: string;
}

/**
 * Builds `commit` of this repository's history into a temp folder: `git archive` of what the
 * product needs, compiled by this checkout's tsc with this checkout's node_modules (a release
 * needs no package this one lacks), and its examples synthesized as its `npm run synth` did.
 * Needs the git history (a full clone, as CI has): a shallow clone or an export fails here,
 * naming the commit and the fix.
 */
export function buildReleased(commit: string): Released {
  const known = spawnSync('git', ['-C', ROOT, 'cat-file', '-e', `${commit}^{commit}`], { encoding: 'utf8' });
  if (known.status !== 0) {
    throw new Error(`the released commit ${commit} is not in this checkout's git history (${(known.stderr || known.error?.message || '').trim()}): run in a full clone (git fetch --unshallow)`);
  }
  const dir = mkdtempSync(join(tmpdir(), `released-${commit}-`));
  const archive = execFileSync('git', ['-C', ROOT, 'archive', commit, 'src', 'imports', 'bin', 'dist', 'tsconfig.json', 'package.json', 'cdk8s.yaml', 'scripts/synth.sh'], { maxBuffer: 256 * 1024 * 1024 });
  execFileSync('tar', ['-x', '-C', dir], { input: archive });
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  // As its `npm run synth` ran: cdk8s and tsc from node_modules/.bin, on this Node.
  const PATH = [join(dir, 'node_modules', '.bin'), dirname(process.execPath), process.env.PATH].join(delimiter);
  const run = (command: string, args: string[]) => {
    const done = spawnSync(command, args, { cwd: dir, env: { ...process.env, PATH }, encoding: 'utf8' });
    if (done.status !== 0) throw new Error(`building the release ${commit}: ${command} ${args.join(' ')} failed: ${done.stdout}${done.stderr}${done.error?.message ?? ''}`);
  };
  run('tsc', ['-p', 'tsconfig.json']);
  mkdirSync(join(dir, 'no-instances'));
  run('bash', ['scripts/synth.sh', '--examples', '--instances', join(dir, 'no-instances'), '--output', join(dir, 'examples')]);
  return { dir, dist: join(dir, 'dist'), bin: join(dir, 'bin', 'cdk8s-operators'), examples: join(dir, 'examples', '3-examples.k8s.yaml') };
}
