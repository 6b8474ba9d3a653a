import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';

// The real CLI as a user runs it (`npx cdk8s-operators render -f ...`); `npm test` builds lib/ first.
const bin = join(__dirname, '..', '..', 'bin', 'cdk8s-operators');
const dir = mkdtempSync(join(tmpdir(), 'render-'));

function render(file: string, input?: string) {
  const result = spawnSync(process.execPath, [bin, 'render', '-f', file], { input, encoding: 'utf8' });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr.trim() };
}

function fileWith(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const exchangeRate = (spec: string, name = 'chf') =>
  `apiVersion: operators.brennerm.github.io/v1\nkind: ExchangeRate\nmetadata:\n  name: ${name}\n  namespace: team-a\nspec: ${spec}\n`;

describe('cdk8s-operators render', () => {
  it('prints the children of each resource in a file', () => {
    const path = fileWith('two.yaml', `${exchangeRate('{currency: CHF}')}---\n${exchangeRate('{currency: USD, configMapName: dollars}', 'usd')}`);
    const { code, stdout, stderr } = render(path);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    const children = parseAllDocuments(stdout).map((d) => d.toJS());
    expect(children.map((c) => `${c.kind}/${c.metadata.namespace}/${c.metadata.name}`)).toEqual(['ConfigMap/team-a/chf', 'ConfigMap/team-a/dollars']);
    expect(children[1].data).toEqual({ base: 'EUR', currency: 'USD' });
  });

  it('renders a file of src/instances/ as it is: the Namespace and ConfigMap beside the resources have no children', () => {
    const { code, stdout, stderr } = render(join(__dirname, '..', '..', 'src', 'instances', 'team-a.yaml'));
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    const children = parseAllDocuments(stdout).map((d) => d.toJS());
    expect(children.map((c) => `${c.kind}/${c.metadata.name}`)).toEqual(['ConfigMap/usd', 'ConfigMap/swiss-franc']);
  });

  it('reads standard input with -f -', () => {
    const { code, stdout } = render('-', exchangeRate('{currency: JPY}'));
    expect(code).toBe(0);
    expect(stdout).toContain('currency: JPY');
  });

  it.each([
    ['text that is not YAML', 'spec: [unclosed\n', /standard input is not valid YAML: .*line 2, column 1$/],
    ['a YAML list instead of an object', '- a\n- b\n', /expected a Kubernetes object \(a YAML mapping\), got a list$/],
    ['an unknown kind', 'apiVersion: v1\nkind: Pod\nmetadata: {name: x}\n', /unknown kind Pod in apiVersion v1; expected one of ExchangeRate \(operators\.brennerm\.github\.io\/v1\)/],
    ['a group no kind is served in', 'apiVersion: stable.imaginedata.org/v1\nkind: Database\nmetadata: {name: x}\n', /unknown kind Database in apiVersion stable\.imaginedata\.org\/v1; .*Database \(stable\.imaginedata\.com\/v2 or stable\.imaginedata\.com\/v1 or stable\.imaginedata\.co\/v2 or stable\.imaginedata\.co\/v1\)/],
    ['an invalid spec', exchangeRate('{currency: XYZ}'), /ExchangeRate chf is invalid: spec\.currency: must be one of "CAD", .*got "XYZ"$/],
    ['a missing spec field', exchangeRate('{base: USD}'), /ExchangeRate chf is invalid: spec\.currency: is required$/],
    ['a missing name', 'apiVersion: kool.karmalabs.local/v1\nkind: Guitar\nmetadata: {}\nspec: {brand: x}\n', /metadata\.name is required$/],
  ])('rejects %s with one line and exit code 1', (_what, input, message) => {
    const { code, stdout, stderr } = render('-', input);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr.split('\n')).toHaveLength(1);
    expect(stderr).toMatch(/^cdk8s-operators render: /);
    expect(stderr).toMatch(message);
  });

  it('renders a resource in an extra group of its kind, its children owned by that group', () => {
    const rule = 'apiVersion: flant.com/v1\nkind: CopyratorRule\nmetadata: {name: r, namespace: team-a}\nruleType: configmap\nselector: {copyrator: "true"}\n';
    const { code, stderr } = render('-', rule);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    const database = 'apiVersion: stable.imaginedata.co/v1\nkind: Database\nmetadata: {name: my-first-crd-database, namespace: default}\nspec: {name: name-of-database, port: 5432, storage-size: 50G, image: super-great-docker-image, replicas: 3}\n';
    const rendered = render('-', database);
    expect({ code: rendered.code, stderr: rendered.stderr }).toEqual({ code: 0, stderr: '' });
    const children = parseAllDocuments(rendered.stdout).map((d) => d.toJS());
    expect(children.length).toBeGreaterThan(3);
    for (const child of children) expect(child.metadata.labels['cdk8s-operators.io/owner-kind']).toBe('databases.stable.imaginedata.co');
  });

  it('names the document that is wrong in a multi-document file', () => {
    const path = fileWith('second-bad.yaml', `${exchangeRate('{currency: CHF}')}---\n${exchangeRate('{currency: CHF, refreshInterval: 10s}')}`);
    const { code, stderr } = render(path);
    expect(code).toBe(1);
    expect(stderr).toBe(`cdk8s-operators render: ${path} (document 2): ExchangeRate chf is invalid: spec.refreshInterval: refreshInterval must be at least 60s`);
  });

  it('says which file it cannot read', () => {
    const { code, stderr } = render(join(dir, 'missing.yaml'));
    expect(code).toBe(1);
    expect(stderr).toMatch(/^cdk8s-operators render: cannot read .*missing\.yaml: ENOENT/);
  });

  it('asks for -f, rejects unknown commands and flags, and lists every command in --help', () => {
    const run = (...args: string[]) => {
      const result = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8' });
      return [result.status, result.stderr.trim()];
    };
    expect(run('render')).toEqual([1, 'cdk8s-operators render: needs -f <file> (or -f - for standard input)']);
    expect(run('render', '-f')).toEqual([1, 'cdk8s-operators render: --file: missing value']);
    expect(run('render', '--file=x.yaml', '--bogus')).toEqual([1, 'cdk8s-operators render: unknown flag --bogus; see --help']);
    expect(run('deploy')).toEqual([1, 'cdk8s-operators: unknown command "deploy"; see cdk8s-operators --help']);
    expect(run('rendr')).toEqual([1, 'cdk8s-operators: unknown command "rendr" (did you mean render?); see cdk8s-operators --help']);
    expect(run('--verbose')).toEqual([1, 'cdk8s-operators: unknown flag --verbose; see cdk8s-operators --help']);
    const help = spawnSync(process.execPath, [bin, '--help'], { encoding: 'utf8' });
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^usage: cdk8s-operators <command> \[options\]\n/);
    for (const command of ['controller', 'render', 'diff', 'ui']) expect(help.stdout).toMatch(new RegExp(`\\n  ${command} +\\S`));
    const renderHelp = spawnSync(process.execPath, [bin, 'render', '--help'], { encoding: 'utf8' });
    expect([renderHelp.status, renderHelp.stdout]).toEqual([0, expect.stringContaining('-f, --file <file>')]);
  });
});
