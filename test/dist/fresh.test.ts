import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

const root = join(__dirname, '..', '..');
const env = { ...process.env, PATH: `${join(root, 'node_modules', '.bin')}:${process.env.PATH}` };

function filesUnder(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (d: string) => {
    for (const entry of readdirSync(d)) {
      const path = join(d, entry);
      if (statSync(path).isDirectory()) walk(path);
      else files.set(relative(dir, path), readFileSync(path, 'utf8'));
    }
  };
  walk(dir);
  return files;
}

function synthesize(): Map<string, string> {
  const out = mkdtempSync(join(tmpdir(), 'synth-'));
  execFileSync('bash', [join(root, 'scripts', 'synth.sh'), out], { cwd: root, env, stdio: 'pipe' });
  return filesUnder(out);
}

describe('dist/', () => {
  it('is what npm run synth writes now, byte for byte, every time (run npm run synth and commit dist/ when this fails)', () => {
    const first = synthesize();
    const second = synthesize();
    expect([...second.keys()].sort()).toEqual([...first.keys()].sort());
    for (const [file, text] of first) expect({ file, text: second.get(file) }).toEqual({ file, text });
    const committed = filesUnder(join(root, 'dist'));
    expect([...committed.keys()].sort()).toEqual([...first.keys()].sort());
    for (const [file, text] of first) expect({ file, text: committed.get(file) }).toEqual({ file, text });
  });

  it('has imports/ generated from its CRDs (run npm run import when this fails)', () => {
    const out = mkdtempSync(join(tmpdir(), 'import-'));
    // The same relative source as cdk8s.yaml's imports entry, which cdk8s import would otherwise append.
    execFileSync('cdk8s', ['import', 'dist/0-crds.k8s.yaml', '--output', out, '--no-check-upgrade'], { cwd: root, env, stdio: 'pipe' });
    const generated = filesUnder(out);
    const committed = filesUnder(join(root, 'imports'));
    expect([...committed.keys()].sort()).toEqual([...generated.keys()].sort());
    for (const [file, text] of generated) expect({ file, text: committed.get(file) }).toEqual({ file, text });
  });

  it('lists every chart for Flux, CRDs first, and no preview', () => {
    expect(readFileSync(join(root, 'dist', 'kustomization.yaml'), 'utf8')).toBe(
      'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - 0-crds.k8s.yaml\n  - 1-operator.k8s.yaml\n  - 2-instances.k8s.yaml\nsortOptions:\n  order: fifo\n',
    );
  });
});
