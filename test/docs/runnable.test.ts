import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { installCrds } from '../support/manifests';
import { CodeBlock, docFiles, parseMarkdown, ROOT, runnableBlocks } from './markdown';

// Every `sh runnable` block of README.md and docs/**/*.md, run as docs/development.md
// ("Runnable commands in the docs") promises: bash -euo pipefail from the checkout's root, the
// project's Node first on PATH, KUBECONFIG the test control plane's, TMPDIR a fresh folder.

const BLOCK_TIMEOUT_MS = 5 * 60_000;
const OUTPUT_SHOWN = 4000;

interface BlockResult {
  readonly code: number | null;
  readonly output: string;
  readonly timedOut: boolean;
}

function runBlock(block: CodeBlock, timeoutMs: number): Promise<BlockResult> {
  const scratch = mkdtempSync(join(tmpdir(), 'docs-block-'));
  const script = join(scratch, 'block.sh');
  writeFileSync(script, block.text);
  const env = {
    ...process.env,
    PATH: `${join(ROOT, 'node_modules', '.bin')}:${process.env.PATH}`,
    KUBECONFIG: process.env.TEST_KUBECONFIG ?? '',
    TMPDIR: scratch,
  };
  return new Promise((done, fail) => {
    // Its own process group, so a block that runs too long is stopped with everything it started.
    const child = spawn('bash', ['-euo', 'pipefail', script], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      process.kill(-child.pid!, 'SIGKILL');
    }, timeoutMs);
    child.on('error', fail);
    child.on('close', (code) => {
      clearTimeout(timer);
      rmSync(scratch, { recursive: true, force: true });
      done({ code, output, timedOut });
    });
  });
}

/** Why a block failed, naming the file and line of its opening fence, with the block and the end of its output. */
function failure(block: CodeBlock, result: BlockResult, timeoutMs: number): string | undefined {
  if (!result.timedOut && result.code === 0) return undefined;
  const what = result.timedOut ? `ran longer than ${timeoutMs / 1000} s and was stopped` : `failed with exit code ${result.code}`;
  const output = result.output.length > OUTPUT_SHOWN ? `...${result.output.slice(-OUTPUT_SHOWN)}` : result.output;
  return `${block.file}:${block.line}: the runnable block ${what}\n--- the block ---\n${block.text}--- its output ---\n${output}`;
}

async function expectRuns(block: CodeBlock): Promise<void> {
  const problem = failure(block, await runBlock(block, BLOCK_TIMEOUT_MS), BLOCK_TIMEOUT_MS);
  if (problem) throw new Error(problem);
}

const blocks = runnableBlocks(docFiles().map((path) => parseMarkdown(path)));
const title = (b: CodeBlock) => `${b.file}:${b.line}: ${b.text.split('\n')[0]}`;

describe('the runnable blocks of the docs', () => {
  // diff and the cluster's own checks need the kinds' CRDs, as on a cluster the docs install.
  beforeAll(() => installCrds(), 120_000);

  it.each(blocks.map((b) => [title(b), b] as const))('%s', (_title, block) => expectRuns(block), BLOCK_TIMEOUT_MS + 30_000);
});

describe('a runnable block that fails', () => {
  const fixture = runnableBlocks([parseMarkdown(join('test', 'docs', 'fixtures', 'broken.md'))]);

  it('is reported with the file and line of its block, the block and its output on both streams', async () => {
    const block = fixture.find((b) => b.text.includes('exit 3'))!;
    const problem = failure(block, await runBlock(block, 30_000), 30_000);
    expect(problem).toMatch(/^test\/docs\/fixtures\/broken\.md:15: the runnable block failed with exit code 3\n/);
    expect(problem).toContain("--- the block ---\necho 'goes to stdout'");
    expect(problem).toContain('goes to stdout\ngoes to stderr\n');
  });

  it('is stopped after its time, with what it started, and reported so', async () => {
    const block: CodeBlock = { file: 'docs/slow.md', line: 7, language: 'sh', words: ['sh', 'runnable'], text: 'sleep 60 & sleep 60\n' };
    const started = Date.now();
    const problem = failure(block, await runBlock(block, 1000), 1000);
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(problem).toMatch(/^docs\/slow\.md:7: the runnable block ran longer than 1 s and was stopped/);
  });

  it('fails on the first command that fails, and on a failure inside a pipe', async () => {
    const first: CodeBlock = { file: 'docs/x.md', line: 1, language: 'sh', words: ['sh', 'runnable'], text: 'false\necho never\n' };
    const piped: CodeBlock = { ...first, text: 'false | cat\n' };
    const firstResult = await runBlock(first, 10_000);
    expect(firstResult).toMatchObject({ code: 1, timedOut: false });
    expect(firstResult.output).not.toContain('never');
    expect((await runBlock(piped, 10_000)).code).toBe(1);
  });
});
