import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { s } from '../../src/schema';
import { KUBERNETES_VERSION } from '../../src/schema/kubernetes/openapi.generated';

// The built-in types' schemas and the opaque escape, without an API server (built-in-types.test.ts has it).

it('vendors the OpenAPI of the Kubernetes release the test control plane runs', () => {
  const goMod = readFileSync(join(__dirname, '../controlplane/tools-1.37/go.mod'), 'utf8');
  expect(goMod).toMatch(new RegExp(`k8s\\.io/kubernetes ${KUBERNETES_VERSION.replace(/\./g, '\\.')}\\b`));
});

it('inlines every reference, keeps list types and drops the embedded descriptions', () => {
  const template = s.builtIn('v1', 'PodTemplateSpec', { description: 'A Pod to run.' }).openApi;
  const text = JSON.stringify(template);
  expect(text).not.toContain('$ref');
  expect(template.description).toBe('A Pod to run.');
  expect(text.match(/"description"/g)).toHaveLength(1);
  const containers = template.properties!.spec.properties!.containers;
  expect(containers).toMatchObject({ type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'] });
  expect(template.properties!.metadata.properties!.labels).toEqual({ type: 'object', additionalProperties: { type: 'string' } });
});

it('names the vendored file when a type is not in it', () => {
  expect(() => s.builtIn('networking.k8s.io/v1', 'IngressSpec', { description: 'x' })).toThrow(/io\.k8s\.api\.networking\.v1\.IngressSpec is not among the \d+ types of the vendored Kubernetes v1\.37\.\d+ OpenAPI/);
});

it('makes the author say why a field is opaque', () => {
  expect(() => s.opaque({ description: 'Anything.', reason: ' ' })).toThrow(/give the reason this field has no schema/);
  expect(s.opaque({ description: 'Anything.', reason: 'another tool reads it' }).openApi).toEqual({ type: 'object', description: 'Anything.', 'x-kubernetes-preserve-unknown-fields': true });
});
