import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hostProgram } from '../support/image';

// The build's own bad inputs; each fails before buildah runs, so they are quick and touch no build/image/.
const root = join(__dirname, '..', '..');
const build = join(root, 'scripts', 'image', 'build.sh');
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'image-errors-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function runBuild(env: Record<string, string>): { status: number | null; stderr: string } {
  const result = spawnSync(hostProgram('bash')!, [build, join(dir, 'out')], { cwd: root, env: { ...process.env, ...env }, encoding: 'utf8', timeout: 60_000 });
  return { status: result.status, stderr: result.stderr };
}

function packagesWith(edit: (lines: string[]) => string[]): string {
  const file = join(dir, `packages-${Math.random().toString(36).slice(2)}.txt`);
  writeFileSync(file, edit(readFileSync(join(root, 'scripts', 'image', 'packages.txt'), 'utf8').split('\n')).join('\n'));
  return file;
}

describe('npm run image refuses', () => {
  it('to run without buildah, saying how to install it', () => {
    // A PATH holding only what the script needs before it looks for buildah.
    const bin = join(dir, 'bin');
    spawnSync('mkdir', ['-p', bin]);
    for (const tool of ['dirname', 'mkdir']) symlinkSync(hostProgram(tool)!, join(bin, tool));
    const result = runBuild({ PATH: bin });
    expect(result).toEqual({ status: 1, stderr: "image: buildah is missing; the build needs buildah, dpkg-deb and apt-get (apt-get install -y buildah on Debian; CI's .ci/run installs it)\n" });
  });

  it('a .deb whose sha256 is not the one pinned, naming the package and both sums', () => {
    const wrong = 'f'.repeat(64);
    const file = packagesWith((lines) => lines.map((l) => (l.startsWith('libc6 ') ? l.replace(/\S+$/, wrong) : l)));
    const result = runBuild({ IMAGE_PACKAGES: file });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(new RegExp(`^image: libc6 2\\.36-9\\+deb12u14: the \\.deb's sha256 is [0-9a-f]{64}, but ${file} pins ${wrong}\\n$`));
  });

  it('a pin without a proper sha256', () => {
    const file = packagesWith((lines) => lines.map((l) => (l.startsWith('libgcc-s1 ') ? 'libgcc-s1 12.2.0-14+deb12u1' : l)));
    expect(runBuild({ IMAGE_PACKAGES: file })).toEqual({ status: 1, stderr: `image: ${file}: the sha256 of libgcc-s1 must be 64 hex digits, got ''\n` });
  });

  it('a package list that does not exist', () => {
    expect(runBuild({ IMAGE_PACKAGES: join(dir, 'nope.txt') })).toEqual({ status: 1, stderr: `image: the package list ${join(dir, 'nope.txt')} does not exist\n` });
  });
});
