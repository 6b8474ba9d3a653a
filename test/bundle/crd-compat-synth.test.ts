import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments, stringify } from 'yaml';
import { crdsOfYaml } from '../../src/bundle/crd-compat/baseline';
import { crdsToWrite } from '../../src/bundle/crd-compat/guard';
import { crdVerdict } from '../../src/bundle/crd-compat/verdict';
import { KINDS } from '../../src/kinds';

const root = join(__dirname, '..', '..');
const env = { ...process.env, PATH: `${join(root, 'node_modules', '.bin')}:${process.env.PATH}` };
const committed = readFileSync(join(root, 'dist', '0-crds.k8s.yaml'), 'utf8');

function synth(...args: string[]) {
  const run = spawnSync('bash', [join(root, 'scripts', 'synth.sh'), ...args], { cwd: root, env, encoding: 'utf8' });
  return { code: run.status, stderr: run.stderr };
}

/** The committed CRDs with `change` made to ExchangeRate's: the release users run, as a baseline file. */
function baselineFile(change: (spec: Record<string, any>) => void): string { // eslint-disable-line @typescript-eslint/no-explicit-any
  const docs = parseAllDocuments(committed).map((doc) => doc.toJS() as Record<string, any>); // eslint-disable-line @typescript-eslint/no-explicit-any
  const exchangeRate = docs.find((doc) => doc.spec?.names?.kind === 'ExchangeRate')!;
  change(exchangeRate.spec.versions[0].schema.openAPIV3Schema.properties.spec);
  const path = join(mkdtempSync(join(tmpdir(), 'crd-baseline-')), 'crds.yaml');
  writeFileSync(path, docs.map((doc) => stringify(doc)).join('---\n'));
  return path;
}

describe('synth\u2019s CRD compatibility check', () => {
  it('passes for the kinds\u2019 current CRDs against the committed dist/', () => {
    expect(crdVerdict(crdsOfYaml(committed, 'dist'), crdsToWrite(KINDS, []), KINDS)).toEqual({ breaks: [], accepted: [] });
  });

  it('fails before anything is written when the CRDs narrow what the baseline allowed, naming the field, the rule and both remedies', () => {
    // The baseline allowed a currency the kind no longer does: to its users, the enum is narrowed.
    const baseline = baselineFile((spec) => spec.properties.base.enum.push('XAU'));
    const out = join(mkdtempSync(join(tmpdir(), 'synth-')), 'out');
    const { code, stderr } = synth(`--crd-baseline=file://${baseline}`, out);
    expect(code).toBe(1);
    expect(stderr).toContain('synth: the CRDs would break what users already store (compared with file://');
    expect(stderr).toContain('synth: ExchangeRate v1 spec.base: enum narrowed: ["XAU"] no longer allowed (rule enum)');
    expect(stderr).toContain("serve a new version with a conversion (olderVersions; docs/evolving-a-kind.md), or declare the break in ExchangeRate's definition: acceptedBreaks: [{ version: 'v1', path: 'spec.base', rule: 'enum', reason: '...' }]");
    expect(existsSync(out)).toBe(false);
  });

  it('names a field the new CRD lost, and compares with nothing when asked to or when the git ref is not there', () => {
    const baseline = baselineFile((spec) => (spec.properties.legacy = { type: 'string', description: 'A field a release had.' }));
    const check = (...args: string[]) => spawnSync(process.execPath, [join(root, 'lib', 'src', 'app.js'), '--check', ...args], { cwd: root, env, encoding: 'utf8' });
    const removed = check(`--crd-baseline=file://${baseline}`);
    expect(removed.status).toBe(1);
    expect(removed.stderr).toContain('synth: ExchangeRate v1 spec.legacy: field removed');
    expect(check('--crd-baseline=none').stderr).toBe('synth: CRD compatibility check skipped: --crd-baseline=none\n');
    const missing = check('--crd-baseline=git://no-such-ref');
    expect(missing.status).toBe(0);
    expect(missing.stderr).toMatch(/^synth: CRD compatibility check skipped: no dist\/0-crds.k8s.yaml at git ref no-such-ref in /);
    expect(check('--crd-baseline=git://HEAD')).toMatchObject({ status: 0, stderr: '' });
    expect(check('--crd-baseline=git://--output=x')).toMatchObject({ status: 1, stderr: 'synth: --crd-baseline: expected git://<ref>, e.g. git://HEAD, got "git://--output=x"\n' });
    expect(check('--crd-baseline=file:///no/such/file')).toMatchObject({ status: 1, stderr: 'synth: --crd-baseline: cannot read /no/such/file: ENOENT\n' });
    expect(check(`--crd-baseline=file://${join(root, 'package.json')}`)).toMatchObject({ status: 1, stderr: `synth: --crd-baseline: ${join(root, 'package.json')} holds no CustomResourceDefinition\n` });
    expect(check('--crd-baseline=kube://cluster').stderr).toBe('synth: --crd-baseline: expected git://<ref>, file://<path> or none, got "kube://cluster"\n');
  });
});
