import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { answerConversionReview } from '../../src/core/conversion-review';
import { KubeJson } from '../../src/core/contract/kube-json';
import { KINDS } from '../../src/kinds';

// npm run synth's script as a team runs it, on folders of resources other than src/instances/.
const root = join(__dirname, '..', '..');
const env = { ...process.env, PATH: `${join(root, 'node_modules', '.bin')}:${process.env.PATH}` };

function synth(...args: string[]) {
  const result = spawnSync('bash', [join(root, 'scripts', 'synth.sh'), ...args], { cwd: root, env, encoding: 'utf8' });
  return { code: result.status, stderr: result.stderr.trim() };
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => statSync(join(dir, f)).isFile())
    .map((f) => relative(dir, join(dir, f)))
    .sort();
}

type Crd = { spec: { group: string; names: { kind: string }; versions: { name: string; storage: boolean }[] } };

/** The object without the sync waves' annotations synth adds (argocd.argoproj.io/...). */
function withoutSyncAnnotations(o: KubeJson): KubeJson {
  const annotations = Object.fromEntries(Object.entries(o.metadata.annotations ?? {}).filter(([key]) => !key.startsWith('argocd.argoproj.io/')));
  const { annotations: _all, ...metadata } = o.metadata;
  return { ...o, metadata: Object.keys(annotations).length ? { ...metadata, annotations } : metadata };
}

const kindsIn = (path: string) => parseAllDocuments(readFileSync(path, 'utf8')).map((d) => `${d.toJS().kind}/${d.toJS().metadata.name}`);
const er = (name: string, spec: string) => `apiVersion: operators.brennerm.github.io/v1\nkind: ExchangeRate\nmetadata: {name: ${name}, namespace: team-a}\nspec: ${spec}\n`;

describe('npm run synth with a team\u2019s resources', () => {
  it('writes YAML and TypeScript resources into their own wave, the kustomization and previews, not into Helm', () => {
    const out = mkdtempSync(join(tmpdir(), 'synth-typed-'));
    expect(synth('--instances', join(__dirname, 'fixtures', 'typed'), '--output', out)).toEqual({ code: 0, stderr: '' });
    expect(filesUnder(out).filter((f) => !f.startsWith('helm/'))).toEqual([
      '0-crds.k8s.yaml',
      '1-operator.k8s.yaml',
      '2-instances.k8s.yaml',
      // The release notes of the CRDs' declared breaks (the Database's pinned default image).
      'CHANGES-crds.md',
      'argocd/argocd-cm-health.yaml',
      'kustomization.yaml',
      'monitoring/grafana-dashboard.json',
      'monitoring/kustomization.yaml',
      'monitoring/prometheus-rule.yaml',
      'monitoring/rules.yaml',
      'monitoring/service-monitor.yaml',
      'preview/_cluster/registrymirrors.quay.yaml',
      'preview/team-x/exchangerates.usd.yaml',
    ]);
    expect(kindsIn(join(out, '2-instances.k8s.yaml'))).toEqual(['Namespace/team-x', 'RegistryMirror/quay', 'Guitar/les-paul', 'ExchangeRate/usd']);
    expect(readFileSync(join(out, 'kustomization.yaml'), 'utf8')).toContain('  - 2-instances.k8s.yaml\n');
    expect(readdirSync(join(out, 'helm', 'templates')).sort()).toEqual(['0-crds.k8s.yaml', '1-operator.k8s.yaml', 'NOTES.txt', 'monitoring.yaml']);
  });

  it('puts them (and the examples, when asked for) into the Helm chart with --helm-instances and --examples', () => {
    const out = mkdtempSync(join(tmpdir(), 'synth-helm-'));
    expect(synth('--instances', join(__dirname, 'fixtures', 'typed'), '--output', out, '--helm-instances', '--examples')).toEqual({ code: 0, stderr: '' });
    expect(readdirSync(join(out, 'helm', 'templates')).sort()).toEqual(['0-crds.k8s.yaml', '1-operator.k8s.yaml', '2-instances.k8s.yaml', '3-examples.k8s.yaml', 'NOTES.txt', 'monitoring.yaml']);
    expect(readFileSync(join(out, 'kustomization.yaml'), 'utf8')).toContain('  - 2-instances.k8s.yaml\n  - 3-examples.k8s.yaml\n');
    expect(kindsIn(join(out, '3-examples.k8s.yaml'))[0]).toBe('Namespace/operator-examples');
    expect(filesUnder(out)).toContain('preview/operator-examples/exchangerates.usd.yaml');
  });

  it('writes every resource in the version its CRD stores, as the controller\u2019s conversion webhook answers for it, whatever version it was written in', () => {
    const instances = mkdtempSync(join(tmpdir(), 'synth-versions-'));
    const written = [
      'apiVersion: test.com/v1\nkind: CopyratorRule\nmetadata: {name: top-level, namespace: team-a}\nruleType: configmap\nselector: {copyrator: "true"}\n',
      'apiVersion: flant.com/v1\nkind: CopyratorRule\nmetadata: {name: other-group, namespace: team-a}\nspec: {ruleType: configmap, selector: {copyrator: "true"}}\n',
      'apiVersion: stable.imaginedata.com/v1\nkind: Database\nmetadata: {name: orders, namespace: team-a}\nspec: {name: orders, port: 5432, storage-size: 1Gi, image: "postgres:17", replicas: 1}\n',
      er('usd', '{currency: USD}'),
    ];
    writeFileSync(join(instances, 'resources.yaml'), written.join('---\n'));
    const out = mkdtempSync(join(tmpdir(), 'synth-versions-out-'));
    expect(synth('--instances', instances, '--output', out)).toEqual({ code: 0, stderr: '' });
    const crds = parseAllDocuments(readFileSync(join(out, '0-crds.k8s.yaml'), 'utf8')).map((d) => d.toJS() as Crd);
    const stored = (group: string, kind: string) => {
      const crd = crds.find((c) => c.spec.group === group && c.spec.names.kind === kind)!;
      return `${group}/${crd.spec.versions.find((v) => v.storage)!.name}`;
    };
    const synthesized = parseAllDocuments(readFileSync(join(out, '2-instances.k8s.yaml'), 'utf8')).map((d) => d.toJS() as KubeJson);
    const declared = written.map((text) => parseAllDocuments(text)[0].toJS() as KubeJson);
    expect(synthesized.map((o) => `${o.kind} ${o.apiVersion}`)).toEqual(declared.map((o) => `${o.kind} ${stored(o.apiVersion.split('/')[0], o.kind)}`));
    declared.forEach((object, i) => {
      const desiredAPIVersion = stored(object.apiVersion.split('/')[0], object.kind);
      const answer = answerConversionReview(KINDS, { apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', request: { uid: 'synth', desiredAPIVersion, objects: [object] } });
      expect(answer.response.result).toEqual({ status: 'Success' });
      expect(withoutSyncAnnotations(synthesized[i])).toEqual(answer.response.convertedObjects[0]);
    });
    // What the team wrote stays as written.
    expect(readFileSync(join(instances, 'resources.yaml'), 'utf8')).toBe(written.join('---\n'));
  });

  it('synthesizes the shipped sample set beside the examples without a clash', () => {
    const out = mkdtempSync(join(tmpdir(), 'synth-sample-'));
    // Nothing to say either of previews: every kind with an observer renders its own with a sample observation.
    expect(synth('--examples', '--output', out)).toEqual({ code: 0, stderr: '' });
    expect(readFileSync(join(out, '2-instances.k8s.yaml'), 'utf8')).toBe(readFileSync(join(root, 'dist', '2-instances.k8s.yaml'), 'utf8'));
  });

  it('refuses a bad resource, says where and why, and writes nothing', () => {
    const instances = mkdtempSync(join(tmpdir(), 'synth-bad-'));
    writeFileSync(join(instances, 'a.yaml'), `${er('usd', '{currency: USD}')}---\n${er('chf', '{currency: CHF, refreshInterval: 10s}')}`);
    writeFileSync(join(instances, 'b.yaml'), er('usd', '{currency: USD}'));
    const out = mkdtempSync(join(tmpdir(), 'synth-kept-'));
    writeFileSync(join(out, 'kustomization.yaml'), 'what was there before\n');
    const { code, stderr } = synth('--instances', instances, '--output', out);
    expect(code).toBe(1);
    expect(stderr.split('\n')).toEqual([
      `synth: ${join(instances, 'a.yaml')} (document 2): ExchangeRate chf is invalid: spec.refreshInterval: refreshInterval must be at least 60s`,
      `synth: ${join(instances, 'b.yaml')}: ExchangeRate team-a/usd is declared twice: here and in ${join(instances, 'a.yaml')} (document 1)`,
    ]);
    expect(filesUnder(out)).toEqual(['kustomization.yaml']);
    expect(readFileSync(join(out, 'kustomization.yaml'), 'utf8')).toBe('what was there before\n');
  });

  it('changes a preview when a spec changes, and removes it with its resource', () => {
    const instances = mkdtempSync(join(tmpdir(), 'synth-change-'));
    const out = mkdtempSync(join(tmpdir(), 'synth-change-out-'));
    writeFileSync(join(instances, 'rates.yaml'), `${er('usd', '{currency: USD}')}---\n${er('chf', '{currency: CHF}')}`);
    expect(synth('--instances', instances, '--output', out).code).toBe(0);
    const before = readFileSync(join(out, 'preview', 'team-a', 'exchangerates.usd.yaml'), 'utf8');
    expect(before).toContain('base: EUR');

    writeFileSync(join(instances, 'rates.yaml'), er('usd', '{currency: USD, base: GBP}'));
    expect(synth('--instances', instances, '--output', out).code).toBe(0);
    // The sampled rate follows the pair too.
    expect(readFileSync(join(out, 'preview', 'team-a', 'exchangerates.usd.yaml'), 'utf8')).toBe(before.replace('base: EUR', 'base: GBP').replace('rate: "1.04"', 'rate: "1.253"'));
    expect(existsSync(join(out, 'preview', 'team-a', 'exchangerates.chf.yaml'))).toBe(false);
    expect(kindsIn(join(out, '2-instances.k8s.yaml'))).toEqual(['ExchangeRate/usd']);
  });

  it('leaves extra API groups out with --without-extra-groups: its CRD, RBAC and health check; the controller is told; a wrong one is refused', () => {
    const out = mkdtempSync(join(tmpdir(), 'synth-groups-'));
    const empty = mkdtempSync(join(tmpdir(), 'synth-groups-in-'));
    expect(synth('--instances', empty, '--output', out, '--without-extra-groups', 'copyrators.flant.com,databases.stable.imaginedata.co')).toEqual({ code: 0, stderr: '' });
    const crds = kindsIn(join(out, '0-crds.k8s.yaml'));
    expect(crds).toContain('CustomResourceDefinition/copyrators.test.com');
    expect(crds.filter((c) => c.endsWith('flant.com') || c.endsWith('imaginedata.co'))).toEqual([]);
    const operator = readFileSync(join(out, '1-operator.k8s.yaml'), 'utf8');
    expect(operator).not.toMatch(/- flant\.com\n|cdk8s-operators:copyrators\.flant\.com/);
    expect(operator).toContain('--without-extra-groups=copyrators.flant.com,databases.stable.imaginedata.co');
    expect(readFileSync(join(out, 'argocd', 'argocd-cm-health.yaml'), 'utf8')).not.toContain('flant.com_CopyratorRule');
    // The chart still holds every group, and leaves these out by default.
    expect(readFileSync(join(out, 'helm', 'values.yaml'), 'utf8')).toContain('withoutExtraGroups: ["copyrators.flant.com","databases.stable.imaginedata.co"]');
    expect(readFileSync(join(out, 'helm', 'templates', '0-crds.k8s.yaml'), 'utf8')).toContain('name: copyrators.flant.com');

    expect(synth('--instances', empty, '--output', out, '--without-extra-groups', 'copyrators.test.com')).toEqual({
      code: 1,
      stderr: 'synth: --without-extra-groups: copyrators.test.com is a main group, which cannot be left out (--kinds leaves out a whole kind); unknown extra group(s) copyrators.test.com; expected some of copyrators.flant.com, databases.stable.imaginedata.co',
    });
  });

  it('explains its flags and refuses unknown ones and a missing folder', () => {
    expect(spawnSync('bash', [join(root, 'scripts', 'synth.sh'), '--help'], { encoding: 'utf8' }).stdout).toContain('--helm-instances');
    expect(synth('--bogus')).toEqual({ code: 1, stderr: 'synth: unknown flag --bogus; see --help' });
    expect(synth('--secret-copy=yes')).toEqual({ code: 1, stderr: 'synth: --secret-copy: expected true or false, got "yes"' });
    expect(synth('a', 'b')).toEqual({ code: 1, stderr: 'synth: unexpected argument "b": options are written --name=value (see --help)' });
    expect(synth('--instances', '/nonexistent/folder', '--output', mkdtempSync(join(tmpdir(), 'synth-none-')))).toEqual({
      code: 1,
      stderr: "synth: cannot read the instances folder /nonexistent/folder: ENOENT: no such file or directory, scandir '/nonexistent/folder'",
    });
  });
});
