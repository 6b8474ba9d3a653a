import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { delimiter, dirname, join } from 'node:path';
import { createInterface } from 'node:readline';

/** Runs a command in `cwd`; resolves to whether it succeeded. Its output, prefixed `[label]`, is shown only when it failed. */
function run(label: string, command: string, args: string[], cwd: string, say: (line: string) => void): Promise<boolean> {
  const output: string[] = [];
  // npm's own bin folder and this Node first, as `npm run` would put them (synth.sh runs cdk8s and node).
  const path = [join(cwd, 'node_modules', '.bin'), dirname(process.execPath), process.env.PATH ?? ''].join(delimiter);
  const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, PATH: path } });
  for (const stream of [child.stdout, child.stderr]) createInterface({ input: stream }).on('line', (line) => output.push(`[${label}] ${line}`));
  return new Promise((resolve) => {
    child.once('error', (err) => {
      say(`[${label}] ${err.message}`);
      resolve(false);
    });
    child.once('close', (code) => {
      if (code !== 0) output.forEach((line) => say(line));
      resolve(code === 0);
    });
  });
}

/**
 * Compiles the checkout (when `build`) and synthesizes the bundle with every kind's example
 * and none of the team's resources into `<work>/dist`; returns that folder, or undefined when
 * a step failed (its output says why).
 */
export async function buildAndSynth(root: string, work: string, build: boolean, say: (line: string) => void): Promise<string | undefined> {
  const started = Date.now();
  if (build && !(await run('tsc', process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], root, say))) {
    say('dev: the build failed');
    return undefined;
  }
  const dist = join(work, 'dist');
  const noInstances = join(work, 'no-instances');
  mkdirSync(noInstances, { recursive: true });
  if (!(await run('synth', 'bash', [join(root, 'scripts', 'synth.sh'), '--instances', noInstances, '--examples', '--output', dist], root, say))) {
    say('dev: the synth failed');
    return undefined;
  }
  say(`dev: ${build ? 'built and synthesized' : 'synthesized'} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return dist;
}

export function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** Polls `url` until it answers 200; throws after `timeoutMs`. */
export async function waitForHttp(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    try {
      const res = await fetch(url);
      if (res.ok) return;
      last = `HTTP ${res.status}`;
    } catch (err) {
      last = (err as Error).message;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${url} did not answer within ${timeoutMs / 1000} s (last: ${last})`);
}
