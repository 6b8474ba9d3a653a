import { App, Chart } from 'cdk8s';
import { validateResource } from '../../src/core/contract/validation';
import { Manifest, renderChildren } from '../../src/core/render';
import { KubeObject } from '../../src/kube/objects';
import { KubeError } from '../../src/kube/rest';
import { registryMirrorKind } from '../../src/kinds/registrymirror';
import { createTestNamespace, deleteNamespace, testKubeConfig } from '../../src/testing/cluster';
import { testObjects } from '../support/manifests';

// The real API server's word on the children: every one is accepted in a namespace labelled
// like the install hook's, and Pod Security admits the cache under `restricted` but not the
// node-configuring DaemonSet, the one documented exception.
describe('RegistryMirror children on the API server', () => {
  const kc = testKubeConfig();
  const objects = testObjects();
  const owner = { apiVersion: 'k8s.osp.tech/v1', kind: 'RegistryMirror', metadata: { name: 'docker-hub' }, spec: { upstreamUrl: 'registry-1.docker.io', credentialsSecret: 'hub' } };
  const result = validateResource(registryMirrorKind, owner);
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  const children = renderChildren(registryMirrorKind, { ...owner, spec: result.spec });
  let mirrors: string;
  let restricted: string;

  const install = new Chart(new App(), 'install');
  registryMirrorKind.install!(install, { operatorNamespace: 'cdk8s-operators' });
  const [namespaceManifest] = install.toJson() as Manifest[];

  const labelNamespace = (name: string, labels: Record<string, string>) =>
    objects.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } } as KubeObject);
  const podOf = (workload: Manifest, namespace: string) =>
    ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: workload.metadata.name, namespace }, spec: (workload.spec as { template: { spec: unknown } }).template.spec }) as KubeObject;
  const rejection = (promise: Promise<unknown>) => promise.then(() => undefined, (err: unknown) => err);

  beforeAll(async () => {
    mirrors = await createTestNamespace(kc, 'registry-mirrors');
    await labelNamespace(mirrors, namespaceManifest.metadata.labels!);
    restricted = await createTestNamespace(kc, 'restricted');
    await labelNamespace(restricted, { 'pod-security.kubernetes.io/enforce': 'restricted', 'pod-security.kubernetes.io/enforce-version': 'latest' });
  });
  afterAll(async () => {
    await deleteNamespace(kc, mirrors);
    await deleteNamespace(kc, restricted);
  });

  it.each(children.map((c) => [`${c.kind} ${c.metadata.name}`, c] as const))('accepts %s in the mirrors\u2019 namespace', async (_name, child) => {
    const object = { ...child, metadata: { ...child.metadata, namespace: mirrors } } as KubeObject;
    await expect(objects.create(object, { dryRun: true })).resolves.toMatchObject({ kind: child.kind });
  });

  it('admits the DaemonSet\u2019s Pod where the install hook\u2019s labels apply', async () => {
    const daemonSet = children.find((c) => c.kind === 'DaemonSet')!;
    await expect(objects.create(podOf(daemonSet, mirrors), { dryRun: true })).resolves.toMatchObject({ kind: 'Pod' });
  });

  it('admits the cache\u2019s Pod under the restricted profile', async () => {
    const statefulSet = children.find((c) => c.kind === 'StatefulSet')!;
    await expect(objects.create(podOf(statefulSet, restricted), { dryRun: true })).resolves.toMatchObject({ kind: 'Pod' });
  });

  it('refuses the DaemonSet\u2019s Pod under the restricted profile for root and the hostPath only', async () => {
    const daemonSet = children.find((c) => c.kind === 'DaemonSet')!;
    const error = await rejection(objects.create(podOf(daemonSet, restricted), { dryRun: true }));
    expect(error).toBeInstanceOf(KubeError);
    const message = (error as KubeError).status?.message ?? '';
    expect(message).toContain('violates PodSecurity "restricted:latest"');
    // The profile's own list of what is wrong: nothing but the documented exception.
    const violations = message.replace(/^.*violates PodSecurity "restricted:latest": /, '').split(/\), /);
    expect(violations.map((v) => v.replace(/ \(.*$/, '')).sort()).toEqual(['restricted volume types', 'runAsNonRoot != true', 'runAsUser=0']);
  });
});
