import { App, Chart, Testing } from 'cdk8s';
import { OperatorBundle } from '../../src/bundle/operator';
import { kindRules, PolicyRule } from '../../src/bundle/rbac';
import { namespacedKinds } from '../../src/core/install/namespaced';
import { KINDS } from '../../src/kinds';
import { buildApp, loadFromEnvironment } from '../../src/app';
import { childrenOf, defineTestKind } from '../../src/testing/test-kind';
import { PRODUCT_NAMES } from '../../src/product';

type Manifest = { kind: string; metadata: { name: string; namespace?: string }; rules?: PolicyRule[]; roleRef?: { kind: string; name: string }; subjects?: unknown[]; spec?: any }; // eslint-disable-line @typescript-eslint/no-explicit-any

const NAMESPACES = ['team-a', 'team-b'];
const servable = defineTestKind('Served', { servesNamespaces: true, manages: [childrenOf('', 'configmaps')], render: () => undefined });
const everywhere = defineTestKind('Everywhere', { manages: [childrenOf('', 'configmaps'), { apiGroup: '', resources: ['namespaces'], verbs: ['get', 'list', 'watch'] }], render: () => undefined });
const clusterWide = defineTestKind('Wide', { scope: 'Cluster', servesNamespaces: true, manages: [childrenOf('apps', 'deployments')], render: () => undefined });

function bundle(kinds = [servable], watchNamespaces: string[] = NAMESPACES): Manifest[] {
  const chart = new Chart(Testing.app() as App, 'test', { disableResourceNameHashes: true });
  new OperatorBundle(chart, 'operator', { operator: PRODUCT_NAMES, kinds, watchNamespaces });
  return chart.toJson() as Manifest[];
}
const named = (objects: Manifest[], kind: string, name: string) => objects.filter((o) => o.kind === kind && o.metadata.name === name);

describe('the namespaced install', () => {
  it('grants each kind its rules (own objects, status, finalizers, children) in a Role per namespace served, bound to the controller there, and in no ClusterRole', () => {
    const objects = bundle();
    const roles = named(objects, 'Role', 'cdk8s-operators:serveds');
    expect(roles.map((r) => r.metadata.namespace)).toEqual(NAMESPACES);
    for (const role of roles) expect(role.rules).toEqual(kindRules(servable, { optIns: [] }));
    expect(roles[0].rules!.flatMap((r) => r.resources)).toEqual(expect.arrayContaining(['serveds', 'serveds/status', 'serveds/finalizers', 'configmaps']));
    const bindings = named(objects, 'RoleBinding', 'cdk8s-operators:serveds');
    expect(bindings.map((b) => [b.metadata.namespace, b.roleRef])).toEqual(NAMESPACES.map((ns) => [ns, { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'cdk8s-operators:serveds' }]));
    expect(bindings[0].subjects).toEqual([{ kind: 'ServiceAccount', name: 'controller', namespace: 'cdk8s-operators' }]);
    expect(named(objects, 'ClusterRole', 'cdk8s-operators:serveds')).toEqual([]);
  });

  it('keeps in ClusterRoles only what cannot be namespaced: reading CRDs, Events, reviewing metrics callers; no child collection, no object of a kind', () => {
    const objects = bundle();
    const clusterRules = objects.filter((o) => o.kind === 'ClusterRole' && o.metadata.name !== 'cdk8s-operators:metrics-reader' && !/:(view|edit)$/.test(o.metadata.name)).flatMap((o) => o.rules!);
    expect(clusterRules.flatMap((r) => r.resources).sort()).toEqual(['customresourcedefinitions', 'events', 'events', 'subjectaccessreviews', 'tokenreviews']);
    expect(clusterRules.filter((r) => r.resources.includes('customresourcedefinitions')).flatMap((r) => r.verbs)).toEqual(['get', 'list', 'watch']);
  });

  it('runs the controller on the kinds and namespaces it has Roles for', () => {
    const args = bundle().find((o) => o.kind === 'Deployment')!.spec.template.spec.containers[0].args as string[];
    expect(args).toEqual(expect.arrayContaining(['--kinds=serveds', '--namespace=team-a,team-b', '--namespaced-rbac']));
  });

  it('refuses a kind that cannot be served in some namespaces only, naming it, why and the option', () => {
    expect(() => bundle([servable, everywhere])).toThrow(/^watchNamespaces: these kinds cannot be served in some namespaces only: Everywhere \(everywheres\): it reads or writes beyond its objects’ own namespaces; expected only kinds that can \(serveds\)/);
    expect(() => bundle([clusterWide])).toThrow(/Wide \(wides\): it is cluster-scoped/);
  });

  it('synth --watch-namespaces: the kinds that can be served so, Roles in the namespaces, every CRD; a bad name is refused naming the option', () => {
    const options = loadFromEnvironment({}, ['--watch-namespaces', 'team-a,team-b']);
    expect(options.watchNamespaces).toEqual(NAMESPACES);
    const [crds, operator] = buildApp(new App(), options).map((chart) => chart.toJson() as Manifest[]);
    expect(crds.filter((o) => o.kind === 'CustomResourceDefinition').length).toBeGreaterThanOrEqual(KINDS.length);
    const served = namespacedKinds(KINDS).map((k) => k.plural);
    expect(served).toEqual(expect.arrayContaining(['exchangerates', 'databases']));
    expect(served).not.toContain('registrymirrors');
    expect(served).not.toContain('copyrators');
    for (const plural of served) expect(named(operator, 'Role', `cdk8s-operators:${plural}`).map((r) => r.metadata.namespace)).toEqual(NAMESPACES);
    // Nothing lists or watches a namespaced collection cluster-wide.
    const clusterReads = operator.filter((o) => o.kind === 'ClusterRole' && !/:(view|edit|metrics-reader)$/.test(o.metadata.name)).flatMap((o) => o.rules!).filter((r) => r.verbs.some((v) => v === 'list' || v === 'watch'));
    expect(clusterReads.flatMap((r) => r.resources)).toEqual(['customresourcedefinitions']);
    expect(() => loadFromEnvironment({}, ['--watch-namespaces', 'team-a,Team_B'])).toThrow(/--watch-namespaces: "Team_B" is no namespace name; expected lower-case letters/);
  });

  it('changes nothing without namespaces: ClusterRoles, as before', () => {
    const objects = bundle([servable], []);
    expect(named(objects, 'ClusterRole', 'cdk8s-operators:serveds')[0].rules).toEqual(kindRules(servable, { optIns: [] }));
    expect(objects.filter((o) => o.kind === 'Role' && o.metadata.name === 'cdk8s-operators:serveds')).toEqual([]);
  });
});
