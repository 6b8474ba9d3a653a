import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ACCEPT_FROM_ANNOTATION, ALLOWED_NAMESPACES_ANNOTATION } from '../../src/kinds/copyrator';
import { KubeObject } from '../../src/kube/objects';
import { createTestNamespace, deleteNamespace, eventually, testKubeConfig } from '../../src/testing/cluster';
import { ControllerProcess, startController } from '../support/controller-process';
import { DIST, installCrds, loadYaml, testObjects } from '../support/manifests';
import { gone, readyOf, Resource, whenReady } from '../support/resources';
import { mayDo, namespaceEditor, NamespaceEditor, untilEditorMay } from '../support/tenancy';

// A namespace editor (the built-in edit role in one namespace, which our kinds are aggregated
// into) makes the controller copy for it: from kube-system, from the operator's own namespace and
// from another team's namespace, and into another team's namespace. Only what the owners allowed
// is copied, and the rule's status says why the rest is not, naming nothing the editor may not see.
const admin = testObjects();
const kc = testKubeConfig();
const dir = mkdtempSync(join(tmpdir(), 'copyrator-consent-'));
const tag = randomBytes(3).toString('hex');
let mine: string;
let theirs: string;
/** Stands for the operator's own namespace (--leader-election-namespace), so that the shared control plane's is left alone. */
let operator: string;
let editor: NamespaceEditor;
let theirEditor: NamespaceEditor;
let controller: ControllerProcess | undefined;

const configMap = (namespace: string, name: string, extra: { labels?: Record<string, string>; annotations?: Record<string, string> } = {}): KubeObject =>
  ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace, ...extra }, data: { from: namespace } }) as KubeObject;
const rule = (name: string, spec: Record<string, unknown>): KubeObject => ({ apiVersion: 'test.com/v2', kind: 'CopyratorRule', metadata: { name, namespace: mine }, spec }) as KubeObject;
const labels = { [`stolen-${tag}`]: 'yes' };
const [SYSTEM, OPERATOR, THEIRS, OWN] = ['system', 'operator', 'theirs', 'own'].map((what) => `${what}-${tag}`);
const exists = async (o: KubeObject) => !(await gone(admin, o));

function serve(...args: string[]): ControllerProcess {
  return startController(
    ['--kubeconfig', process.env.TEST_KUBECONFIG!, '--kinds', 'copyrators', '--namespace', mine, '--leader-election=false', '--leader-election-namespace', operator, '--http-port', '0', ...args],
    join(dir, `controller-${Date.now()}.log`),
  );
}

/** The rule's Ready condition as the editor reads it, once it says `reason` for its generation. */
async function readyAsEditor(o: KubeObject, status: 'True' | 'False', reason: string): Promise<Resource> {
  await whenReady(admin, o, status, reason, controller?.logFile);
  return editor.objects.get<Resource>(o);
}

beforeAll(async () => {
  await installCrds(admin);
  for (const role of loadYaml(join(DIST, '1-operator.k8s.yaml')).filter((o) => o.kind === 'ClusterRole' && o.metadata.labels?.['rbac.authorization.k8s.io/aggregate-to-edit'])) await admin.apply(role);
  [mine, theirs, operator] = await Promise.all([createTestNamespace(kc, 'consent-mine'), createTestNamespace(kc, 'consent-theirs'), createTestNamespace(kc, 'consent-operator')]);
  [editor, theirEditor] = await Promise.all([namespaceEditor(admin, mine), namespaceEditor(admin, theirs)]);
  await untilEditorMay(admin, editor, 'create', 'test.com', 'copyrators');
  // Objects the editor may not read, labelled as its rule selects.
  for (const [ns, name] of [['kube-system', SYSTEM], [operator, OPERATOR], [theirs, THEIRS]]) await admin.apply(configMap(ns, name, { labels }));
  await admin.apply(configMap(mine, OWN, { labels }));
  controller = serve();
}, 120_000);

afterAll(async () => {
  // The rules go while the controller runs, which removes their copies and finalizers: their namespace can then go too.
  for (const name of ['steal', 'push']) await admin.delete(rule(name, {})).catch(() => undefined);
  await eventually('the rules to be gone', async () => ((await gone(admin, rule('steal', {}))) && (await gone(admin, rule('push', {}))) ? true : undefined)).catch(() => undefined);
  await controller?.stop();
  await admin.delete(configMap('kube-system', SYSTEM)).catch(() => undefined);
  await Promise.all([mine, theirs, operator].filter(Boolean).map((ns) => deleteNamespace(kc, ns)));
});

describe('a CopyratorRule of a namespace editor', () => {
  it('copies nothing from kube-system, the operator\u2019s namespace or another team\u2019s, and says why in status, naming the field', async () => {
    expect(await mayDo(admin, editor.username, 'get', '', 'configmaps', theirs)).toBe(false);
    const steal = rule('steal', { ruleType: 'configmap', selector: labels, namespaces: ['kube-system', operator, theirs], targetNamespaces: [mine] });
    await editor.objects.apply(steal);
    const refused = await readyAsEditor(steal, 'False', 'NotAllowed');
    const message = readyOf(refused)!.message;
    expect(message).toContain(`spec.namespaces: kube-system is never copied from`);
    expect(message).toContain(`spec.namespaces: ${operator} is never copied from`);
    expect(message).toContain(`spec.namespaces: nothing in ${theirs} is copied: a ConfigMap there is copied only when its owner annotates it ${ALLOWED_NAMESPACES_ANNOTATION} naming ${mine}`);
    // Nothing names an object of a namespace the editor cannot read.
    for (const name of [SYSTEM, OPERATOR, THEIRS]) expect(JSON.stringify(refused.status)).not.toContain(name);
    expect(refused.status).toMatchObject({ copies: 0, conflicts: [] });
    for (const name of [SYSTEM, OPERATOR, THEIRS]) expect(await exists(configMap(mine, name))).toBe(false);
  });

  it('copies another team\u2019s object once its owner allows the rule\u2019s namespace, and stops when the owner withdraws', async () => {
    const steal = rule('steal', {});
    const source = configMap(theirs, THEIRS);
    // The other team's own editor consents, with the rights it has.
    await theirEditor.objects.rest.request('PATCH', `/api/v1/namespaces/${theirs}/configmaps/${THEIRS}`, {
      body: { metadata: { annotations: { [ALLOWED_NAMESPACES_ANNOTATION]: `other, ${mine.slice(0, 10)}*` } } },
      contentType: 'application/merge-patch+json',
    });
    await eventually('the consenting source to be copied', async () => ((await exists(configMap(mine, THEIRS))) ? true : undefined));
    expect((await admin.get<KubeObject & { data: Record<string, string> }>(configMap(mine, THEIRS))).data).toEqual({ from: theirs });
    const partly = await eventually('status to count the copy', async () => {
      const current = await editor.objects.get<Resource>(steal);
      return current.status?.copies === 1 && current.status.observedGeneration === current.metadata.generation ? current : undefined;
    });
    expect(readyOf(partly)).toMatchObject({ status: 'False', reason: 'NotAllowed' });
    expect(readyOf(partly)!.message).not.toContain(theirs);

    await theirEditor.objects.rest.request('PATCH', `/api/v1/namespaces/${theirs}/configmaps/${THEIRS}`, {
      body: { metadata: { annotations: { [ALLOWED_NAMESPACES_ANNOTATION]: null } } },
      contentType: 'application/merge-patch+json',
    });
    await eventually('the copy to go with the consent', async () => ((await exists(configMap(mine, THEIRS))) ? undefined : true));
    expect(await exists(source)).toBe(true);
  });

  it('writes nothing into a namespace that does not accept copies from it, until its administrator annotates it', async () => {
    const push = rule('push', { ruleType: 'configmap', selector: labels, targetNamespaces: [theirs] });
    await editor.objects.apply(push);
    const refused = await readyAsEditor(push, 'False', 'NotAllowed');
    expect(readyOf(refused)!.message).toBe(`spec.targetNamespaces: ${theirs} does not accept copies from ${mine}: its administrator may annotate the Namespace ${ACCEPT_FROM_ANNOTATION} naming it`);
    expect(await exists(configMap(theirs, OWN))).toBe(false);
    // Neither team's editor may change a Namespace: consent to receive copies is the administrator's.
    expect(await mayDo(admin, theirEditor.username, 'patch', '', 'namespaces')).toBe(false);
    await admin.rest.request('PATCH', `/api/v1/namespaces/${theirs}`, { body: { metadata: { annotations: { [ACCEPT_FROM_ANNOTATION]: mine } } }, contentType: 'application/merge-patch+json' });
    await readyAsEditor(push, 'True', 'Copied');
    expect(await exists(configMap(theirs, OWN))).toBe(true);

    await admin.rest.request('PATCH', `/api/v1/namespaces/${theirs}`, { body: { metadata: { annotations: { [ACCEPT_FROM_ANNOTATION]: null } } }, contentType: 'application/merge-patch+json' });
    await eventually('the copy to go with the namespace\u2019s consent', async () => ((await exists(configMap(theirs, OWN))) ? undefined : true));
  });

  it('names a conflict in another namespace without that namespace', async () => {
    // The other team has an object of the name the editor's copy would take; its namespace accepts copies.
    await admin.apply(configMap(theirs, OWN, { labels: { mine: 'no' } }));
    await admin.rest.request('PATCH', `/api/v1/namespaces/${theirs}`, { body: { metadata: { annotations: { [ACCEPT_FROM_ANNOTATION]: mine } } }, contentType: 'application/merge-patch+json' });
    const push = rule('push', {});
    const conflicted = await readyAsEditor(push, 'False', 'Conflict');
    expect(conflicted.status?.conflicts).toEqual([`ConfigMap ${OWN} in another namespace`]);
    expect(readyOf(conflicted)!.message).not.toContain(theirs);
    await admin.delete(configMap(theirs, OWN));
    await readyAsEditor(push, 'True', 'Copied');
    await admin.rest.request('PATCH', `/api/v1/namespaces/${theirs}`, { body: { metadata: { annotations: { [ACCEPT_FROM_ANNOTATION]: null } } }, contentType: 'application/merge-patch+json' });
    await eventually('the copy to go with the namespace\u2019s consent', async () => ((await exists(configMap(theirs, OWN))) ? undefined : true));
  });

  it('copies as before for a namespace the administrator trusts, but never from kube-* or the operator\u2019s namespace', async () => {
    await controller!.stop();
    controller = serve(`--copyrator-trusted-namespaces=${mine}`);
    const push = rule('push', {});
    await readyAsEditor(push, 'True', 'Copied');
    expect(await exists(configMap(theirs, OWN))).toBe(true);
    const steal = rule('steal', {});
    await eventually('the other team\u2019s object to be copied without consent', async () => ((await exists(configMap(mine, THEIRS))) ? true : undefined));
    // The copy is written before the status that counts it: wait for the count, not the copy alone.
    const still = await eventually('status to count the copy', async () => {
      const current = await editor.objects.get<Resource>(steal);
      return current.status?.copies === 1 && current.status.observedGeneration === current.metadata.generation ? current : undefined;
    });
    expect(readyOf(still)).toMatchObject({ status: 'False', reason: 'NotAllowed' });
    // In the order of spec.namespaces, sorted.
    expect(readyOf(still)!.message).toBe(
      `spec.namespaces: ${operator} is never copied from (a kube-* namespace or the operator\u2019s own); spec.namespaces: kube-system is never copied from (a kube-* namespace or the operator\u2019s own)`,
    );
    expect((await admin.get<KubeObject & { data: Record<string, string> }>(configMap(mine, THEIRS))).data).toEqual({ from: theirs });
  });
});
