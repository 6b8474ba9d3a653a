import { App, Chart, Testing } from 'cdk8s';
import { crdManifest } from '../../src/bundle/crd';
import { OperatorBundle } from '../../src/bundle/operator';
import { PolicyRule } from '../../src/bundle/rbac';
import { OpenApiSchema } from '../../src/schema';
import { KINDS } from '../../src/kinds';

function bundle(secretCopy = false): Record<string, any>[] { // eslint-disable-line @typescript-eslint/no-explicit-any
  const chart = new Chart(Testing.app() as App, 'test', { disableResourceNameHashes: true });
  new OperatorBundle(chart, 'operator', { kinds: KINDS, secretCopy });
  return chart.toJson();
}
const controllerRules = (objects: Record<string, any>[]): PolicyRule[] => // eslint-disable-line @typescript-eslint/no-explicit-any
  objects.filter((o) => ['ClusterRole', 'Role'].includes(o.kind) && !/:(view|edit|guitar-ui)$/.test(o.metadata.name)).flatMap((o) => o.rules);

describe('the operator bundle', () => {
  it('grants no wildcard anywhere', () => {
    for (const rule of bundle(true).filter((o) => o.rules).flatMap((o) => o.rules as PolicyRule[])) {
      expect([...rule.apiGroups, ...rule.resources, ...rule.verbs]).not.toContain('*');
    }
  });

  it('reads CRDs and never writes them', () => {
    const verbs = controllerRules(bundle()).filter((r) => r.resources.includes('customresourcedefinitions')).flatMap((r) => r.verbs);
    expect(verbs.sort()).toEqual(['get', 'list', 'watch']);
  });

  it('lists and watches Secrets cluster-wide only when Secret copying is enabled', () => {
    const clusterRoles = (objects: Record<string, unknown>[]) => objects.filter((o) => o.kind === 'ClusterRole');
    const secretVerbs = (objects: Record<string, unknown>[]) =>
      new Set(controllerRules(clusterRoles(objects) as never).filter((r) => r.apiGroups.includes('') && r.resources.includes('secrets')).flatMap((r) => r.verbs));
    const without = secretVerbs(bundle(false));
    for (const verb of ['list', 'watch', 'update', 'patch', 'delete']) expect(without).not.toContain(verb);
    expect(secretVerbs(bundle(true))).toEqual(new Set(['get', 'list', 'watch', 'create', 'update', 'patch', 'delete']));
    const args = (objects: Record<string, any>[]) => objects.find((o) => o.kind === 'Deployment')!.spec.template.spec.containers[0].args as string[]; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(args(bundle(false))).not.toContain('--enable-secrets');
    expect(args(bundle(true))).toContain('--enable-secrets');
  });

  it('reads Secrets and pods of the registry mirrors’ namespace through a Role there, nowhere else', () => {
    const objects = bundle(false);
    const role = objects.find((o) => o.kind === 'Role' && o.metadata.namespace === 'registry-mirrors');
    expect(role?.rules).toEqual([{ apiGroups: [''], resources: ['pods', 'secrets'], verbs: ['list', 'watch'] }]);
    const binding = objects.find((o) => o.kind === 'RoleBinding' && o.metadata.namespace === 'registry-mirrors');
    expect(binding?.roleRef.name).toBe(role?.metadata.name);
    expect(binding?.subjects).toEqual([{ kind: 'ServiceAccount', name: 'controller', namespace: 'cdk8s-operators' }]);
  });

  it.each(KINDS.filter((k) => k.controller?.watches).map((k) => [k.kind, k] as const))('grants %s list and watch on every collection it watches', (_name, kind) => {
    const rules = controllerRules(bundle(true));
    for (const watch of kind.controller!.watches!) {
      const verbs = rules.filter((r) => r.apiGroups.includes(watch.apiGroup) && r.resources.includes(watch.resource)).flatMap((r) => r.verbs);
      expect(verbs).toEqual(expect.arrayContaining(['list', 'watch']));
    }
  });

  it.each(KINDS.map((k) => [k.kind, k] as const))('lets the controller write only the status of %s, never its spec', (_name, kind) => {
    const rules = controllerRules(bundle()).filter((r) => r.apiGroups.includes(kind.group));
    const verbsOn = (resource: string) => rules.filter((r) => r.resources.includes(resource)).flatMap((r) => r.verbs).sort();
    expect(verbsOn(kind.plural)).toEqual(kind.finalizer ? ['get', 'list', 'patch', 'watch'] : ['get', 'list', 'watch']);
    expect(verbsOn(`${kind.plural}/status`)).toEqual(['get', 'patch', 'update']);
  });

  it('keeps leader election to one Lease in its own namespace', () => {
    const role = bundle().find((o) => o.kind === 'Role' && o.metadata.name.endsWith(':leader-election'))!;
    expect(role.metadata.namespace).toBe('cdk8s-operators');
    expect(role.rules).toEqual([
      { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create'] },
      { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'update'], resourceNames: ['cdk8s-operators-leader'] },
    ]);
  });

  it('runs the controller under the restricted Pod Security profile, with its API token mounted', () => {
    const objects = bundle();
    expect(objects.find((o) => o.kind === 'Namespace')!.metadata.labels['pod-security.kubernetes.io/enforce']).toBe('restricted');
    const pod = objects.find((o) => o.kind === 'Deployment')!.spec.template.spec;
    expect(pod.automountServiceAccountToken).toBe(true);
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
    const [container] = pod.containers;
    expect(container.securityContext).toMatchObject({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } });
    expect(container.livenessProbe.httpGet.path).toBe('/healthz');
    expect(container.readinessProbe.httpGet.path).toBe('/readyz');
    expect(Object.keys(container.resources.limits).sort()).toEqual(['cpu', 'ephemeral-storage', 'memory']);
  });

  it('lets cluster users be granted the kinds through the built-in view, edit and admin roles', () => {
    const view = bundle().find((o) => o.metadata.name === 'cdk8s-operators:view')!;
    expect(view.metadata.labels).toMatchObject({ 'rbac.authorization.k8s.io/aggregate-to-view': 'true', 'rbac.authorization.k8s.io/aggregate-to-admin': 'true' });
    expect(view.rules.flatMap((r: PolicyRule) => r.resources)).toEqual(expect.arrayContaining(KINDS.map((k) => k.plural)));
  });
});

describe.each(KINDS.map((k) => [k.kind, k] as const))('the %s CRD', (_name, kind) => {
  const crd = crdManifest(kind) as any; // eslint-disable-line @typescript-eslint/no-explicit-any

  it('is named <plural>.<group>, in the all-operators category, with a status subresource and printer columns', () => {
    expect(crd.metadata.name).toBe(`${kind.plural}.${kind.group}`);
    expect(crd.spec.names.categories).toEqual(['all-operators']);
    const [version] = crd.spec.versions;
    expect(version.subresources).toEqual({ status: {} });
    expect(version.additionalPrinterColumns.map((c: { name: string }) => c.name)).toEqual(expect.arrayContaining(['Ready', 'Age']));
  });

  it('describes every field, so kubectl explain teaches the kind', () => {
    const undescribed: string[] = [];
    const walk = (schema: OpenApiSchema, path: string) => {
      if (path !== 'metadata' && !schema.description) undescribed.push(path);
      for (const [name, child] of Object.entries(schema.properties ?? {})) walk(child, path ? `${path}.${name}` : name);
      if (schema.items) walk(schema.items, `${path}[]`);
      if (schema.additionalProperties) walk(schema.additionalProperties, `${path}.*`);
    };
    walk(crd.spec.versions[0].schema.openAPIV3Schema, '');
    expect(undescribed).toEqual([]);
  });
});
