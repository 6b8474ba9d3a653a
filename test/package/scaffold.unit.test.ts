import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UserError } from '../../src/core/errors';
import { addKind, init, upgrade } from '../../src/scaffold/project';
import { OWNED_MARKER } from '../../src/scaffold/owned-files';
import { engineRelease } from '../../src/scaffold/release';

// The scaffold's ownership model (projen's): owned files carry a marker line and upgrade rewrites
// them; the user's files, and an owned file whose marker the user deleted, are never rewritten.
const release = engineRelease();
let dir: string;

beforeEach(() => {
  dir = join(mkdtempSync(join(tmpdir(), 'scaffold-')), 'acme');
  init(dir, 'acme-operator', 'Greeting', release, '^0.1.0');
});
afterEach(() => rmSync(join(dir, '..'), { recursive: true, force: true }));

const read = (file: string) => readFileSync(join(dir, file), 'utf8');
/** Whether a file carries the marker in its head, where upgrade looks for it. */
const marked = (file: string) => read(file).split('\n', 3).some((line) => line.includes(OWNED_MARKER));

describe('the scaffold', () => {
  it('writes owned files with the marker, the user\u2019s without, and one example kind', () => {
    for (const owned of ['tsconfig.json', 'jest.config.js', 'src/app.ts', 'src/cli.ts', 'src/kinds/index.ts', 'test/kinds.test.ts', '.ci/run', 'scripts/image.sh']) expect(marked(owned)).toBe(true);
    for (const mine of ['package.json', 'README.md', 'src/identity.ts', 'src/kinds/greeting/index.ts']) expect(marked(mine)).toBe(false);
    expect(JSON.parse(read('package.json')).dependencies).toMatchObject({ 'cdk8s-operators-engine': '^0.1.0', cdk8s: release.pins.cdk8s });
    expect(read('README.md')).toMatch(/npm test .*\n.*npm run synth/);
  });

  it('upgrade rewrites an edited owned file and leaves the user\u2019s files and a taken-over owned file alone', () => {
    writeFileSync(join(dir, 'src/app.ts'), `${read('src/app.ts')}\n// edited\n`);
    writeFileSync(join(dir, 'src/identity.ts'), `${read('src/identity.ts')}\n// mine\n`);
    const taken = read('jest.config.js').split('\n').filter((line) => !line.includes(OWNED_MARKER)).join('\n');
    writeFileSync(join(dir, 'jest.config.js'), taken);
    const { written, left } = upgrade(dir, release);
    expect(read('src/app.ts')).not.toContain('// edited');
    expect(read('src/identity.ts')).toContain('// mine');
    expect(read('jest.config.js')).toBe(taken);
    expect(written).toContain('src/app.ts');
    expect(left).toEqual(['jest.config.js']);
  });

  it('add-kind writes a new kind\u2019s folder and refuses a bad or existing one, naming it', () => {
    const cwd = process.cwd();
    process.chdir(dir);
    try {
      expect(addKind(dir, 'Widget')).toContain('src/kinds/widget/index.ts');
      expect(read('src/kinds/widget/index.ts')).toContain("kind: 'Widget'");
      expect(() => addKind(dir, 'Widget')).toThrow(new UserError('src/kinds/widget exists already'));
      expect(() => addKind(dir, 'widget-thing')).toThrow(/<Kind>: expected an upper-case letter/);
    } finally {
      process.chdir(cwd);
    }
  });

  it('refuses a bad operator name naming --name, and a directory that has a repository already', () => {
    expect(() => init(join(dir, '..', 'other'), 'Acme_Operator', 'Greeting', release, '^0.1.0')).toThrow(/--name: expected lower-case letters/);
    expect(existsSync(join(dir, '..', 'other'))).toBe(false);
    expect(() => init(dir, 'acme-operator', 'Greeting', release, '^0.1.0')).toThrow(/already has a package.json/);
  });
});
