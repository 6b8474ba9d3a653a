import { ValidationCases } from '../../core/validation-cases';

/** Objects the API server and the controller must both accept, and both refuse naming the field (see ValidationCases). */
export const validationCases: ValidationCases = {
  valid: [
    { name: 'a ConfigMap rule under spec', body: { spec: { ruleType: 'configmap', selector: { copyrator: 'true' } } } },
    { name: 'the original sample rule with top-level fields', body: { ruleType: 'secret', selector: { copyrator: 'true' }, namespace: 'default' } },
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
  ],
};
