import { ApiObject } from 'cdk8s';
import { controllerOptions } from '../../src/commands/controller-options';
import { AnyKind } from '../../src/core/contract/kind';
import { kindCompanions } from '../../src/core/contract/companion';
import { ChartCompanion } from '../../src/engine/helm';
import { defineTestKind } from '../../src/testing/test-kind';
import { TEST_OPERATOR } from '../../src/testing/test-operator';
import { Manifest, testBundle, testHelmChart, thrown } from '../support/test-operator-charts';

/** A companion of a test kind's own: one ConfigMap beside the controller, holding a message from the values. */
function noticeBoard(key = 'notice', title = 'the notice board'): ChartCompanion<{ message: string }> {
  return {
    key,
    title,
    comment: ['A ConfigMap beside the controller with a message for whoever reads it.'],
    defaults: { message: 'hello' },
    valuesYaml: (values) => `  # What the ConfigMap says.\n  message: ${values.message as string}`,
    schema: { properties: { message: { type: 'string', minLength: 1, description: 'What the ConfigMap says.' } } },
    companion: (options) => (bundle, where) => {
      new ApiObject(bundle, `companion-${key}`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: key, namespace: where.namespace }, data: { message: options?.message ?? 'hello' } });
    },
    modes: () => [],
    notes: (namespace) => `  kubectl -n ${namespace} get configmap/${key}   # the notice\n`,
  };
}

const NOTICE = noticeBoard();
const board = defineTestKind('Board', { render: () => undefined, companions: () => [NOTICE] }) as AnyKind;
const pin = defineTestKind('Pin', { render: () => undefined }) as AnyKind;
const IMAGE = 'board/controller:1.0.0';

const bundle = (kinds: readonly AnyKind[]): Manifest[] => testBundle({ kinds, image: IMAGE });
const notices = (objects: Manifest[]) => objects.filter((o) => o.kind === 'ConfigMap' && o.metadata.name === 'notice');
const chart = (kinds: readonly AnyKind[], companions?: readonly ChartCompanion[]) => testHelmChart(kinds, IMAGE, { companions });

describe("a kind's companion", () => {
  it('is installed beside the controller where its kind is served, and not where the kind is left out', () => {
    const served = notices(bundle([board, pin]));
    expect(served).toEqual([{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'notice', namespace: TEST_OPERATOR.identity.namespace }, data: { message: 'hello' } }]);
    expect(notices(bundle([pin]))).toEqual([]);
  });

  it('is declared by a function that the controller never calls, and that synth calls once', () => {
    let calls = 0;
    const declare = () => {
      calls += 1;
      return [NOTICE];
    };
    const lazy = defineTestKind('Lazy', { render: () => undefined, companions: declare }) as AnyKind;
    controllerOptions([lazy, pin], TEST_OPERATOR.identity);
    expect(calls).toBe(0);
    bundle([lazy]);
    chart([lazy, pin]);
    expect(calls).toBe(1);
  });

  it('gets its values, schema and notes in the Helm chart, and its objects go with its kind', () => {
    const files = chart([board, pin]);
    expect(files.get('values.yaml')).toContain('\n# A ConfigMap beside the controller with a message for whoever reads it.\nnotice:\n  enabled: true\n  # What the ConfigMap says.\n  message: hello\n');
    expect(files.get('values.yaml')).toContain('the notice board runs the same image');
    const schema = JSON.parse(files.get('values.schema.json')!);
    expect(schema.properties.notice).toEqual({
      type: 'object',
      additionalProperties: false,
      required: ['enabled', 'message'],
      properties: { enabled: { type: 'boolean', description: 'The notice board.' }, message: { type: 'string', minLength: 1, description: 'What the ConfigMap says.' } },
    });
    expect(schema.required).toContain('notice');
    expect(files.get('templates/NOTES.txt')).toContain('{{- if and .Values.notice.enabled (or (empty .Values.kinds) (has "boards" .Values.kinds)) }}\n  kubectl -n cdk8s-operators get configmap/notice   # the notice\n{{- end }}\n');
    const template = files.get('templates/1-operator.k8s.yaml')!;
    expect(template).toContain('{{- if and (or (empty .Values.kinds) (has "boards" .Values.kinds)) (.Values.notice.enabled) }}\n---\napiVersion: v1\nkind: ConfigMap\n');
    // An operator without the kind has no notice values.
    expect(chart([pin]).get('values.yaml')).not.toContain('notice');
  });

  it('counts once when two kinds declare the same one, and goes with either of them', () => {
    const shelf = defineTestKind('Shelf', { render: () => undefined, companions: () => [NOTICE] }) as AnyKind;
    expect(kindCompanions([board, shelf])).toEqual([NOTICE]);
    expect(notices(bundle([board, shelf]))).toHaveLength(1);
    expect(notices(bundle([shelf, pin]))).toHaveLength(1);
    const files = chart([board, shelf, pin]);
    expect(files.get('values.yaml')!.match(/^notice:$/gm)).toHaveLength(1);
    expect(files.get('templates/NOTES.txt')).toContain('{{- if and .Values.notice.enabled (or (empty .Values.kinds) (has "boards" .Values.kinds) (has "shelfs" .Values.kinds)) }}');
    expect(files.get('templates/1-operator.k8s.yaml')).toContain('{{- if and (or (empty .Values.kinds) (has "boards" .Values.kinds) (has "shelfs" .Values.kinds)) (.Values.notice.enabled) }}\n---\napiVersion: v1\nkind: ConfigMap\n');
  });

  it('still comes from an app that lists it itself (kept for compatibility), once when its kind declares it too', () => {
    const listed = noticeBoard('banner', 'the banner');
    const files = chart([pin], [listed]);
    expect(files.get('values.yaml')).toContain('\nbanner:\n  enabled: true\n');
    expect(files.get('templates/NOTES.txt')).toContain('{{- if and .Values.banner.enabled true }}');
    expect(chart([board], [NOTICE]).get('values.yaml')!.match(/^notice:$/gm)).toHaveLength(1);
  });
});

describe('a bad companion declaration', () => {
  it('refuses two different companions with one key, naming both kinds and the key', () => {
    const rival = defineTestKind('Rival', { render: () => undefined, companions: () => [noticeBoard('notice', 'the rival notice')] }) as AnyKind;
    const message = 'Board and Rival declare companions keyed "notice" (the notice board; the rival notice): give one of them another key, or declare the same companion (one object) in both';
    expect(thrown(() => kindCompanions([board, rival]))).toBe(message);
    expect(thrown(() => bundle([board, rival]))).toBe(message);
    expect(thrown(() => chart([board, rival]))).toBe(message);
    const doubleBoard = defineTestKind('DoubleBoard', { render: () => undefined, companions: () => [noticeBoard(), noticeBoard('notice', 'another notice')] }) as AnyKind;
    expect(thrown(() => kindCompanions([doubleBoard]))).toMatch(/^DoubleBoard declares two companions keyed "notice" \(the notice board; another notice\)/);
    expect(thrown(() => chart([board], [noticeBoard('notice', 'the app\u2019s notice')]))).toBe(
      'two companions are keyed "notice" (the notice board, declared by Board; the app\u2019s notice, which the app lists): give one of them another key, or let one kind declare it alone',
    );
  });

  it('refuses a key that is no value name, or one the engine takes', () => {
    const keyed = (key: string) => defineTestKind('Keyed', { render: () => undefined, companions: () => [noticeBoard(key)] }) as AnyKind;
    expect(thrown(() => kindCompanions([keyed('x }}{{ .Values.image')]))).toBe('Keyed: the companion the notice board has the key "x }}{{ .Values.image": expected a camelCase name (letters and digits, a lowercase letter first)');
    expect(thrown(() => chart([keyed('sharding')]))).toBe('helm: the value sharding of the companion the notice board is taken by the engine: give it another key');
  });
});
