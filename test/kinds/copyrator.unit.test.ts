import { validateResource } from '../../src/core/contract/validation';
import { previewChildren, renderChildren } from '../../src/core/render';
import { KubeJson } from '../../src/core/contract/kind';
import { convertObject } from '../../src/core/contract/versions';
import { ACCEPT_FROM_ANNOTATION, ALLOWED_NAMESPACES_ANNOTATION, COPIED_FROM_ANNOTATION, CopyratorSpec, CopyratorSpecV1, copyratorKind, isSealed, mayCopy, mayWriteInto, namedIn, SourceObject, sourceNamespaces, targetNamespaces } from '../../src/kinds/copyrator';

const rule = { apiVersion: 'test.com/v1', kind: 'CopyratorRule', metadata: { name: 'shared', namespace: 'src' }, spec: { ruleType: 'configmap', selector: { copyrator: 'true' } } };
const configMap = (name: string, extra: Partial<SourceObject> = {}): SourceObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'src', labels: { copyrator: 'true', team: 'a' }, annotations: { note: 'keep me' } },
  data: { key: 'value' },
  ...extra,
});

describe('CopyratorRule copies', () => {
  it('copies every source into every target, keeping data, labels and annotations but no identity', () => {
    const copies = renderChildren(copyratorKind, rule as never, { sources: [configMap('a'), configMap('b')], targets: ['t1', 't2'], refused: [] });
    expect(copies.map((c) => `${c.metadata.namespace}/${c.metadata.name}`).sort()).toEqual(['t1/a', 't1/b', 't2/a', 't2/b']);
    const copy = copies[0];
    expect(copy.data).toEqual({ key: 'value' });
    expect(copy.metadata.labels).toMatchObject({ copyrator: 'true', team: 'a', 'app.kubernetes.io/managed-by': 'cdk8s-operators' });
    expect(copy.metadata.annotations).toEqual({ note: 'keep me', [COPIED_FROM_ANNOTATION]: 'src/a' });
    expect(Object.keys(copy.metadata).sort()).toEqual(['annotations', 'labels', 'name', 'namespace']);
  });

  it('keeps a Secret\u2019s type and never copies service-account tokens or kube-root-ca.crt', () => {
    const secret: SourceObject = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'tls', namespace: 'src' }, type: 'kubernetes.io/tls', data: { 'tls.crt': 'Y2VydA==' } };
    const token: SourceObject = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'sa', namespace: 'src' }, type: 'kubernetes.io/service-account-token' };
    const copies = renderChildren(copyratorKind, rule as never, { sources: [secret, token, configMap('kube-root-ca.crt')], targets: ['t'], refused: [] });
    expect(copies.map((c) => [c.kind, c.metadata.name, c.type])).toEqual([['Secret', 'tls', 'kubernetes.io/tls']]);
  });

  it('drops kubectl\u2019s last-applied record, which names the source namespace', () => {
    const source = configMap('a', { metadata: { name: 'a', namespace: 'src', annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{}' } } });
    const [copy] = renderChildren(copyratorKind, rule as never, { sources: [source], targets: ['t'], refused: [] });
    expect(Object.keys(copy.metadata.annotations!)).toEqual([COPIED_FROM_ANNOTATION]);
  });

  it('renders nothing without an observation (the render command cannot know the sources)', () => {
    expect(renderChildren(copyratorKind, rule as never)).toEqual([]);
  });
});

describe('CopyratorRule preview (sample observation)', () => {
  const preview = (spec: Record<string, unknown>) => {
    const result = previewChildren(copyratorKind, { ...rule, apiVersion: 'test.com/v2', spec: { ...rule.spec, ...spec } }, { withSample: true });
    if (!result.ok) throw new Error(result.message);
    return result.children;
  };

  it('copies an object carrying the selector from the rule\u2019s namespace into a namespace that accepts it', () => {
    const [copy, ...rest] = preview({});
    expect(rest).toEqual([]);
    expect(copy).toMatchObject({
      kind: 'ConfigMap',
      metadata: { name: 'sample-configmap-from-src', namespace: 'other-team', labels: { copyrator: 'true' }, annotations: { [COPIED_FROM_ANNOTATION]: 'src/sample-configmap-from-src' } },
      data: { greeting: 'sample value' },
    });
  });

  it('copies from each namespace the rule names into those it narrows to, as in a cluster', () => {
    const copies = preview({ namespaces: ['a', 'b'], targetNamespaces: ['a', 't1', 't2', 'kube-system'], excludeNamespaces: ['t2'] });
    expect(copies.map((c) => `${c.metadata.namespace}/${c.metadata.name}`).sort()).toEqual(['t1/sample-configmap-from-a', 't1/sample-configmap-from-b']);
    expect(preview({ excludeNamespaces: ['other-team'] })).toEqual([]);
  });

  it('copies a Secret without any data: a preview holds no secret value, not even a made-up one', () => {
    const [copy, ...rest] = preview({ ruleType: 'secret' });
    expect(rest).toEqual([]);
    expect(copy).toMatchObject({ kind: 'Secret', type: 'Opaque', metadata: { name: 'sample-secret-from-src', namespace: 'other-team' } });
    expect([copy.data, copy.stringData, copy.binaryData]).toEqual([undefined, undefined, undefined]);
  });
});

describe('CopyratorRule namespaces', () => {
  /** The v2 spec of a v1 rule in namespace src, as the conversion gives it. */
  const spec = (extra: Partial<CopyratorSpecV1> = {}): CopyratorSpec => {
    const v1 = { apiVersion: 'test.com/v1', kind: 'CopyratorRule', metadata: { name: 'r', namespace: 'src' }, spec: { ruleType: 'configmap', selector: { a: 'b' }, ...extra } };
    return convertObject(copyratorKind, v1 as KubeJson, 'v2').spec as CopyratorSpec;
  };
  const all = [
    { name: 'src' },
    { name: 'default' },
    { name: 'kube-system' },
    { name: 'kube-public' },
    { name: 'prod', labels: { env: 'prod' } },
    { name: 'dev', labels: { env: 'dev' } },
    { name: 'leaving', phase: 'Terminating' },
  ];

  it('copies from the rule\u2019s own namespace by default, plus namespace and namespaces', () => {
    expect(sourceNamespaces(spec(), 'src')).toEqual(['src']);
    expect(sourceNamespaces(spec({ namespace: 'other', namespaces: ['b', 'a'] }), 'src')).toEqual(['a', 'b', 'other']);
  });
  it('copies from every namespace a namespace list names, not from the rule\u2019s own then, and never targets them', () => {
    expect(sourceNamespaces(spec({ namespace: ['default', 'dev'] }), 'src')).toEqual(['default', 'dev']);
    expect(sourceNamespaces(spec({ namespace: ['dev'], namespaces: ['dev', 'prod'] }), 'src')).toEqual(['dev', 'prod']);
    expect(targetNamespaces(spec({ namespace: ['default', 'dev'] }), 'src', all)).toEqual(['prod', 'src']);
  });
  it('targets every Active namespace except the sources and kube-*', () => {
    expect(targetNamespaces(spec(), 'src', all)).toEqual(['default', 'dev', 'prod']);
  });
  it('narrows by targetNamespaces, namespaceSelector and excludeNamespaces', () => {
    expect(targetNamespaces(spec({ targetNamespaces: ['prod', 'kube-system', 'src'] }), 'src', all)).toEqual(['prod']);
    expect(targetNamespaces(spec({ namespaceSelector: { env: 'prod' } }), 'src', all)).toEqual(['prod']);
    expect(targetNamespaces(spec({ excludeNamespaces: ['default'] }), 'src', all)).toEqual(['dev', 'prod']);
  });
});

describe('CopyratorRule consent', () => {
  const reach = { ruleNamespace: 'team-a', trusted: false, operatorNamespace: 'cdk8s-operators' };
  const from = (namespace: string, allowed?: string): SourceObject => ({ ...configMap('x'), metadata: { name: 'x', namespace, ...(allowed !== undefined ? { annotations: { [ALLOWED_NAMESPACES_ANNOTATION]: allowed } } : {}) } });

  it('reads names and * patterns from a comma-separated list', () => {
    expect(namedIn('team-b, team-a', 'team-a')).toBe(true);
    expect(namedIn('team-*', 'team-a')).toBe(true);
    expect(namedIn('*', 'anything')).toBe(true);
    expect(namedIn('team-a.*', 'team-ab')).toBe(false); // a dot is no pattern
    expect(namedIn('team', 'team-a')).toBe(false);
    expect(namedIn(['team-b', 'team-?'], 'team-a')).toBe(false);
    expect(namedIn('', 'team-a')).toBe(false);
    expect(namedIn(undefined, 'team-a')).toBe(false);
  });

  it('copies the rule\u2019s own objects, another namespace\u2019s only with consent, and never kube-* or the operator\u2019s', () => {
    expect(mayCopy(reach, from('team-a'))).toBe(true);
    expect(mayCopy(reach, from('team-b'))).toBe(false);
    expect(mayCopy(reach, from('team-b', 'team-c'))).toBe(false);
    expect(mayCopy(reach, from('team-b', 'team-c,team-a'))).toBe(true);
    expect(mayCopy(reach, from('kube-system', '*'))).toBe(false);
    expect(mayCopy(reach, from('cdk8s-operators', '*'))).toBe(false);
    expect(mayCopy({ ...reach, trusted: true }, from('team-b'))).toBe(true);
    expect(mayCopy({ ...reach, trusted: true }, from('kube-public'))).toBe(false);
    expect(isSealed({ ...reach, ruleNamespace: 'kube-system' }, 'kube-system')).toBe(false);
  });

  it('writes into the rule\u2019s own namespace, and another only when it accepts copies from the rule\u2019s', () => {
    expect(mayWriteInto(reach, { name: 'team-a' })).toBe(true);
    expect(mayWriteInto(reach, { name: 'team-b' })).toBe(false);
    expect(mayWriteInto(reach, { name: 'team-b', annotations: { [ACCEPT_FROM_ANNOTATION]: 'team-*' } })).toBe(true);
    expect(mayWriteInto({ ...reach, trusted: true }, { name: 'team-b' })).toBe(true);
  });
});

describe('CopyratorRule layouts', () => {
  it('reads the original top-level layout into v2\u2019s spec', () => {
    const legacy = { apiVersion: 'test.com/v1', kind: 'CopyratorRule', metadata: { name: 'r', namespace: 'n' }, ruleType: 'secret', selector: { copyrator: 'true' }, namespace: 'default' };
    expect(validateResource(copyratorKind, legacy)).toEqual({ ok: true, spec: { ruleType: 'secret', selector: { copyrator: 'true' }, namespaces: ['default'] } });
  });
  it('refuses a top-level namespace beside spec in the controller, which the API server\u2019s CEL cannot see (untyped), rather than drop it', () => {
    const both = { apiVersion: 'test.com/v1', kind: 'CopyratorRule', metadata: { name: 'r', namespace: 'n' }, spec: { ruleType: 'configmap', selector: { a: 'b' } }, namespace: ['x'] };
    expect(validateResource(copyratorKind, both)).toEqual({ ok: false, errors: [{ field: 'spec', message: 'use spec or the top-level fields (ruleType, selector, namespace, namespaces), not both' }] });
  });
  it('reads a clone\u2019s namespace list at the top level into v2\u2019s namespaces', () => {
    const clone = { apiVersion: 'test.com/v1', kind: 'CopyratorRule', metadata: { name: 'r', namespace: 'n' }, ruleType: 'configmap', selector: { copyrator: 'true' }, namespace: ['default', 'default2'] };
    expect(validateResource(copyratorKind, clone)).toEqual({ ok: true, spec: { ruleType: 'configmap', selector: { copyrator: 'true' }, namespaces: ['default', 'default2'] } });
  });
});
