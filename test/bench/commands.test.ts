import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot } from '../../src/testing/controlplane/controlplane';

/**
 * The benchmark commands the docs name, run small, compiled as `npm run bench:*` runs them and
 * outside the test run's conversion webhook (as on a machine without one): each starts its own
 * control plane and webhook, and must get to its last figure.
 */
function runBench(script: string, args: string[]): Promise<{ code: number | null; output: string }> {
  const env = { ...process.env };
  delete env.TEST_CONVERSION_URL;
  delete env.TEST_CONVERSION_CA_BUNDLE;
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [join(repoRoot(), 'lib', 'bench', script), ...args], { cwd: repoRoot(), env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', fail);
    child.on('close', (code) => done({ code, output }));
  });
}

describe('the benchmark commands, run small', () => {
  it('bench (the ExchangeRate figures) serves, idles and samples memory', async () => {
    const { code, output } = await runBench('exchangerate.js', ['--objects', '20', '--repeat', '1', '--idle', '1s', '--memory-objects', '20', '--memory-settle', '1s']);
    expect({ code, output }).toMatchObject({ code: 0, output: expect.stringMatching(/\bC\b.*20/) });
  }, 300_000);

  it('bench:scrape times a scrape of 1,000 objects three ways', async () => {
    const { code, output } = await runBench('scrape.js', ['--objects', '1000', '--scrapes', '2']);
    expect({ code, output }).toMatchObject({ code: 0, output: expect.stringMatching(/within the 5 s/) });
  }, 120_000);

  it('bench:sharding serves with one replica', async () => {
    const { code, output } = await runBench('sharding.js', ['--objects', '20', '--replicas', '1', '--settle', '1s']);
    expect({ code, output }).toMatchObject({ code: 0, output: expect.stringMatching(/logs in /) });
  }, 300_000);

  it('bench:copyrator copies into new namespaces and counts the idle writes', async () => {
    const { code, output } = await runBench('copyrator.js', ['--sources', '2', '--namespaces', '2', '--idle', '1s']);
    expect({ code, output }).toMatchObject({ code: 0, output: expect.stringMatching(/F {2}controller RSS/) });
  }, 180_000);

  it('bench:database serves Databases until Ready and counts the idle writes', async () => {
    const { code, output } = await runBench('database.js', ['--databases', '2', '--idle', '1s']);
    expect({ code, output }).toMatchObject({ code: 0, output: expect.stringMatching(/I {2}controller RSS/) });
  }, 300_000);
});
