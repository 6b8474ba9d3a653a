import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '../../src/testing/cluster';
import { startController } from '../support/controller-process';

/** The V8 flags the kernel started a process with. */
const commandLine = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
const args = ['--kubeconfig', process.env.TEST_KUBECONFIG!, '--kinds', 'exchangerates', '--namespace', 'nothing-runs-here', '--leader-election=false', '--http-port', '0', '--metrics-port', '0'];
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'runtime-flags-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the long-running commands start with a small young generation', () => {
  it('re-executes the controller with its V8 flags in the same process', async () => {
    const controller = startController(args, join(dir, 'controller.log'));
    try {
      await eventually('the controller to start', async () => controller.logs().find((l) => l.msg === 'controller starting'));
      expect(commandLine(controller.child.pid!)).toEqual(expect.arrayContaining(['--max-semi-space-size=1', '--heap-growing-percent=50']));
    } finally {
      expect(await controller.stop()).toBe(0);
    }
  });

  it('keeps a size the caller chose', async () => {
    const bin = join(__dirname, '..', '..', 'bin', 'cdk8s-operators');
    const child = spawn(process.execPath, ['--max-semi-space-size=4', bin, 'controller', ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    try {
      await eventually('the controller to start', async () => (out.includes('controller starting') ? true : undefined));
      const flags = commandLine(child.pid!);
      expect(flags).toContain('--max-semi-space-size=4');
      expect(flags).not.toContain('--max-semi-space-size=1');
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
  });
});
