import { App, Chart, Testing } from 'cdk8s';
import { crdManifest } from '../../src/bundle/crd';
import { OperatorBundle } from '../../src/bundle/operator';
import { webhookServiceConfig } from '../../src/bundle/deployment';
import { PolicyRule } from '../../src/bundle/rbac';
import { OpenApiSchema } from '../../src/schema';
import { KINDS } from '../../src/kinds';
import { crdName, extraGroupNames, isExtraIdentity, servedIdentities } from '../../src/core/groups';
import { hasVersions } from '../../src/core/contract/versions';
import { CustomResourceDefinitions } from '../../src/bundle/crd';
import { installOptions } from '../../src/core/contract/options';
import { defineTestKind } from '../../src/testing/test-kind';
import { PRODUCT_IDENTITY, PRODUCT_NAMES } from '../../src/product';

function bundle(secretCopy = false, withoutExtraGroups: string[] = []): Record<string, any>[] { // eslint-disable-line @typescript-eslint/no-explicit-any
  const chart = new Chart(Testing.app() as App, 'test', { disableResourceNameHashes: true });
  new OperatorBundle(chart, 'operator', { operator: PRODUCT_NAMES, kinds: KINDS, optIns: secretCopy ? ['secrets'] : [], withoutExtraGroups });
  return chart.toJson();
}
const controllerRules = (objects: Record<string, any>[]): PolicyRule[] => // eslint-disable-line @typescript-eslint/no-explicit-any
  objects.filter((o) => ['ClusterRole', 'Role'].includes(o.kind) && !/:(view|edit|guitar-ui|metrics-reader)$/.test(o.metadata.name)).flatMap((o) => o.rules);

describe('the operator bundle', () => {
  it('grants no wildcard anywhere', () => {
    for (const rule of bundle(true).filter((o) => o.rules).flatMap((o) => o.rules as (PolicyRule & { nonResourceURLs?: string[] })[])) {
      expect([...(rule.apiGroups ?? []), ...(rule.resources ?? []), ...(rule.nonResourceURLs ?? []), ...rule.verbs]).not.toContain('*');
    }
  });

  it('ships metrics-reader (get /metrics, bound to no one), lets the controller review tokens and access, and admits the metrics port only from labelled namespaces', () => {
    const objects = bundle();
    const role = (name: string) => objects.find((o) => o.kind === 'ClusterRole' && o.metadata.name === name);
    expect(role('cdk8s-operators:metrics-reader')!.rules).toEqual([{ nonResourceURLs: ['/metrics'], verbs: ['get'] }]);
    expect(objects.some((o) => o.kind === 'ClusterRoleBinding' && o.roleRef.name === 'cdk8s-operators:metrics-reader')).toBe(false);
    expect(role('cdk8s-operators:metrics-auth')!.rules).toEqual([
      { apiGroups: ['authentication.k8s.io'], resources: ['tokenreviews'], verbs: ['create'] },
      { apiGroups: ['authorization.k8s.io'], resources: ['subjectaccessreviews'], verbs: ['create'] },
    ]);
    const policy = objects.find((o) => o.kind === 'NetworkPolicy' && o.metadata.name === 'controller')!;
    const rulesFor = (port: number) => policy.spec.ingress.filter((r: { ports: { port: number }[] }) => r.ports.some((p) => p.port === port));
    expect(rulesFor(8443)).toEqual([{ from: [{ namespaceSelector: { matchLabels: { metrics: 'enabled' } } }], ports: [{ port: 8443, protocol: 'TCP' }] }]);
    // The probes' port holds no data; the webhook's cannot name the API server (docs/security.md).
    expect(rulesFor(8080)).toEqual([{ ports: [{ port: 8080, protocol: 'TCP' }] }]);
    const service = objects.find((o) => o.kind === 'Service' && o.metadata.name === 'controller-metrics')!;
    expect(service.spec.ports).toEqual([{ name: 'https', port: 8443, targetPort: 'metrics', protocol: 'TCP' }]);
  });

  it('reads CRDs, and writes only its versioned CRDs by name: the webhook\u2019s caBundle and the pruned storedVersions', () => {
    const rules = controllerRules(bundle()).filter((r) => r.resources.some((resource) => resource.startsWith('customresourcedefinitions')));
    const versioned = KINDS.filter(hasVersions).flatMap((k) => servedIdentities(k).map(crdName)).sort();
    for (const rule of rules) {
      if (rule.verbs.some((verb) => verb !== 'get' && verb !== 'list' && verb !== 'watch')) expect([...(rule.resourceNames ?? [])].sort()).toEqual(versioned);
    }
    expect(rules.filter((r) => r.resources.includes('customresourcedefinitions/status')).flatMap((r) => r.verbs)).toEqual(['patch']);
  });

  it('lists and watches Secrets cluster-wide only when Secret copying is enabled, and changes them only then; the Database deletes its own credentials by name', () => {
    const databases = (o: Record<string, unknown>) => /^cdk8s-operators:databases/.test((o.metadata as { name: string }).name);
    const clusterRoles = (objects: Record<string, unknown>[]) => objects.filter((o) => o.kind === 'ClusterRole');
    const secretVerbs = (objects: Record<string, unknown>[]) =>
      new Set(controllerRules(clusterRoles(objects) as never).filter((r) => r.apiGroups.includes('') && r.resources.includes('secrets')).flatMap((r) => r.verbs));
    const without = secretVerbs(bundle(false).filter((o) => !databases(o)));
    for (const verb of ['list', 'watch', 'update', 'patch', 'delete']) expect(without).not.toContain(verb);
    // The credentials have no owner while the final snapshot needs them: the controller deletes them by name, never lists them.
    expect(secretVerbs(bundle(false).filter(databases))).toEqual(new Set(['get', 'create', 'delete']));
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

  // A kind with versions is also updated as it is, once, to move it to the new storage version (docs/operating.md#stored-versions).
  it.each(KINDS.map((k) => [k.kind, k] as const))('lets the controller write only the status of %s, never its spec but to migrate its storage', (_name, kind) => {
    const rules = controllerRules(bundle()).filter((r) => r.apiGroups.includes(kind.group));
    const verbsOn = (resource: string) => [...new Set(rules.filter((r) => r.resources.includes(resource)).flatMap((r) => r.verbs))].sort();
    const own = kind.finalizer ? ['get', 'list', 'patch', 'watch'] : ['get', 'list', 'watch'];
    expect(verbsOn(kind.plural)).toEqual(hasVersions(kind) ? [...own, 'update'].sort() : own);
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
  const crd = crdManifest(kind, webhookServiceConfig(PRODUCT_IDENTITY.namespace)) as any; // eslint-disable-line @typescript-eslint/no-explicit-any

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

const EXTRA_KINDS = KINDS.filter((k) => k.extraGroups?.length);

describe.each(EXTRA_KINDS.flatMap((k) => servedIdentities(k).filter(isExtraIdentity)).map((k) => [crdName(k), k] as const))('the extra group %s', (name, extra) => {
  const main = KINDS.find((k) => k.kind === extra.kind)!;
  const crd = crdManifest(extra, webhookServiceConfig(PRODUCT_IDENTITY.namespace)) as any; // eslint-disable-line @typescript-eslint/no-explicit-any
  const mainCrd = crdManifest(main, webhookServiceConfig(PRODUCT_IDENTITY.namespace)) as any; // eslint-disable-line @typescript-eslint/no-explicit-any

  it('is a CRD of its own with the main group\u2019s kind, plural, schema, printer columns and category, and no short names', () => {
    expect(crd.metadata.name).toBe(name);
    expect(crd.spec.group).toBe(extra.group);
    const { shortNames, ...names } = mainCrd.spec.names;
    expect(shortNames.length).toBeGreaterThan(0);
    expect(crd.spec.names).toEqual(names);
    expect(crd.spec.names.categories).toEqual(['all-operators']);
    expect(crd.spec.versions).toEqual(mainCrd.spec.versions);
  });

  it('is synthesized beside the main group\u2019s CRD, unless left out', () => {
    const names = (without: string[]) => {
      const chart = new Chart(Testing.app() as App, 'crds');
      new CustomResourceDefinitions(chart, 'crds', { kinds: KINDS, withoutExtraGroups: without, webhook: webhookServiceConfig(PRODUCT_IDENTITY.namespace) });
      return chart.toJson().map((o: { metadata: { name: string } }) => o.metadata.name);
    };
    expect(names([])).toEqual(expect.arrayContaining([crdName(main), name]));
    expect(names([name])).toEqual(expect.arrayContaining([crdName(main)]));
    expect(names([name])).not.toContain(name);
  });

  it('gets a ClusterRole of its own, bound to the controller: read, status and finalizers of its objects, as the main group gets, nothing more', () => {
    const objects = bundle();
    const role = objects.find((o) => o.kind === 'ClusterRole' && o.metadata.name === `cdk8s-operators:${name}`)!;
    const mainRules = objects.find((o) => o.kind === 'ClusterRole' && o.metadata.name === `cdk8s-operators:${main.plural}`)!.rules as PolicyRule[];
    const own = mainRules.filter((r) => r.apiGroups.includes(main.group)).map((r) => ({ ...r, apiGroups: [extra.group] }));
    expect(role.rules).toEqual(own);
    const binding = objects.find((o) => o.kind === 'ClusterRoleBinding' && o.metadata.name === role.metadata.name)!;
    expect(binding.roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role.metadata.name });
    expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: 'controller', namespace: 'cdk8s-operators' }]);
  });

  it('is granted to cluster users through aggregated view and edit roles of its own', () => {
    const objects = bundle();
    const view = objects.find((o) => o.metadata.name === `cdk8s-operators:${name}:view`)!;
    const edit = objects.find((o) => o.metadata.name === `cdk8s-operators:${name}:edit`)!;
    expect(view.metadata.labels).toMatchObject({ 'rbac.authorization.k8s.io/aggregate-to-view': 'true', 'rbac.authorization.k8s.io/aggregate-to-edit': 'true' });
    expect(view.rules).toEqual([{ apiGroups: [extra.group], resources: [extra.plural, `${extra.plural}/status`], verbs: ['get', 'list', 'watch'] }]);
    expect(edit.metadata.labels).toMatchObject({ 'rbac.authorization.k8s.io/aggregate-to-edit': 'true', 'rbac.authorization.k8s.io/aggregate-to-admin': 'true' });
    expect(edit.metadata.labels['rbac.authorization.k8s.io/aggregate-to-view']).toBeUndefined();
    expect(edit.rules).toEqual([{ apiGroups: [extra.group], resources: [extra.plural], verbs: ['create', 'update', 'patch', 'delete', 'deletecollection'] }]);
  });

  it('left out, has no RBAC, the controller is told so, and nothing of the main groups changes', () => {
    const all = bundle();
    const without = bundle(false, [name]);
    expect(without.filter((o) => o.metadata.name.includes(name))).toEqual([]);
    const args = (objects: Record<string, any>[]) => objects.find((o) => o.kind === 'Deployment')!.spec.template.spec.containers[0].args as string[]; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(args(without)).toContain(`--without-extra-groups=${name}`);
    expect(args(all).some((a) => a.startsWith('--without-extra-groups'))).toBe(false);
    // The rules naming every versioned CRD (the webhook's, the storage migration's) lose only the left-out group's.
    const ofOthers = (rules: PolicyRule[]) =>
      rules.filter((r) => !(r.apiGroups?.length === 1 && r.apiGroups[0] === extra.group)).map((r) => (r.resourceNames ? { ...r, resourceNames: r.resourceNames.filter((n) => n !== name) } : r));
    const unnamed = (o: Record<string, any>) => (o.rules ? { ...o, rules: ofOthers(o.rules) } : o); // eslint-disable-line @typescript-eslint/no-explicit-any
    // The storage migrations policy lists every group migrated: the one left out no longer.
    const migrations = (objects: Record<string, any>[]) => objects.find((o) => o.kind === 'ValidatingAdmissionPolicy' && o.metadata.name === 'cdk8s-operators-controller-storage-migrations')!.spec.validations[0].expression as string; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect([migrations(all).includes(`'${extra.group}/${extra.plural}'`), migrations(without).includes(`'${extra.group}/${extra.plural}'`)]).toEqual([true, false]);
    const isMigrationsPolicy = (o: Record<string, any>) => o.kind === 'ValidatingAdmissionPolicy' && o.metadata.name === 'cdk8s-operators-controller-storage-migrations'; // eslint-disable-line @typescript-eslint/no-explicit-any
    const rest = (objects: Record<string, any>[]) => objects.filter((o) => !o.metadata.name.includes(name) && o.kind !== 'Deployment' && !isMigrationsPolicy(o)).map(unnamed); // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(rest(without)).toEqual(rest(all));
  });
});

it('names every extra group of the kinds as an install may leave it out', () => {
  expect(extraGroupNames(KINDS)).toEqual(['copyrators.flant.com', 'databases.stable.imaginedata.co']);
});

describe('a kind\u2019s user access and install options, on test kinds', () => {
  const render = () => undefined;
  const editable = defineTestKind('Editable', { render });
  const nodeWide = defineTestKind('NodeWide', {
    render,
    scope: 'Cluster',
    userAccess: 'view',
    controller: { options: [{ name: 'node-wide-hosts', type: 'list', installValue: 'nodeWideHosts', description: 'Hosts a NodeWide may touch.' }, { name: 'node-wide-debug', type: 'boolean', description: 'Not an install option.' }] },
  });
  const objects = (installValues?: Record<string, unknown>) => {
    const chart = new Chart(Testing.app() as App, 'test', { disableResourceNameHashes: true });
    new OperatorBundle(chart, 'operator', { operator: PRODUCT_NAMES, kinds: [editable, nodeWide], installValues });
    return chart.toJson() as Record<string, any>[]; // eslint-disable-line @typescript-eslint/no-explicit-any
  };
  const role = (name: string) => objects().find((o) => o.kind === 'ClusterRole' && o.metadata.name === name)!;

  it('aggregates reading every kind into view, and writing only the kinds with edit access into edit and admin', () => {
    expect(role('cdk8s-operators:view').rules.map((r: PolicyRule) => r.resources)).toEqual([['editables', 'editables/status'], ['nodewides', 'nodewides/status']]);
    expect(role('cdk8s-operators:edit').rules).toEqual([{ apiGroups: [editable.group], resources: ['editables'], verbs: ['create', 'update', 'patch', 'delete', 'deletecollection'] }]);
  });

  it('puts writing a kind with view access into a role of its own that no built-in role aggregates', () => {
    const own = role('cdk8s-operators:nodewides:edit');
    expect(own.rules).toEqual([{ apiGroups: [nodeWide.group], resources: ['nodewides'], verbs: ['create', 'update', 'patch', 'delete', 'deletecollection'] }]);
    expect(Object.keys(own.metadata.labels).filter((label) => label.startsWith('rbac.authorization.k8s.io/'))).toEqual([]);
  });

  it('passes the install options an administrator set to the controller, and only those', () => {
    const args = (values?: Record<string, unknown>) => objects(values).find((o) => o.kind === 'Deployment')!.spec.template.spec.containers[0].args as string[];
    expect(installOptions([editable, nodeWide]).map((o) => o.name)).toEqual(['node-wide-hosts']);
    expect(args({ 'node-wide-hosts': ['a.example', '*.b.example'] })).toContain('--node-wide-hosts=a.example,*.b.example');
    expect(args().filter((a) => a.startsWith('--node-wide'))).toEqual([]);
    expect(args({ 'node-wide-hosts': [] }).filter((a) => a.startsWith('--node-wide'))).toEqual([]);
  });
});
