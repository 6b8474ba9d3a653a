import { execFile, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { testKubeConfig } from '../../src/testing/cluster';

// The unit tier's fence (test/support/unit-tier.ts): a unit test file that reaches for the
// cluster tier's control plane, Go tools or system packages fails, saying how to move it.
const root = join(__dirname, '..', '..');
const moveIt = /unit-tier\.unit\.test\.ts is in the unit tier \(\*\.unit\.test\.ts\), which has no .*: rename it to \*\.test\.ts/;

describe('a unit test file', () => {
  it('gets no control plane, even where npm test started one for the cluster tier', () => {
    expect(process.env.TEST_KUBECONFIG).toBeUndefined();
    expect(() => testKubeConfig()).toThrow(moveIt);
    expect(() => testKubeConfig()).toThrow(/no control plane/);
  });

  it('builds and runs no Go tool', async () => {
    expect(() => spawnSync('bash', [join(root, 'test', 'helm', 'build.sh')])).toThrow(/no Go tools or control plane.*build\.sh/);
    await expect(() => promisify(execFile)('bash', [join(root, 'scripts', 'go-tools.sh'), 'lint'])).rejects.toThrow(moveIt);
  });

  it("runs none of the tests' system packages", () => {
    expect(() => spawnSync('/usr/lib/postgresql/17/bin/postgres', ['--version'])).toThrow(/system packages.*postgres --version/);
    expect(() => spawnSync('promtool', ['check', 'rules', 'x.yaml'])).toThrow(moveIt);
  });

  it('still runs other programs, such as Node itself, and promisified execFile still answers { stdout, stderr }', async () => {
    expect(spawnSync(process.execPath, ['-e', 'process.stdout.write("ok")'], { encoding: 'utf8' }).stdout).toBe('ok');
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ['-e', 'process.stdout.write("out"); process.stderr.write("err")']);
    expect([stdout, stderr]).toEqual(['out', 'err']);
  });
});
