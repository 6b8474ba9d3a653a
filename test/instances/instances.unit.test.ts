import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'cdk8s';
import { UserError } from '../../src/core/errors';
import { loadInstances } from '../../src/gitops/instances';
import { KINDS } from '../../src/kinds';
import { buildApp, exampleInstances, kustomization, loadFromEnvironment, previews } from '../../src/app';
import { KINDS_LISTED, KINDS_WITH_EXAMPLES } from '../support/kinds';

// Reading a team's resources (YAML documents and TypeScript declarations) and refusing bad ones,
// in process; test/instances/synth.unit.test.ts runs the same through npm run synth's script.
const root = join(__dirname, '..', '..');
const fixtures = join(__dirname, 'fixtures');
/** Jest compiles the TypeScript fixtures itself; synth reads them compiled from lib/. */
const loadModule = (file: string) => jest.requireActual(file);

/** A folder of YAML files, as a team would have them; root is the folder, so messages name files like `a.yaml`. */
function folderWith(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'instances-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

function problemsOf(dir: string, base = dir): string[] {
  try {
    loadInstances({ dir, root: base, kinds: KINDS, loadModule });
  } catch (err) {
    if (err instanceof UserError) return [...err.problems];
    throw err;
  }
  throw new Error('expected the instances to be refused');
}

/** A ConfigMap in team-a with `fields` (YAML) beside its metadata. */
const cm = (fields: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, namespace: team-a}\n${fields}\n`;
const er = (name: string, spec: string, namespace = 'team-a') =>
  `apiVersion: operators.brennerm.github.io/v1\nkind: ExchangeRate\nmetadata:\n  name: ${name}\n  namespace: ${namespace}\nspec: ${spec}\n`;

describe('a team\u2019s resources, read from a folder', () => {
  it('reads YAML documents and TypeScript declarations (typed classes from imports/), each with its children', () => {
    const { instances, builtIns } = loadInstances({ dir: join(fixtures, 'typed'), root, kinds: KINDS, loadModule });
    expect(builtIns.map((b) => [b.where, b.object.kind, b.object.metadata.name])).toEqual([['test/instances/fixtures/typed/platform.ts (construct team-x)', 'Namespace', 'team-x']]);
    expect(instances.map((i) => [i.where, i.object.kind, i.object.metadata.namespace, i.object.metadata.name, i.children.length])).toEqual([
      ['test/instances/fixtures/typed/platform.ts (construct quay)', 'RegistryMirror', undefined, 'quay', 7],
      ['test/instances/fixtures/typed/platform.ts (construct les-paul)', 'Guitar', 'team-x', 'les-paul', 0],
      ['test/instances/fixtures/typed/rates.yaml', 'ExchangeRate', 'team-x', 'usd', 1],
    ]);
    expect(instances[2].children[0]).toMatchObject({ kind: 'ConfigMap', metadata: { name: 'usd', namespace: 'team-x' }, data: { base: 'EUR', currency: 'USD' } });
  });

  it('keeps several documents a file, any kind, the original copyrator layout, and subfolders', () => {
    const dir = folderWith({
      'team-a/rates.yaml': `${er('usd', '{currency: USD}')}---\n${er('chf', '{currency: CHF}', 'team-b')}`,
      'copy.yml': 'apiVersion: test.com/v1\nkind: CopyratorRule\nmetadata: {name: shared, namespace: team-a}\nruleType: configmap\nselector: {copyrator: "true"}\n',
      'README.md': 'not a resource: ignored\n',
    });
    const { instances } = loadInstances({ dir, root: dir, kinds: KINDS });
    expect(instances.map((i) => `${i.where}: ${i.object.kind} ${i.object.metadata.namespace}/${i.object.metadata.name}`)).toEqual([
      'copy.yml: CopyratorRule team-a/shared',
      'team-a/rates.yaml (document 1): ExchangeRate team-a/usd',
      'team-a/rates.yaml (document 2): ExchangeRate team-b/chf',
    ]);
  });

  it('keeps the Namespaces and ConfigMaps beside the resources apart, checked, and writes them first, Namespaces before ConfigMaps', () => {
    const dir = folderWith({
      'team-a.yaml': [
        cm('data: {LOG_LEVEL: info, "app.properties": "a=1"}').replace('metadata: {name: settings, namespace: team-a}', 'metadata: {name: settings, namespace: team-a, labels: {copyrator: "true"}}'),
        'apiVersion: v1\nkind: Namespace\nmetadata: {name: team-a, labels: {team: a}}\n',
        er('usd', '{currency: USD}'),
      ].join('---\n'),
    });
    const { instances, builtIns } = loadInstances({ dir, root: dir, kinds: KINDS });
    expect(instances.map((i) => i.where)).toEqual(['team-a.yaml (document 3)']);
    expect(builtIns.map((b) => `${b.where}: ${b.object.kind} ${b.object.metadata.name}`)).toEqual(['team-a.yaml (document 1): ConfigMap settings', 'team-a.yaml (document 2): Namespace team-a']);
    const objects = buildApp(new App(), { instances, builtIns })[2].toJson() as { kind: string; metadata: { annotations: Record<string, string> }; data?: unknown }[];
    expect(objects.map((o) => [o.kind, o.metadata.annotations['argocd.argoproj.io/sync-wave']])).toEqual([['Namespace', '0'], ['ConfigMap', '0'], ['ExchangeRate', '1']]);
    expect(objects[1].data).toEqual({ LOG_LEVEL: 'info', 'app.properties': 'a=1' });
    // A ConfigMap removed from Git is pruned as a resource is; only a Namespace is kept.
    expect(objects[1].metadata.annotations).toEqual({ 'argocd.argoproj.io/sync-wave': '0' });
  });

  it.each([
    ['an invalid spec: the file, the document, the field and what was expected', { 'a.yaml': `${er('usd', '{currency: USD}')}---\n${er('xyz', '{currency: XYZ}')}` }, [
      /^a\.yaml \(document 2\): ExchangeRate xyz is invalid: spec\.currency: must be one of "CAD", .*got "XYZ"$/,
    ]],
    ['a CEL rule (base and currency must differ)', { 'a.yaml': er('eur', '{currency: EUR}') }, ['a.yaml: ExchangeRate eur is invalid: spec.currency: base and currency must differ']],
    ['a CEL rule over the whole object (both copyrator layouts at once)', {
      'c.yaml': 'apiVersion: test.com/v1\nkind: CopyratorRule\nmetadata: {name: r, namespace: team-a}\nruleType: configmap\nspec: {ruleType: configmap, selector: {a: b}}\n',
    }, [/^c\.yaml: CopyratorRule r is invalid: spec: use spec or the top-level fields \(.*\), not both$/]],
    ['a group no kind is served in, with the kinds and groups that exist', { 'db.yaml': 'apiVersion: stable.imaginedata.org/v1\nkind: Database\nmetadata: {name: orders, namespace: team-a}\nspec: {}\n' }, [
      `db.yaml: unknown kind Database in apiVersion stable.imaginedata.org/v1; expected one of ${KINDS_LISTED}, or beside them one of Namespace (v1), ConfigMap (v1)`,
    ]],
    ['a kind that is neither ours nor a Namespace or ConfigMap', { 'pod.yaml': 'apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: team-a}\n' }, [
      `pod.yaml: unknown kind Pod in apiVersion v1; expected one of ${KINDS_LISTED}, or beside them one of Namespace (v1), ConfigMap (v1)`,
    ]],
    ['a Secret, whose values Git would keep for everyone who reads the repository', { 's.yaml': 'apiVersion: v1\nkind: Secret\nmetadata: {name: db, namespace: team-a}\nstringData: {password: hunter2}\n' }, [
      /^s\.yaml: a Secret does not belong in Git: its values .* readable by everyone who can read the repository.*; create it in the cluster \(kubectl create secret\)/,
    ]],
    ['a ConfigMap value that is not a string', { 'c.yaml': cm('data: {port: 5432}') }, ['c.yaml: data.port: expected a string, got 5432; quote it in YAML ("5432")']],
    ['a ConfigMap key the API server refuses', { 'c.yaml': cm('data: {"log level": debug}') }, ['c.yaml: data: key "log level" may hold only letters, digits, "-", "_" and "." (at most 253 characters)']],
    ['binaryData that is not base64', { 'c.yaml': cm('binaryData: {logo.png: "not base64!"}') }, ['c.yaml: binaryData.logo.png: expected base64']],
    ['a field a ConfigMap does not have (a Secret\u2019s stringData)', { 'c.yaml': cm('stringData: {a: b}') }, ['c.yaml: stringData: a ConfigMap has no such field here; expected data, binaryData, immutable']],
    ['a ConfigMap without a namespace', { 'c.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {a: b}\n' }, [
      'c.yaml: metadata.namespace is required: ConfigMap is namespaced, and a GitOps tool would otherwise put it wherever it is pointed',
    ]],
    ['a Namespace with a namespace', { 'ns.yaml': 'apiVersion: v1\nkind: Namespace\nmetadata: {name: team-a, namespace: default}\n' }, [
      'ns.yaml: metadata.namespace: Namespace is cluster-scoped, so it has no namespace; remove namespace "default"',
    ]],
    ['a Namespace name that is no DNS-1123 label', { 'ns.yaml': 'apiVersion: v1\nkind: Namespace\nmetadata: {name: team.a}\n' }, [
      'ns.yaml: metadata.name: a Namespace\'s name must be a DNS-1123 label (lower-case letters, digits and "-", at most 63 characters), got "team.a"',
    ]],
    ['a Namespace without a name', { 'ns.yaml': 'apiVersion: v1\nkind: Namespace\nmetadata: {labels: {team: a}}\n' }, ['ns.yaml: metadata.name is required']],
    ['a Namespace declared twice', { 'a.yaml': 'apiVersion: v1\nkind: Namespace\nmetadata: {name: team-a}\n', 'b.yaml': 'apiVersion: v1\nkind: Namespace\nmetadata: {name: team-a}\n' }, [
      'b.yaml: Namespace team-a is declared twice: here and in a.yaml',
    ]],
    ['the same kind, namespace and name twice, naming both files', { 'a.yaml': er('usd', '{currency: USD}'), 'b.yaml': `${er('gbp', '{currency: GBP}')}---\n${er('usd', '{currency: USD, base: CHF}')}` }, [
      'b.yaml (document 2): ExchangeRate team-a/usd is declared twice: here and in a.yaml',
    ]],
    ['a namespaced kind without a namespace', { 'a.yaml': 'apiVersion: kool.karmalabs.local/v1\nkind: Guitar\nmetadata: {name: g}\nspec: {brand: Fender}\n' }, [
      'a.yaml: metadata.namespace is required: Guitar is namespaced, and a GitOps tool would otherwise put it wherever it is pointed',
    ]],
    ['a cluster-scoped kind with a namespace', { 'a.yaml': 'apiVersion: k8s.osp.tech/v1\nkind: RegistryMirror\nmetadata: {name: hub, namespace: team-a}\nspec: {upstreamUrl: quay.io}\n' }, [
      'a.yaml: metadata.namespace: RegistryMirror is cluster-scoped, so it has no namespace; remove namespace "team-a"',
    ]],
    ['a name the API server refuses', { 'a.yaml': er('US_Dollar', '{currency: USD}') }, [
      'a.yaml: metadata.name: expected a DNS-1123 subdomain (lower-case letters, digits, "-" and ".", at most 253 characters), got "US_Dollar"',
    ]],
    ['a missing name', { 'a.yaml': 'apiVersion: kool.karmalabs.local/v1\nkind: Guitar\nmetadata: {namespace: team-a}\nspec: {brand: x}\n' }, ['a.yaml: metadata.name is required']],
    ['text that is not YAML', { 'a.yaml': 'spec: [unclosed\n' }, [/^a\.yaml is not valid YAML: /]],
  ])('refuses %s', (_what, files, expected) => {
    const problems = problemsOf(folderWith(files));
    expect(problems).toHaveLength(expected.length);
    problems.forEach((problem, i) => expect(problem).toMatch(expected[i]));
  });

  it('lists every problem of every file at once', () => {
    const problems = problemsOf(folderWith({ 'a.yaml': `${er('eur', '{currency: EUR}')}---\n${er('x', '{currency: USD}', '')}`, 'b.yaml': 'apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n' }));
    // In file order, then document order, whatever step found them.
    expect(problems).toEqual([
      'a.yaml (document 1): ExchangeRate eur is invalid: spec.currency: base and currency must differ',
      'a.yaml (document 2): metadata.namespace is required: ExchangeRate is namespaced, and a GitOps tool would otherwise put it wherever it is pointed',
      `b.yaml: unknown kind Pod in apiVersion v1; expected one of ${KINDS_LISTED}, or beside them one of Namespace (v1), ConfigMap (v1)`,
    ]);
  });

  it('refuses TypeScript declarations the API server would refuse (patterns and CEL rules), naming file and construct', () => {
    expect(problemsOf(join(fixtures, 'typed-bad'), root)).toEqual([
      'test/instances/fixtures/typed-bad/no-default.ts: expected `export default function (scope: Construct)` that declares the resources',
      expect.stringMatching(/^test\/instances\/fixtures\/typed-bad\/platform\.ts \(construct hub\): RegistryMirror hub is invalid: spec\.upstreamUrl: must be a registry host .*got "https:\/\/registry-1\.docker\.io\/"$/),
      expect.stringMatching(/^test\/instances\/fixtures\/typed-bad\/platform\.ts \(construct orders\): Database orders is invalid: spec\.backup\.schedule: schedule must be a cron expression/),
    ]);
  });

  it('says when the folder cannot be read', () => {
    expect(problemsOf('/nonexistent/instances', '/')).toEqual([expect.stringMatching(/^cannot read the instances folder nonexistent\/instances: ENOENT/)]);
  });
});

describe('the app built from them', () => {
  const { instances, builtIns } = loadInstances({ dir: join(fixtures, 'typed'), root, kinds: KINDS, loadModule });

  it('puts them in their own chart and wave after the CRDs and the operator, as declared, their namespace first and a wave earlier', () => {
    const charts = buildApp(new App(), { instances, builtIns });
    expect(charts.map((c) => c.node.id)).toEqual(['0-crds', '1-operator', '2-instances']);
    const [namespace, ...objects] = charts[2].toJson() as { kind: string; metadata: { name: string; annotations: Record<string, string> }; spec: unknown }[];
    expect(namespace).toEqual({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'team-x', annotations: { 'argocd.argoproj.io/sync-wave': '0', 'argocd.argoproj.io/sync-options': 'Prune=false', 'kustomize.toolkit.fluxcd.io/prune': 'disabled' } },
    });
    expect(objects.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual(['RegistryMirror/quay', 'Guitar/les-paul', 'ExchangeRate/usd']);
    for (const o of objects) expect(o.metadata.annotations).toEqual({ 'argocd.argoproj.io/sync-wave': '1', 'argocd.argoproj.io/sync-options': 'SkipDryRunOnMissingResource=true' });
    expect(objects[2].spec).toEqual({ currency: 'USD' });
    expect(kustomization(charts)).toBe('apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - 0-crds.k8s.yaml\n  - 1-operator.k8s.yaml\n  - 2-instances.k8s.yaml\nsortOptions:\n  order: fifo\n');
  });

  it('leaves the examples out unless asked for, then adds them in a chart of their own', () => {
    expect(buildApp(new App(), { instances: [] }).map((c) => c.node.id)).toEqual(['0-crds', '1-operator']);
    const charts = buildApp(new App(), { instances, examples: exampleInstances(KINDS) });
    expect(charts.map((c) => c.node.id)).toEqual(['0-crds', '1-operator', '2-instances', '3-examples']);
    expect((charts[3].toJson() as { kind: string }[]).map((o) => o.kind)).toEqual(['Namespace', ...KINDS_WITH_EXAMPLES]);
  });

  it('previews the children of each resource that has any, by namespace, kind and name', () => {
    const files = previews(instances);
    expect([...files.keys()]).toEqual(['_cluster/registrymirrors.quay.yaml', 'team-x/exchangerates.usd.yaml']);
    expect(files.get('team-x/exchangerates.usd.yaml')).toContain('cdk8s-operators.io/owner-name: usd');
  });

  it('accepts a resource in an extra group of its kind, and previews it in a folder named by the group', () => {
    const rule = (group: string) => `apiVersion: ${group}/v1\nkind: CopyratorRule\nmetadata: {name: copy, namespace: team-a}\nspec: {ruleType: configmap, selector: {copyrator: "true"}}\n`;
    const loaded = loadInstances({ dir: folderWith({ 'a.yaml': rule('flant.com'), 'b.yaml': rule('test.com') }), root, kinds: KINDS }).instances;
    expect(loaded.map((i) => `${i.kind.group} ${i.object.metadata.name}`)).toEqual(['flant.com copy', 'test.com copy']);
    const files = previews(loaded.map((i) => ({ ...i, children: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } }] })));
    expect([...files.keys()]).toEqual(['team-a/flant.com/copyrators.copy.yaml', 'team-a/copyrators.copy.yaml']);
    expect(problemsOf(folderWith({ 'a.yaml': rule('flant.com').replace('configmap', 'map') }))).toEqual([expect.stringContaining('a.yaml: CopyratorRule copy is invalid: spec.ruleType')]);
  });

  it('names every group of a kind when an apiVersion is unknown', () => {
    expect(problemsOf(folderWith({ 'a.yaml': 'apiVersion: flant.io/v1\nkind: CopyratorRule\nmetadata: {name: c, namespace: team-a}\n' }))).toEqual([
      expect.stringContaining('CopyratorRule (test.com/v2 or test.com/v1 or flant.com/v2 or flant.com/v1)'),
    ]);
  });

  it('refuses to synthesize a resource in an extra group the install leaves out', () => {
    const dir = folderWith({ 'a.yaml': 'apiVersion: flant.com/v1\nkind: CopyratorRule\nmetadata: {name: c, namespace: team-a}\nspec: {ruleType: configmap, selector: {a: b}}\n' });
    expect(() => loadFromEnvironment({ CDK8S_OPERATORS_INSTANCES: dir }, ['--without-extra-groups', 'copyrators.flant.com'])).toThrow(UserError);
    expect(() => loadFromEnvironment({ CDK8S_OPERATORS_INSTANCES: dir, CDK8S_OPERATORS_WITHOUT_EXTRA_GROUPS: 'copyrators.test.com' })).toThrow(UserError);
    expect(loadFromEnvironment({ CDK8S_OPERATORS_INSTANCES: dir }).instances).toHaveLength(1);
  });

  it('previews a changed child when the spec changes', () => {
    const before = previews(loadInstances({ dir: folderWith({ 'a.yaml': er('usd', '{currency: USD}') }), root, kinds: KINDS }).instances);
    const after = previews(loadInstances({ dir: folderWith({ 'a.yaml': er('usd', '{currency: USD, base: GBP}') }), root, kinds: KINDS }).instances);
    expect(before.get('team-a/exchangerates.usd.yaml')).toContain('base: EUR');
    expect(after.get('team-a/exchangerates.usd.yaml')).toContain('base: GBP');
  });
});
