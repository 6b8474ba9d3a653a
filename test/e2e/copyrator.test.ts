import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createManager } from '../../src/kube/create-then-apply';
import { KubeObject, ObjectClient } from '../../src/kube/objects';
import { eventually } from '../../src/testing/cluster';
import { ControllerProcess, startController } from '../support/controller-process';
import { DIST, loadYaml, toRunConversion } from '../support/manifests';
import { PrivateCluster, startPrivateCluster } from '../support/private-cluster';
import { eventsIn, gone, readyOf, Resource, whenReady } from '../support/resources';
import { PRODUCT_NAMES } from '../../src/product';

// A private control plane: rules copy into every namespace, which must not disturb other test files.
let cluster: PrivateCluster;
let objects: ObjectClient;
let controller: ControllerProcess;
const logs: string[] = [];

type ConfigMapJson = KubeObject & { data?: Record<string, string>; binaryData?: Record<string, string> };
const SAMPLE = 'copyrator-sample';

const namespace = (name: string, labels: Record<string, string> = {}): KubeObject => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } });
type Extra = { labels?: Record<string, string>; annotations?: Record<string, string>; [field: string]: unknown };
/** An object of `kind` with the given labels, annotations and top-level fields. */
const object = (kind: string, ns: string, name: string, { labels, annotations, ...fields }: Extra = {}) =>
  ({ apiVersion: 'v1', kind, metadata: { name, namespace: ns, ...(labels ? { labels } : {}), ...(annotations ? { annotations } : {}) }, ...fields }) as ConfigMapJson;
const configMap = (ns: string, name: string, extra?: Extra) => object('ConfigMap', ns, name, extra);
const secret = (ns: string, name: string, extra?: Extra) => object('Secret', ns, name, extra);
const rule = (ns: string, name: string, body: Record<string, unknown>): KubeObject => ({ apiVersion: 'test.com/v1', kind: 'CopyratorRule', metadata: { name, namespace: ns }, ...body });

/**
 * The administrator step that keeps the original's rules working as they did (docs/kinds/copyrator.md):
 * the namespaces whose rules below copy from and into other namespaces are trusted.
 */
const TRUSTED = ['--copyrator-trusted-namespaces', 'default,src-1,src-2,list-dst'];

function startServing(args: string[] = [], env: Record<string, string> = {}): ControllerProcess {
  const file = join(cluster.dir, `controller-${logs.length}.log`);
  logs.push(file);
  return startController(['--kubeconfig', cluster.plane.kubeconfig, '--kinds', 'copyrators', '--leader-election=false', '--http-port', '0', ...TRUSTED, ...args], file, env);
}

const ready = (o: KubeObject, status: 'True' | 'False', reason?: string) => whenReady(objects, o, status, reason, controller.logFile);
const get = <T extends KubeObject>(o: KubeObject) => objects.get<T>(o);
const exists = async (o: KubeObject) => !(await gone(objects, o));

/** Active namespaces the sample rule copies into: all but its source and kube-*. */
async function otherNamespaces(source: string): Promise<string[]> {
  const list = await objects.rest.request<{ items: { metadata: { name: string }; status?: { phase?: string } }[] }>('GET', '/api/v1/namespaces');
  return list.items.filter((ns) => ns.status?.phase === 'Active' && ns.metadata.name !== source && !ns.metadata.name.startsWith('kube-')).map((ns) => ns.metadata.name).sort();
}

async function waitForCopies(o: KubeObject, copies: number): Promise<Resource> {
  return eventually(`${o.metadata.name} to count ${copies} copies; log ${controller.logFile}`, async () => {
    const current = await get<Resource>(o);
    return current.status?.copies === copies && readyOf(current)?.status === 'True' && current.status.observedGeneration === current.metadata.generation ? current : undefined;
  });
}

beforeAll(async () => {
  cluster = await startPrivateCluster('e2e-copyrator', 'team-a');
  objects = cluster.objects;
  await objects.apply(namespace('team-b'));
  await objects.create(
    configMap('default', 'app-settings', {
      labels: { copyrator: 'true', team: 'x' },
      data: { 'app.yaml': 'level: debug\n' },
      binaryData: { logo: Buffer.from([0, 1, 2, 255]).toString('base64') },
    }),
  );
  const settings = await get<ConfigMapJson>(configMap('default', 'app-settings'));
  await objects.rest.request('PATCH', '/api/v1/namespaces/default/configmaps/app-settings', {
    body: { metadata: { annotations: { note: 'kept', 'kubectl.kubernetes.io/last-applied-configuration': '{"a":1}' } } },
    contentType: 'application/merge-patch+json',
  });
  expect(settings.metadata.uid).toBeDefined();
  await objects.create(configMap('default', 'feature-flags', { labels: { copyrator: 'true' }, data: { beta: 'on' } }));
  await objects.create(configMap('default', 'private', { labels: { copyrator: 'no' }, data: { secret: 'stays' } }));
  controller = startServing();
}, 120_000);

afterAll(async () => {
  await controller?.stop();
  await cluster?.stop();
});

describe('CopyratorRule', () => {
  it('serves the original sample rule verbatim: every labelled ConfigMap in every other Active namespace but kube-*', async () => {
    await objects.apply(rule('default', SAMPLE, { ruleType: 'configmap', selector: { copyrator: 'true' }, namespace: 'default' }));
    const targets = await otherNamespaces('default');
    expect(targets).toEqual(expect.arrayContaining(['team-a', 'team-b']));
    const served = await waitForCopies(rule('default', SAMPLE, {}), 2 * targets.length);
    expect(readyOf(served)).toMatchObject({ reason: 'Copied' });
    expect(served.status?.conflicts).toEqual([]);

    const source = await get<ConfigMapJson>(configMap('default', 'app-settings'));
    for (const target of targets) {
      const copy = await get<ConfigMapJson>(configMap(target, 'app-settings'));
      expect(copy.data).toEqual(source.data);
      expect(copy.binaryData).toEqual(source.binaryData);
      expect(copy.metadata.labels).toMatchObject({ copyrator: 'true', team: 'x', 'app.kubernetes.io/managed-by': 'cdk8s-operators' });
      expect(copy.metadata.annotations).toEqual({ note: 'kept', 'cdk8s-operators.io/copied-from': 'default/app-settings' });
      expect(copy.metadata.uid).not.toBe(source.metadata.uid);
      expect(copy.metadata.ownerReferences).toBeUndefined();
      const managers = (copy.metadata.managedFields as { manager: string }[]).map((m) => m.manager);
      // Made by a POST, and not changed since.
      expect(managers).toEqual([createManager(PRODUCT_NAMES.fieldManager)]);
    }
    for (const system of ['kube-system', 'kube-public', 'kube-node-lease']) expect(await exists(configMap(system, 'app-settings'))).toBe(false);
    expect(await exists(configMap('team-a', 'private'))).toBe(false);
    expect(await exists(configMap('default', 'kube-root-ca.crt'))).toBe(true);
  });

  it('gives a namespace created later its copies within seconds; a deleted one takes them along and leaves nothing pending', async () => {
    const before = (await otherNamespaces('default')).length;
    const started = Date.now();
    await objects.apply(namespace('team-late'));
    await eventually('copies in the new namespace', async () => ((await exists(configMap('team-late', 'app-settings'))) && (await exists(configMap('team-late', 'feature-flags'))) ? true : undefined), 20_000);
    expect(Date.now() - started).toBeLessThan(20_000);
    await waitForCopies(rule('default', SAMPLE, {}), 2 * (before + 1));

    await objects.delete(namespace('team-late'));
    await eventually('the namespace to finish deleting', async () => ((await gone(objects, namespace('team-late'))) ? true : undefined), 90_000);
    await waitForCopies(rule('default', SAMPLE, {}), 2 * before);
  }, 150_000);

  it('makes every copy follow its source, removes copies of a source gone or unlabelled, and puts back a copy changed by hand', async () => {
    await objects.rest.request('PATCH', '/api/v1/namespaces/default/configmaps/feature-flags', { body: { data: { beta: 'off' } }, contentType: 'application/merge-patch+json' });
    for (const target of ['team-a', 'team-b']) {
      await eventually(`the copy in ${target} to follow`, async () => ((await get<ConfigMapJson>(configMap(target, 'feature-flags'))).data?.beta === 'off' ? true : undefined));
    }

    await objects.delete(configMap('team-b', 'feature-flags'));
    await eventually('the deleted copy to be put back', async () => ((await exists(configMap('team-b', 'feature-flags'))) ? true : undefined));
    await objects.rest.request('PATCH', '/api/v1/namespaces/team-a/configmaps/feature-flags', { body: { data: { beta: 'hacked' } }, contentType: 'application/merge-patch+json' });
    await eventually('the edited copy to be put back', async () => ((await get<ConfigMapJson>(configMap('team-a', 'feature-flags'))).data?.beta === 'off' ? true : undefined));

    await objects.rest.request('PATCH', '/api/v1/namespaces/default/configmaps/feature-flags', { body: { metadata: { labels: { copyrator: null } } }, contentType: 'application/merge-patch+json' });
    await eventually('the unlabelled source\u2019s copies to go', async () => ((await exists(configMap('team-a', 'feature-flags'))) || (await exists(configMap('team-b', 'feature-flags'))) ? undefined : true));
    await objects.create(configMap('default', 'short-lived', { labels: { copyrator: 'true' }, data: { a: 'b' } }));
    await eventually('copies of a new source', async () => ((await exists(configMap('team-b', 'short-lived'))) ? true : undefined));
    await objects.delete(configMap('default', 'short-lived'));
    await eventually('the deleted source\u2019s copies to go', async () => ((await exists(configMap('team-b', 'short-lived'))) ? undefined : true));
    expect(await exists(configMap('team-b', 'app-settings'))).toBe(true);
  });

  it('honours several source namespaces, targetNamespaces, namespaceSelector and excludeNamespaces; a namespace that stops matching loses its copies', async () => {
    for (const ns of ['src-1', 'src-2']) await objects.apply(namespace(ns));
    await objects.apply(namespace('prod-1', { env: 'prod' }));
    await objects.apply(namespace('prod-2', { env: 'prod' }));
    await objects.apply(namespace('prod-3', { env: 'prod' }));
    await objects.create(configMap('src-1', 'one', { labels: { team: 'narrow' }, data: { n: '1' } }));
    await objects.create(configMap('src-2', 'two', { labels: { team: 'narrow' }, data: { n: '2' } }));
    const narrow = rule('src-1', 'narrow', { spec: { ruleType: 'configmap', selector: { team: 'narrow' }, namespaces: ['src-2'], namespaceSelector: { env: 'prod' }, excludeNamespaces: ['prod-3'] } });
    await objects.apply(narrow);
    await waitForCopies(narrow, 4);
    for (const ns of ['prod-1', 'prod-2']) for (const name of ['one', 'two']) expect(await exists(configMap(ns, name))).toBe(true);
    for (const ns of ['prod-3', 'team-a', 'src-2']) expect(await exists(configMap(ns, 'one'))).toBe(false);

    await objects.rest.request('PATCH', '/api/v1/namespaces/prod-2', { body: { metadata: { labels: { env: null } } }, contentType: 'application/merge-patch+json' });
    await waitForCopies(narrow, 2);
    expect(await exists(configMap('prod-2', 'one'))).toBe(false);

    const listed = rule('src-1', 'listed', { spec: { ruleType: 'configmap', selector: { team: 'narrow' }, targetNamespaces: ['team-b'] } });
    await objects.apply(listed);
    await waitForCopies(listed, 1);
    expect((await get<ConfigMapJson>(configMap('team-b', 'one'))).data).toEqual({ n: '1' });
  });

  it('copies from every namespace of a namespace list, as a clone of the original wrote it at the top level and under spec', async () => {
    for (const ns of ['list-a', 'list-b', 'list-dst']) await objects.apply(namespace(ns));
    await objects.create(configMap('list-a', 'from-a', { labels: { listed: 'yes' }, data: { from: 'a' } }));
    await objects.create(configMap('list-b', 'from-b', { labels: { listed: 'yes' }, data: { from: 'b' } }));
    const clone = rule('list-dst', 'clone', { ruleType: 'configmap', selector: { listed: 'yes' }, namespace: ['list-a', 'list-b'] });
    await objects.apply(clone);
    const copied = await waitForCopies(clone, 2 * (await otherNamespaces('list-a')).filter((ns) => ns !== 'list-b').length);
    expect(copied.status?.conflicts ?? []).toEqual([]);
    expect((await get<ConfigMapJson>(configMap('list-dst', 'from-a'))).data).toEqual({ from: 'a' });
    expect((await get<ConfigMapJson>(configMap('list-dst', 'from-b'))).data).toEqual({ from: 'b' });
    // The sources are no targets of each other.
    expect(await exists(configMap('list-a', 'from-b'))).toBe(false);
    await objects.delete(clone);
    await eventually('the clone rule\u2019s copies to go', async () => ((await exists(configMap('list-dst', 'from-a'))) ? undefined : true));

    const underSpec = rule('list-dst', 'under-spec', { spec: { ruleType: 'configmap', selector: { listed: 'yes' }, namespace: ['list-a', 'list-b'], targetNamespaces: ['list-dst'] } });
    await objects.apply(underSpec);
    await waitForCopies(underSpec, 2);
    expect((await get<ConfigMapJson>(configMap('list-dst', 'from-b'))).data).toEqual({ from: 'b' });
  });

  it('leaves a user\u2019s own object and another rule\u2019s copy alone, reports the conflict, and keeps serving the rest', async () => {
    const own = configMap('team-a', 'shared-name', { data: { owner: 'the user' } });
    await objects.create(own);
    const ownBefore = await get<ConfigMapJson>(own);
    await objects.create(configMap('default', 'shared-name', { labels: { copyrator: 'true' }, data: { owner: 'the source' } }));
    const conflicted = await ready(rule('default', SAMPLE, {}), 'False', 'Conflict');
    expect(conflicted.status?.conflicts).toEqual(['ConfigMap team-a/shared-name']);
    expect(readyOf(conflicted)!.message).toContain('ConfigMap team-a/shared-name');
    expect((await get<ConfigMapJson>(configMap('team-b', 'shared-name'))).data).toEqual({ owner: 'the source' });
    const ownAfter = await get<ConfigMapJson>(own);
    expect(ownAfter.metadata.resourceVersion).toBe(ownBefore.metadata.resourceVersion);
    const event = await eventually('a Warning Event', async () => (await eventsIn(objects, 'default')).find((e) => e.regarding.name === SAMPLE && e.reason === 'Conflict'));
    expect(event.type).toBe('Warning');

    // A second rule writing the same copies: the first keeps them.
    const second = rule('default', 'second', { spec: { ruleType: 'configmap', selector: { copyrator: 'true' } } });
    await objects.apply(second);
    const secondStatus = await ready(second, 'False', 'Conflict');
    expect(secondStatus.status?.copies).toBe(0);
    expect(secondStatus.status?.conflicts).toEqual(expect.arrayContaining(['ConfigMap team-b/app-settings']));
    const copy = await get<ConfigMapJson>(configMap('team-b', 'app-settings'));
    expect(copy.metadata.labels).toMatchObject({ 'cdk8s-operators.io/owner-name': SAMPLE });
    await objects.delete(second);
    await eventually('the second rule to be gone', async () => ((await gone(objects, second)) ? true : undefined));
    expect(await exists(configMap('team-b', 'app-settings'))).toBe(true);

    await objects.delete(configMap('default', 'shared-name'));
    await ready(rule('default', SAMPLE, {}), 'True', 'Copied');
    expect((await get<ConfigMapJson>(own)).metadata.resourceVersion).toBe(ownBefore.metadata.resourceVersion);
  });

  it('says in status that Secrets are not copied when the install did not enable it', async () => {
    const secrets = rule('default', 'secrets', { ruleType: 'secret', selector: { copyrator: 'true' }, namespace: 'default' });
    await objects.apply(secrets);
    const refused = await ready(secrets, 'False', 'SecretCopyingDisabled');
    expect(readyOf(refused)!.message).toContain('--enable-secrets');
  });

  it('copies Secrets once enabled, never a service-account token or kube-root-ca.crt, and never logs a value', async () => {
    const value = 'p4ssw0rd-never-logged';
    await objects.create(secret('default', 'db-password', { labels: { copyrator: 'true' }, stringData: { password: value } }));
    await objects.create(
      secret('default', 'a-token', { labels: { copyrator: 'true' }, annotations: { 'kubernetes.io/service-account.name': 'default' }, type: 'kubernetes.io/service-account-token' }),
    );
    await objects.rest.request('PATCH', '/api/v1/namespaces/default/configmaps/kube-root-ca.crt', { body: { metadata: { labels: { copyrator: 'true' } } }, contentType: 'application/merge-patch+json' });
    await controller.stop();
    controller = startServing(['--enable-secrets']);
    const secrets = rule('default', 'secrets', {});
    await ready(secrets, 'True', 'Copied');
    const copied = await get<KubeObject & { data: Record<string, string> }>(secret('team-b', 'db-password'));
    expect(Buffer.from(copied.data.password, 'base64').toString()).toBe(value);
    expect(await exists(secret('team-b', 'a-token'))).toBe(false);
    expect((await get<ConfigMapJson>(configMap('team-b', 'kube-root-ca.crt'))).metadata.labels).toBeUndefined();
    await ready(rule('default', SAMPLE, {}), 'True', 'Copied');
    for (const file of logs) {
      const text = readFileSync(file, 'utf8');
      expect(text).not.toContain(value);
      expect(text).not.toContain(Buffer.from(value).toString('base64'));
    }
    const notes = (await eventsIn(objects, 'default')).map((e) => e.note).join('\n');
    expect(notes).not.toContain(value);
  });

  it('reports a rule planted past the API server\u2019s validation in status, without crashing', async () => {
    const crds = loadYaml(join(DIST, '0-crds.k8s.yaml')).map(toRunConversion);
    const strict = crds.find((c) => c.metadata.name === 'copyrators.test.com')!;
    // Loose in v1, the version the rule is written in (the API server validates a write in its own version).
    const loose = structuredClone(strict) as KubeObject & { spec: { versions: { name: string; schema: { openAPIV3Schema: Record<string, unknown> } }[] } };
    loose.spec.versions.find((v) => v.name === 'v1')!.schema.openAPIV3Schema = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
    await objects.apply(loose);
    const planted = rule('default', 'planted', { spec: { ruleType: 'configmap', selector: {} } });
    await eventually('the loose schema to be served', () => objects.create(planted).then(() => true, () => undefined));
    await objects.apply(strict);
    const invalid = await ready(planted, 'False', 'InvalidSpec');
    expect(readyOf(invalid)!.message).toMatch(/spec\.selector/);
    expect(controller.child.exitCode).toBeNull();
    await objects.delete(planted);
    await eventually('the invalid rule to go', async () => ((await gone(objects, planted)) ? true : undefined));
  });

  it('removes every copy when a rule is deleted, and finishes that after a crash mid-way', async () => {
    for (let i = 0; i < 10; i++) await objects.create(configMap('src-2', `bulk-${i}`, { labels: { bulk: 'yes' }, data: { i: String(i) } }));
    const bulk = rule('src-2', 'bulk', { spec: { ruleType: 'configmap', selector: { bulk: 'yes' } } });
    await objects.apply(bulk);
    const targets = (await otherNamespaces('src-2')).length;
    await waitForCopies(bulk, 10 * targets);
    await objects.delete(bulk);
    await controller.kill(); // during the deletion, or just before it
    controller = startServing(['--enable-secrets']);
    await eventually('the rule to be gone', async () => ((await gone(objects, bulk)) ? true : undefined), 60_000);
    const left = await objects.rest.request<{ items: unknown[] }>('GET', '/api/v1/configmaps', { query: { labelSelector: 'cdk8s-operators.io/owner-name=bulk' } });
    expect(left.items).toEqual([]);
  });

  it('serves only the rules RULE_NAME and NAMESPACE name, as the original did', async () => {
    await controller.stop();
    controller = startServing([], { RULE_NAME: 'picked', NAMESPACE: 'src-1' });
    for (const ns of ['src-1', 'src-2']) await objects.create(configMap(ns, 'pick-me', { labels: { pick: 'me' } }));
    const picked = rule('src-1', 'picked', { spec: { ruleType: 'configmap', selector: { pick: 'me' }, targetNamespaces: ['prod-1'] } });
    const otherName = rule('src-1', 'not-picked', { spec: { ruleType: 'configmap', selector: { pick: 'me' }, targetNamespaces: ['prod-2'] } });
    const otherNamespace = rule('src-2', 'picked', { spec: { ruleType: 'configmap', selector: { pick: 'me' }, targetNamespaces: ['prod-3'] } });
    for (const r of [picked, otherName, otherNamespace]) await objects.apply(r);
    await ready(picked, 'True', 'Copied');
    expect(await exists(configMap('prod-1', 'pick-me'))).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 3000));
    for (const r of [otherName, otherNamespace]) {
      const untouched = await get<Resource>(r);
      expect(untouched.status).toEqual({ observedGeneration: 0 }); // the CRD's default: no controller wrote one
      expect(untouched.metadata.finalizers).toBeUndefined();
    }
    for (const ns of ['prod-2', 'prod-3']) expect(await exists(configMap(ns, 'pick-me'))).toBe(false);
    await controller.stop();
    controller = startServing(['--enable-secrets']);
  });
});
