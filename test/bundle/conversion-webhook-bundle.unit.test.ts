import { App, Chart, Testing } from 'cdk8s';
import { CustomResourceDefinitions } from '../../src/bundle/crd';
import { webhookServiceConfig } from '../../src/bundle/deployment';
import { OperatorBundle } from '../../src/bundle/operator';
import { crdName, servedIdentities } from '../../src/core/groups';
import { AnyKind } from '../../src/core/contract/kind';
import { KINDS } from '../../src/kinds';
import { defineVersionedTestKind } from '../../src/testing/test-kind';
import { PRODUCT_NAMES } from '../../src/product';

// The install's side of the conversion webhook, with a test kind of two versions (and in an extra group).
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const versioned = { ...defineVersionedTestKind('Bundled', { render: () => undefined }), extraGroups: ['bundled.example.com'] };

function bundle(kinds: readonly AnyKind[] = [...KINDS, versioned as unknown as AnyKind], userKinds = kinds): Json[] {
  const chart = new Chart(Testing.app() as App, 'test', { disableResourceNameHashes: true });
  new OperatorBundle(chart, 'operator', { operator: PRODUCT_NAMES, kinds, userKinds });
  return chart.toJson();
}
const versionedKind = versioned as unknown as AnyKind;
const deployment = (objects: Json[]) => objects.find((o) => o.kind === 'Deployment')!;

describe('the bundle with a kind of several versions', () => {
  const objects = bundle();

  it('lets the controller get and patch exactly the versioned CRDs, by name', () => {
    const role = objects.find((o) => o.kind === 'ClusterRole' && o.metadata.name === 'cdk8s-operators:conversion-webhook');
    const versioned = [...KINDS, versionedKind].filter((k) => k.olderVersions?.length).flatMap((k) => servedIdentities(k).map(crdName));
    expect(versioned).toEqual(expect.arrayContaining(['bundleds.bundled.test.cdk8s-operators.io', 'bundleds.bundled.example.com']));
    expect(role?.rules).toEqual([{ apiGroups: ['apiextensions.k8s.io'], resources: ['customresourcedefinitions'], verbs: ['get', 'patch'], resourceNames: versioned }]);
    expect(objects.find((o) => o.kind === 'ClusterRoleBinding' && o.roleRef.name === role?.metadata.name)?.subjects).toEqual([{ kind: 'ServiceAccount', name: 'controller', namespace: 'cdk8s-operators' }]);
  });

  it('keeps its Secret to a Role in the operator namespace: create, and get and update of the one name', () => {
    const role = objects.find((o) => o.kind === 'Role' && o.metadata.name === 'cdk8s-operators:conversion-webhook');
    expect(role?.metadata.namespace).toBe('cdk8s-operators');
    expect(role?.rules).toEqual([
      { apiGroups: [''], resources: ['secrets'], verbs: ['create'] },
      { apiGroups: [''], resources: ['secrets'], verbs: ['get', 'update'], resourceNames: ['cdk8s-operators-webhook-tls'] },
    ]);
    expect(objects.find((o) => o.kind === 'RoleBinding' && o.roleRef.name === role?.metadata.name)?.metadata.namespace).toBe('cdk8s-operators');
  });

  it('exposes the webhook port on a Service of port 443, and admits it through the NetworkPolicy', () => {
    const container = deployment(objects).spec.template.spec.containers[0];
    expect(container.ports).toContainEqual({ name: 'webhook', containerPort: 9443, protocol: 'TCP' });
    expect(container.args).toContain('--webhook-port=9443');
    const service = objects.find((o) => o.kind === 'Service' && o.metadata.name === 'controller-webhook');
    expect(service?.spec.ports).toEqual([{ name: 'webhook', port: 443, targetPort: 'webhook', protocol: 'TCP' }]);
    expect(service?.spec.selector).toEqual(deployment(objects).spec.selector.matchLabels);
    const policy = objects.find((o) => o.kind === 'NetworkPolicy');
    expect(policy?.spec.ingress.flatMap((r: { ports: unknown[] }) => r.ports)).toContainEqual({ protocol: 'TCP', port: 9443 });
  });

  it('converts for a versioned kind whose CRD is installed although this controller does not serve it', () => {
    const role = bundle(KINDS, [...KINDS, versioned as unknown as AnyKind]).find((o) => o.kind === 'ClusterRole' && o.metadata.name === 'cdk8s-operators:conversion-webhook');
    expect(role?.rules[0].resourceNames).toEqual(expect.arrayContaining(['bundleds.bundled.test.cdk8s-operators.io', 'bundleds.bundled.example.com']));
  });

  it('points the versioned CRDs at that Service, path /convert', () => {
    const chart = new Chart(Testing.app() as App, 'crds', { disableResourceNameHashes: true });
    new CustomResourceDefinitions(chart, 'crds', { kinds: [versioned as unknown as AnyKind], webhook: webhookServiceConfig('cdk8s-operators') });
    for (const crd of chart.toJson()) {
      expect(crd.spec.conversion).toEqual({ strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'], clientConfig: { service: { namespace: 'cdk8s-operators', name: 'controller-webhook', path: '/convert', port: 443 } } } });
    }
  });

  it('adds none of it while no kind has several versions', () => {
    const plain = bundle(KINDS.filter((k) => !k.olderVersions?.length));
    expect(plain.filter((o) => o.metadata.name.includes('conversion-webhook') || o.metadata.name === 'controller-webhook')).toEqual([]);
    expect(deployment(plain).spec.template.spec.containers[0].ports).toEqual([{ name: 'http', containerPort: 8080, protocol: 'TCP' }, { name: 'metrics', containerPort: 8443, protocol: 'TCP' }]);
    expect(deployment(plain).spec.template.spec.containers[0].args).not.toContain('--conversion-webhook=true');
  });
});
