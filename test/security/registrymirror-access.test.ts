import { join } from 'node:path';
import { KubeObject } from '../../src/kube/objects';
import { createTestNamespace, deleteNamespace, eventually, testKubeConfig } from '../../src/testing/cluster';
import { DIST, installCrds, loadYaml, testObjects } from '../support/manifests';
import { clusterRoleUser, mayDo, namespaceEditor } from '../support/tenancy';

// RegistryMirror changes every node's containerd: its writing is in no built-in role (its
// userAccess is view), so neither a namespace's editor nor a user bound to edit cluster-wide may
// create one; an administrator binds cdk8s-operators:registrymirrors:edit to whom may.
const admin = testObjects();
const kc = testKubeConfig();
const MIRRORS = { group: 'k8s.osp.tech', resource: 'registrymirrors' };
const mirror = (name: string) => ({ apiVersion: 'k8s.osp.tech/v1', kind: 'RegistryMirror', metadata: { name }, spec: { upstreamUrl: 'registry.corp.example' } }) as KubeObject;
let namespace: string;
const unbind: (() => Promise<void>)[] = [];

beforeAll(async () => {
  await installCrds(admin);
  // The install's user roles: those aggregated into the built-in ones, and the one bound on purpose.
  const roles = loadYaml(join(DIST, '1-operator.k8s.yaml')).filter(
    (o) => o.kind === 'ClusterRole' && (Object.keys(o.metadata.labels ?? {}).some((l) => l.startsWith('rbac.authorization.k8s.io/aggregate-to-')) || o.metadata.name === 'cdk8s-operators:registrymirrors:edit'),
  );
  for (const role of roles) await admin.apply(role);
  namespace = await createTestNamespace(kc, 'mirror-access');
}, 120_000);

afterAll(async () => {
  for (const remove of unbind) await remove();
  if (namespace) await deleteNamespace(kc, namespace);
});

describe('who may write RegistryMirrors', () => {
  it('not a user bound to the built-in edit role cluster-wide, who may read them and write the other kinds', async () => {
    const editor = await clusterRoleUser(admin, 'edit', namespace, 'cluster-editor');
    unbind.push(editor.unbind);
    // The aggregation controller has merged the install's roles into edit once it grants another kind's create.
    await eventually('edit to allow creating ExchangeRates (ClusterRole aggregation)', async () => ((await mayDo(admin, editor.username, 'create', 'operators.brennerm.github.io', 'exchangerates', namespace)) ? true : undefined));
    expect(await mayDo(admin, editor.username, 'list', MIRRORS.group, MIRRORS.resource)).toBe(true);
    expect(await mayDo(admin, editor.username, 'create', MIRRORS.group, MIRRORS.resource)).toBe(false);
    await expect(editor.objects.create(mirror('editor-takeover'))).rejects.toThrow(/HTTP 403/);
  });

  it('not a namespace\u2019s editor', async () => {
    const editor = await namespaceEditor(admin, namespace);
    expect(await mayDo(admin, editor.username, 'create', MIRRORS.group, MIRRORS.resource)).toBe(false);
    await expect(editor.objects.create(mirror('namespace-takeover'))).rejects.toThrow(/HTTP 403/);
  });

  it('a user an administrator bound to cdk8s-operators:registrymirrors:edit', async () => {
    const platform = await clusterRoleUser(admin, 'cdk8s-operators:registrymirrors:edit', namespace, 'platform');
    unbind.push(platform.unbind);
    await platform.objects.create(mirror('platform-mirror'), { dryRun: true });
    expect(await mayDo(admin, platform.username, 'delete', MIRRORS.group, MIRRORS.resource)).toBe(true);
  });
});
