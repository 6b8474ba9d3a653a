import { ValidationCases } from '../../engine/kind';

/** v1 objects, in both of the original's layouts, that the API server and the controller must both accept, and both refuse naming the field. */
export const olderValidationCases: ValidationCases[] = [{
  version: 'v1',
  valid: [
    { name: 'a ConfigMap rule under spec', body: { spec: { ruleType: 'configmap', selector: { copyrator: 'true' } } } },
    { name: 'the original sample rule with top-level fields', body: { ruleType: 'secret', selector: { copyrator: 'true' }, namespace: 'default' } },
    { name: 'a list of namespaces in namespace, as a clone of the original wrote it', body: { ruleType: 'configmap', selector: { copyrator: 'true' }, namespace: ['default', 'default2'] } },
    { name: 'a list of namespaces in spec.namespace', body: { spec: { ruleType: 'configmap', selector: { a: 'b' }, namespace: ['src-a'], namespaces: ['src-b'] } } },
    {
      name: 'every narrowing field',
      body: {
        spec: {
          ruleType: 'configmap',
          selector: { team: 'a' },
          namespaces: ['src-a', 'src-b'],
          targetNamespaces: ['dst-a'],
          namespaceSelector: { env: 'prod' },
          excludeNamespaces: ['dst-b'],
        },
      },
    },
  ],
  invalid: [
    { name: 'an unknown ruleType', body: { spec: { ruleType: 'pod', selector: { a: 'b' } } }, field: 'spec.ruleType' },
    { name: 'an empty selector', body: { spec: { ruleType: 'configmap', selector: {} } }, field: 'spec.selector' },
    { name: 'no selector', body: { spec: { ruleType: 'configmap' } }, field: 'spec.selector' },
    { name: 'a namespace with capitals', body: { spec: { ruleType: 'configmap', selector: { a: 'b' }, namespace: 'Prod' } }, field: 'spec.namespace' },
    { name: 'a number for namespace', body: { spec: { ruleType: 'configmap', selector: { a: 'b' }, namespace: 42 } }, field: 'spec.namespace' },
    { name: 'a boolean for namespace', body: { spec: { ruleType: 'configmap', selector: { a: 'b' }, namespace: true } }, field: 'spec.namespace' },
    { name: 'an empty map for namespace', body: { spec: { ruleType: 'configmap', selector: { a: 'b' }, namespace: {} } }, field: 'spec.namespace' },
    { name: 'a map for namespace', body: { spec: { ruleType: 'configmap', selector: { a: 'b' }, namespace: { name: 'x' } } }, field: 'spec.namespace' },
    { name: 'an empty namespace', body: { spec: { ruleType: 'configmap', selector: { a: 'b' }, namespace: '' } }, field: 'spec.namespace' },
    { name: 'an empty list for namespace', body: { spec: { ruleType: 'configmap', selector: { a: 'b' }, namespace: [] } }, field: 'spec.namespace' },
    { name: 'a list with a number in namespace', body: { spec: { ruleType: 'configmap', selector: { a: 'b' }, namespace: ['default', 7] } }, field: 'spec.namespace[1]' },
    { name: 'a list with a capitalised name in namespace', body: { spec: { ruleType: 'configmap', selector: { a: 'b' }, namespace: ['Prod'] } }, field: 'spec.namespace[0]' },
    { name: 'a top-level list with an empty name in namespace', body: { ruleType: 'configmap', selector: { a: 'b' }, namespace: ['default', ''] }, field: 'namespace[1]' },
    { name: 'a top-level number for namespace', body: { ruleType: 'configmap', selector: { a: 'b' }, namespace: 3 }, field: 'namespace' },
    { name: 'namespaces that is no list', body: { spec: { ruleType: 'configmap', selector: { a: 'b' }, namespaces: 'default' } }, field: 'spec.namespaces' },
    {
      name: 'a namespace both source and target',
      body: { spec: { ruleType: 'configmap', selector: { a: 'b' }, namespaces: ['x'], targetNamespaces: ['x'] } },
      field: 'spec.targetNamespaces',
    },
    { name: 'a top-level rule without selector', body: { ruleType: 'configmap' }, field: 'selector' },
    { name: 'a top-level rule with an empty selector', body: { ruleType: 'configmap', selector: {} }, field: 'selector' },
    { name: 'a top-level rule with an unknown ruleType', body: { ruleType: 'pods', selector: { a: 'b' } }, field: 'ruleType' },
    {
      name: 'both layouts at once',
      body: { spec: { ruleType: 'configmap', selector: { a: 'b' } }, ruleType: 'secret', selector: { a: 'b' } },
      field: 'spec',
    },
    { name: 'neither layout', body: {}, field: 'ruleType' },
    // Selector injection: `x!` would be sent as `x!=y`, which matches every object.
    { name: 'a selector key ending in an operator', body: { spec: { ruleType: 'configmap', selector: { 'x!': 'y' } } }, field: 'spec.selector' },
    { name: 'a top-level selector key with a space', body: { ruleType: 'configmap', selector: { 'a in (b)': 'c' } }, field: 'selector' },
    { name: 'a selector value with a comma (a further term)', body: { spec: { ruleType: 'configmap', selector: { team: 'a,kind!=x' } } }, field: 'spec.selector.team' },
    { name: 'a namespaceSelector key with =', body: { spec: { ruleType: 'configmap', selector: { a: 'b' }, namespaceSelector: { 'env=prod': 'x' } } }, field: 'spec.namespaceSelector' },
  ],
}];

/** v2, the hub: every field under spec, the sources in namespaces. */
export const validationCases: ValidationCases = {
  valid: [
    { name: 'a ConfigMap rule', body: { spec: { ruleType: 'configmap', selector: { copyrator: 'true' } } } },
    { name: 'sources and every narrowing field', body: { spec: { ruleType: 'secret', selector: { team: 'a' }, namespaces: ['src-a', 'src-b'], targetNamespaces: ['dst-a'], namespaceSelector: { env: 'prod' }, excludeNamespaces: ['dst-b'] } } },
    // v1 never refused a source named as a target in `namespace`; v2 keeps taking it (a source is never a target).
    { name: 'a source that is also named a target', body: { spec: { ruleType: 'configmap', selector: { a: 'b' }, namespaces: ['x'], targetNamespaces: ['x'] } } },
    { name: 'prefixed label keys and an empty value', body: { spec: { ruleType: 'configmap', selector: { 'app.kubernetes.io/name': 'web', 'example.com/shared': '' }, namespaceSelector: { 'kubernetes.io/metadata.name': 'prod' } } } },
  ],
  invalid: [
    { name: 'no spec', body: {}, field: 'spec' },
    { name: 'an empty list of namespaces', body: { spec: { ruleType: 'configmap', selector: { a: 'b' }, namespaces: [] } }, field: 'spec.namespaces' },
    { name: 'a namespace with capitals', body: { spec: { ruleType: 'configmap', selector: { a: 'b' }, namespaces: ['Prod'] } }, field: 'spec.namespaces[0]' },
    { name: 'namespaces as a string', body: { spec: { ruleType: 'configmap', selector: { a: 'b' }, namespaces: 'default' } }, field: 'spec.namespaces' },
    { name: 'an empty selector', body: { spec: { ruleType: 'configmap', selector: {} } }, field: 'spec.selector' },
    { name: 'a selector key ending in an operator', body: { spec: { ruleType: 'configmap', selector: { 'x!': 'y' } } }, field: 'spec.selector' },
    { name: 'a selector key with a bad prefix', body: { spec: { ruleType: 'configmap', selector: { 'Example.com/a': 'y' } } }, field: 'spec.selector' },
    { name: 'a selector key of 64 characters', body: { spec: { ruleType: 'configmap', selector: { ['k'.repeat(64)]: 'y' } } }, field: 'spec.selector' },
    { name: 'a selector value with a comma', body: { spec: { ruleType: 'configmap', selector: { team: 'a,b' } } }, field: 'spec.selector.team' },
    { name: 'a selector value with =', body: { spec: { ruleType: 'configmap', selector: { team: 'a=b' } } }, field: 'spec.selector.team' },
    { name: 'a namespaceSelector value with !', body: { spec: { ruleType: 'configmap', selector: { a: 'b' }, namespaceSelector: { env: '!prod' } } }, field: 'spec.namespaceSelector.env' },
    { name: 'a namespaceSelector key with a space', body: { spec: { ruleType: 'configmap', selector: { a: 'b' }, namespaceSelector: { 'env notin': 'x' } } }, field: 'spec.namespaceSelector' },
  ],
};
