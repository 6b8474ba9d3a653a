import { join } from 'node:path';
import { KINDS } from '../../src/kinds';
import { createTestNamespace, deleteNamespace, testKubeConfig } from '../../src/testing/cluster';
import { DIST, installCrds, loadYaml, testObjects } from '../support/manifests';
import { mayDo, namespaceEditor, NamespaceEditor, untilEditorMay } from '../support/tenancy';

// The user every tenancy test acts as: a ServiceAccount bound to the built-in edit role in one
// namespace, which gains our kinds as a real cluster's does (the install's aggregated ClusterRoles,
// merged in by the control plane's aggregation controller).
const admin = testObjects();
const kc = testKubeConfig();
let mine: string;
let theirs: string;
let editor: NamespaceEditor;

beforeAll(async () => {
  await installCrds(admin);
  for (const role of loadYaml(join(DIST, '1-operator.k8s.yaml')).filter((o) => o.kind === 'ClusterRole' && o.metadata.labels?.['rbac.authorization.k8s.io/aggregate-to-edit'])) {
    await admin.apply(role);
  }
  [mine, theirs] = await Promise.all([createTestNamespace(kc, 'editor-mine'), createTestNamespace(kc, 'editor-theirs')]);
  editor = await namespaceEditor(admin, mine);
}, 120_000);

afterAll(async () => {
  await Promise.all([mine, theirs].filter(Boolean).map((ns) => deleteNamespace(kc, ns)));
});

describe('a namespace editor, as a real cluster makes one', () => {
  it.each(KINDS.filter((kind) => kind.scope === 'Namespaced').map((kind) => [kind.kind, kind] as const))('may create %ss in its namespace through the aggregated edit role, and in no other', async (_name, kind) => {
    await untilEditorMay(admin, editor, 'create', kind.group, kind.plural);
    expect(await mayDo(admin, editor.username, 'create', kind.group, kind.plural, theirs)).toBe(false);
  });

  it('reads no Secret and writes no ConfigMap outside its namespace', async () => {
    expect(await mayDo(admin, editor.username, 'get', '', 'secrets', mine)).toBe(true);
    expect(await mayDo(admin, editor.username, 'get', '', 'secrets', theirs)).toBe(false);
    expect(await mayDo(admin, editor.username, 'create', '', 'configmaps', theirs)).toBe(false);
    await expect(editor.objects.rest.request('GET', `/api/v1/namespaces/${theirs}/configmaps`)).rejects.toThrow(/HTTP 403/);
  });
});
