import { App, Chart, Testing } from 'cdk8s';
import { OperatorBundle } from '../../src/bundle/operator';
import { AnyKind } from '../../src/core/contract/kind';
import { WebhookCertificates } from '../../src/core/install/webhook';
import { defineTestKind } from '../../src/testing/test-kind';
import { PRODUCT_NAMES } from '../../src/product';

// The install's side of a kind's `validate` hook: a ValidatingWebhookConfiguration for the kinds
// that declare one (each served group), the webhook served, and the RBAC to inject its CA.
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const hooked = { ...defineTestKind('Hooked', { render: () => undefined, validate: () => [] }), extraGroups: ['hooked.example.com'] } as unknown as AnyKind;
const plain = defineTestKind('Unhooked', { render: () => undefined }) as unknown as AnyKind;

function bundle(kinds: readonly AnyKind[], webhookCertificates?: WebhookCertificates): Json[] {
  const chart = new Chart(Testing.app() as App, 'test', { disableResourceNameHashes: true });
  new OperatorBundle(chart, 'operator', { operator: PRODUCT_NAMES, kinds, webhookCertificates });
  return chart.toJson();
}
const find = (objects: Json[], kind: string, name: string) => objects.find((o) => o.kind === kind && o.metadata.name === name);

describe('a kind with a validate hook', () => {
  const objects = bundle([hooked, plain]);
  const configuration = find(objects, 'ValidatingWebhookConfiguration', 'cdk8s-operators-validation');

  it('gets a webhook per served group, on the controller\u2019s Service at /validate, refusing when it cannot be reached', () => {
    expect(configuration?.webhooks.map((w: Json) => w.name)).toEqual(['validate.hookeds.hooked.test.cdk8s-operators.io', 'validate.hookeds.hooked.example.com']);
    expect(configuration?.webhooks[0]).toEqual({
      name: 'validate.hookeds.hooked.test.cdk8s-operators.io',
      clientConfig: { service: { namespace: 'cdk8s-operators', name: 'controller-webhook', path: '/validate', port: 443 } },
      rules: [{ apiGroups: ['hooked.test.cdk8s-operators.io'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['hookeds'], scope: 'Namespaced' }],
      admissionReviewVersions: ['v1'],
      sideEffects: 'None',
      failurePolicy: 'Fail',
      matchPolicy: 'Equivalent',
      timeoutSeconds: 10,
    });
  });

  it('lets the controller get and patch that one configuration, by name, to inject its CA', () => {
    expect(find(objects, 'ClusterRole', 'cdk8s-operators:validating-webhook')?.rules).toEqual([
      { apiGroups: ['admissionregistration.k8s.io'], resources: ['validatingwebhookconfigurations'], verbs: ['get', 'patch'], resourceNames: ['cdk8s-operators-validation'] },
    ]);
    expect(find(objects, 'Role', 'cdk8s-operators:conversion-webhook')).toBeDefined();
    expect(find(objects, 'Service', 'controller-webhook')).toBeDefined();
  });

  it('leaves the CA to cert-manager\u2019s cainjector when cert-manager makes the certificates', () => {
    const withCertManager = bundle([hooked], 'cert-manager');
    expect(find(withCertManager, 'ValidatingWebhookConfiguration', 'cdk8s-operators-validation')?.metadata.annotations).toEqual({ 'cert-manager.io/inject-ca-from': 'cdk8s-operators/cdk8s-operators-webhook' });
    expect(find(withCertManager, 'ClusterRole', 'cdk8s-operators:validating-webhook')).toBeUndefined();
  });
});

it('gives kinds without a validate hook no webhook configuration, no role and no webhook', () => {
  const objects = bundle([plain]);
  expect(objects.filter((o) => o.kind === 'ValidatingWebhookConfiguration')).toEqual([]);
  expect(find(objects, 'ClusterRole', 'cdk8s-operators:validating-webhook')).toBeUndefined();
  expect(find(objects, 'Service', 'controller-webhook')).toBeUndefined();
});
