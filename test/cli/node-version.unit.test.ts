import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const bin = join(__dirname, '..', '..', 'bin', 'cdk8s-operators');
const REQUIRED = 24;
/** The Node the system has beside the one npm installs for the project (Debian's: 20 when written). */
const SYSTEM_NODE = '/usr/bin/node';

const run = (node: string, ...args: string[]) => spawnSync(node, args, { encoding: 'utf8', timeout: 30_000 });
const refusal = (version: string, node: string) => `cdk8s-operators: needs Node ${REQUIRED} or newer; this is Node ${version} (${node})\n`;

describe('the CLI on a Node older than the one it targets', () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'node-version-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('runs on the Node the npm scripts use', () => {
    const result = run(process.execPath, bin, '--help');
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(/^usage: cdk8s-operators <command>/);
    expect(result.status).toBe(0);
  });

  it('refuses at once, in one line naming both versions, exit code 1', () => {
    // Whatever Node this machine has besides: this one says it is 20.
    const preload = join(dir, 'node-20.js');
    writeFileSync(preload, "Object.defineProperty(process.versions, 'node', { value: '20.20.2' });\n");
    const result = run(process.execPath, '--require', preload, bin, '--help');
    expect(result.stderr).toBe(refusal('20.20.2', process.execPath));
    expect(result.stdout).toBe('');
    expect(result.status).toBe(1);
  });

  (existsSync(SYSTEM_NODE) ? it : it.skip)(`refuses the system's own Node (${SYSTEM_NODE}) when it is older, before loading anything that fails there`, () => {
    const version = run(SYSTEM_NODE, '--version').stdout.trim().replace(/^v/, '');
    const result = run(SYSTEM_NODE, bin, '--help');
    if (Number(version.split('.')[0]) >= REQUIRED) {
      expect(result.status).toBe(0);
      return;
    }
    expect(result.stderr).toBe(refusal(version, SYSTEM_NODE));
    expect(result.stdout).toBe('');
    expect(result.status).toBe(1);
  });
});
