import { PolicyRule } from '../../src/bundle/rbac';
import { controllerOptions } from '../../src/commands/controller-options';
import { commandOptions } from '../../src/commands/command-line';
import { AnyKind } from '../../src/core/contract/kind';
import { KindOptIn, kindOptIns, optInIsOn, optInSynthOptions, optInsTurnedOn } from '../../src/core/contract/opt-ins';
import { childrenOf, defineTestKind } from '../../src/testing/test-kind';
import { TEST_OPERATOR } from '../../src/testing/test-operator';
import { Manifest, testBundle, testHelmChart, thrown } from '../support/test-operator-charts';

/** A kind's opt-in of its own, with spellings no product kind uses. */
const MIRRORING: KindOptIn = {
  name: 'mirroring',
  title: 'ConfigMap mirroring',
  description: 'Let the controller mirror ConfigMaps into every namespace',
  access: 'ConfigMap access',
  synthOption: 'configmap-mirroring',
  helmValue: 'configmapMirroring',
  controllerOption: 'enable-configmap-mirroring',
};

const mirror = defineTestKind('Mirror', {
  render: () => undefined,
  manages: [childrenOf('', 'pods'), { ...childrenOf('', 'configmaps'), optIn: MIRRORING.name }],
  optIns: [MIRRORING],
  controller: { watches: [{ apiGroup: '', resource: 'configmaps', optIn: MIRRORING.name, queries: () => [] }] },
}) as AnyKind;
const KINDS = [mirror];
const IMAGE = 'mirror/controller:1.0.0';

const bundle = (optIns: readonly string[], kinds: readonly AnyKind[] = KINDS): Manifest[] => testBundle({ kinds, optIns, image: IMAGE });
const mirrorRules = (objects: Manifest[]): PolicyRule[] => objects.find((o) => o.kind === 'ClusterRole' && o.metadata.name === TEST_OPERATOR.role('mirrors'))!.rules;
const args = (objects: Manifest[]): string[] => objects.find((o) => o.kind === 'Deployment' && o.metadata.name === 'controller')!.spec.template.spec.containers[0].args;
const chart = (optIns: readonly string[] = [], kinds: readonly AnyKind[] = KINDS) => testHelmChart(kinds, IMAGE, { optIns });

describe("a kind's opt-in", () => {
  it('grants nothing of it and passes no flag unless the install turns it on', () => {
    const off = bundle([]);
    expect(mirrorRules(off).flatMap((r) => r.resources)).not.toContain('configmaps');
    expect(args(off)).not.toContain('--enable-configmap-mirroring');
    const on = bundle(['mirroring']);
    expect(mirrorRules(on)).toContainEqual(expect.objectContaining({ apiGroups: [''], resources: ['configmaps', 'pods'] }));
    expect(args(on)).toContain('--enable-configmap-mirroring');
  });

  it('is synth\u2019s flag, off by default, which turns it on by name', () => {
    expect(optInSynthOptions(KINDS)).toEqual([expect.objectContaining({ name: 'configmap-mirroring', type: 'boolean', default: 'false' })]);
    expect(optInSynthOptions(KINDS)[0].description).toBe('Let the controller mirror ConfigMaps into every namespace: grants it ConfigMap access and runs it with --enable-configmap-mirroring.');
    expect(optInsTurnedOn(KINDS, { 'configmap-mirroring': false })).toEqual([]);
    expect(optInsTurnedOn(KINDS, { 'configmap-mirroring': true })).toEqual(['mirroring']);
  });

  it('is the controller\u2019s switch, described in its help, that turns its permissions and watches on', () => {
    const specs = controllerOptions(KINDS, TEST_OPERATOR.identity);
    let help = '';
    expect(commandOptions('controller', '', specs, ['--help'], {}, (text) => (help = text))).toBeUndefined();
    expect(help.replace(/\s+/g, ' ')).toContain('--enable-configmap-mirroring [boolean] Let the controller mirror ConfigMaps into every namespace; the install must grant it ConfigMap access');
    const off = commandOptions('controller', '', specs, [], {}, () => undefined)!;
    const byFlag = commandOptions('controller', '', specs, ['--enable-configmap-mirroring'], {}, () => undefined)!;
    const byVariable = commandOptions('controller', '', specs, [], { ENABLE_CONFIGMAP_MIRRORING: 'true' }, () => undefined)!;
    expect(optInIsOn(mirror, MIRRORING.name, off)).toBe(false);
    expect(optInIsOn(mirror, MIRRORING.name, byFlag)).toBe(true);
    expect(optInIsOn(mirror, MIRRORING.name, byVariable)).toBe(true);
    expect(optInIsOn(mirror, undefined, off)).toBe(true);
  });

  it('is a Helm value, described by its declaration, that grants its rules and passes its flag', () => {
    const files = chart();
    expect(files.get('values.yaml')).toContain(
      '\n# Let the controller mirror ConfigMaps into every namespace: grants it cluster-wide\n# ConfigMap access and runs it with --enable-configmap-mirroring.\nconfigmapMirroring: false\n',
    );
    expect(chart(['mirroring']).get('values.yaml')).toContain('\nconfigmapMirroring: true\n');
    const schema = JSON.parse(files.get('values.schema.json')!);
    expect(schema.properties.configmapMirroring).toEqual({ type: 'boolean', description: 'Grant ConfigMap access and run the controller with --enable-configmap-mirroring.' });
    expect(schema.required).toContain('configmapMirroring');
    const template = files.get('templates/1-operator.k8s.yaml')!;
    expect(template).toMatch(/\{\{- if \.Values\.configmapMirroring \}\}\n +- --enable-configmap-mirroring\n +\{\{- end \}\}/);
    // The kind's ClusterRole twice: with the opt-in's rules, and without.
    const role = template.slice(template.indexOf('{{- if .Values.configmapMirroring }}\n---'));
    expect(role.indexOf('- configmaps')).toBeLessThan(role.indexOf('{{- else }}'));
    expect(files.get('templates/NOTES.txt')).toContain('ConfigMap mirroring is {{ if .Values.configmapMirroring }}on{{ else }}off{{ end }}; ');
  });

  it('gives an object two opt-ins change a branch for each combination of them', () => {
    const second: KindOptIn = { ...MIRRORING, name: 'pod-mirroring', title: 'Pod mirroring', synthOption: 'pod-mirroring', helmValue: 'podMirroring', controllerOption: 'enable-pod-mirroring' };
    const both = defineTestKind('Both', { render: () => undefined, manages: [{ ...childrenOf('', 'configmaps'), optIn: 'mirroring' }, { ...childrenOf('', 'pods'), optIn: 'pod-mirroring' }], optIns: [MIRRORING, second] }) as AnyKind;
    const template = chart([], [both]).get('templates/1-operator.k8s.yaml')!;
    expect(template).toContain('{{- if and (.Values.configmapMirroring) (.Values.podMirroring) }}');
    expect(template).toContain('{{- else if .Values.configmapMirroring }}');
    expect(template).toContain('{{- else if .Values.podMirroring }}');
  });
});

describe('a bad opt-in declaration', () => {
  it('refuses a permission or watch naming an opt-in its kind does not declare, at build and at the controller\u2019s start', () => {
    const undeclared = defineTestKind('Stray', { render: () => undefined, manages: [{ ...childrenOf('', 'secrets'), optIn: 'secrets' }] }) as AnyKind;
    const message = 'Stray: the permission on secrets names the opt-in "secrets", which the kind does not declare (its optIns: none): add it to the kind\u2019s optIns'.replace('\u2019', "'");
    expect(thrown(() => kindOptIns([undeclared]))).toBe(message);
    expect(thrown(() => bundle([], [undeclared]))).toBe(message);
    expect(thrown(() => controllerOptions([undeclared], TEST_OPERATOR.identity))).toBe(message);
    const watching = defineTestKind('Watcher', { render: () => undefined, optIns: [MIRRORING], controller: { watches: [{ apiGroup: '', resource: 'secrets', optIn: 'secrets' }] } }) as AnyKind;
    expect(thrown(() => kindOptIns([watching]))).toBe('Watcher: the watch of secrets names the opt-in "secrets", which the kind does not declare (its optIns: "mirroring"): add it to the kind\'s optIns');
  });

  it('refuses two kinds spelling different opt-ins alike, and takes one declaration shared', () => {
    const other = (optIn: Partial<KindOptIn>) => defineTestKind('Other', { render: () => undefined, optIns: [{ ...MIRRORING, ...optIn }] }) as AnyKind;
    expect(thrown(() => kindOptIns([mirror, other({ description: 'Let the controller mirror Secrets' })]))).toMatch(/^Mirror and Other declare opt-ins spelled "mirroring" with different meanings/);
    expect(thrown(() => kindOptIns([mirror, other({ name: 'copying' })]))).toMatch(/^Mirror and Other declare opt-ins spelled synth's --configmap-mirroring with different meanings/);
    expect(thrown(() => kindOptIns([mirror, other({ name: 'copying', synthOption: 'copying', controllerOption: 'enable-copying' })]))).toMatch(/spelled the Helm value configmapMirroring with different meanings/);
    expect(thrown(() => kindOptIns([mirror, other({ name: 'copying', synthOption: 'copying', helmValue: 'copying' })]))).toMatch(/spelled the controller's --enable-configmap-mirroring with different meanings/);
    expect(kindOptIns([mirror, other({})])).toEqual([MIRRORING]);
    expect(thrown(() => bundle(['copying']))).toBe('optIns: no kind declares the opt-in "copying" (they declare: "mirroring")');
  });

  it('refuses spellings that are no flag or value name, and names the engine already takes', () => {
    const with_ = (optIn: Partial<KindOptIn>) => [defineTestKind('Odd', { render: () => undefined, optIns: [{ ...MIRRORING, ...optIn }] }) as AnyKind];
    expect(thrown(() => kindOptIns(with_({ helmValue: 'x }}{{ .Values.image' })))).toBe('Odd: the opt-in "mirroring" has the helmValue "x }}{{ .Values.image": expected a camelCase name (letters and digits, a lowercase letter first)');
    expect(thrown(() => kindOptIns(with_({ synthOption: '--Mirror' })))).toMatch(/^Odd: the opt-in "mirroring" has the synthOption "--Mirror": expected kebab-case/);
    expect(thrown(() => controllerOptions(with_({ controllerOption: 'sharding' }), TEST_OPERATOR.identity))).toMatch(/--sharding is declared twice/);
    expect(thrown(() => chart([], with_({ helmValue: 'sharding' })))).toBe(
      'helm: the value sharding of the opt-in "mirroring" is taken by the engine: give it another helmValue',
    );
  });
});
