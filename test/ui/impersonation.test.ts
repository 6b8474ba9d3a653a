import { join } from 'node:path';
import { uiRules } from '../../src/ui/install';
import { KubeObject, ObjectClient } from '../../src/kube/objects';
import { isNotFound } from '../../src/kube/rest';
import { createTestNamespace, deleteNamespace, testKubeConfig } from '../support/cluster';
import { installCrds, testObjects } from '../support/manifests';
import { deleteClusterRbac, serviceAccountKubeconfig, startUi, tempDir, UiProcess } from './support';

// Per-user access: the UI's ServiceAccount may only impersonate users; what each person sees
// and changes is decided by the API server's RBAC for that person.
const admin = testKubeConfig();
const objects: ObjectClient = testObjects();
const dir = tempDir('ui-users');
const HEADER = 'X-Forwarded-User';
let team: string;
let closed: string;
let ui: UiProcess;

const guitar = (name: string, namespace: string): KubeObject => ({ apiVersion: 'kool.karmalabs.local/v1', kind: 'Guitar', metadata: { name, namespace }, spec: { brand: 'Martin' } });
const exists = (name: string, namespace: string) => objects.get(guitar(name, namespace)).then(() => true, (e) => (isNotFound(e) ? false : Promise.reject(e)));

async function grant(user: string, namespace: string, verbs: string[]): Promise<void> {
  const name = `guitars-${user}`;
  await objects.apply({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name, namespace }, rules: [{ apiGroups: ['kool.karmalabs.local'], resources: ['guitars'], verbs }] });
  await objects.apply({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name, namespace },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
  });
}

/** A browser's visit as `user`: the page, its CSRF cookie and token. */
async function visit(user: string | undefined, path = '/') {
  const response = await fetch(ui.url + path, { headers: user ? { [HEADER]: user } : {} });
  const body = await response.text();
  const cookie = response.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
  const token = /name="_csrf" value="([^"]+)"/.exec(body)?.[1];
  return { status: response.status, body, cookie, token };
}

async function post(user: string, path: string, form: Record<string, string>): Promise<{ status: number; body: string }> {
  const { cookie, token } = await visit(user);
  const response = await fetch(ui.url + path, {
    method: 'POST',
    redirect: 'manual',
    headers: { [HEADER]: user, cookie, origin: ui.url, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...form, _csrf: token ?? '' }),
  });
  return { status: response.status, body: await response.text() };
}

beforeAll(async () => {
  await installCrds(objects);
  team = await createTestNamespace(admin, 'ui-team');
  closed = await createTestNamespace(admin, 'ui-closed');
  await grant('alice', team, ['get', 'list', 'watch', 'create', 'delete']);
  await grant('bob', team, ['get', 'list', 'watch']);
  await objects.create(guitar('shared', team));
  await objects.create(guitar('secret-one', closed));
  const kubeconfig = await serviceAccountKubeconfig(objects, admin, team, 'guitar-ui-users', uiRules(true), dir);
  ui = await startUi(['--kubeconfig', kubeconfig, '--namespace', `${team},${closed}`, '--user-header', HEADER], join(dir, 'ui.log'));
}, 120_000);

afterAll(async () => {
  await ui?.stop();
  await deleteClusterRbac(objects, team, 'guitar-ui-users');
  await deleteNamespace(admin, team);
  await deleteNamespace(admin, closed);
});

describe('the guitar web UI acting as each user', () => {
  it('refuses a request without the user header, and a system identity', async () => {
    const anonymous = await visit(undefined);
    expect(anonymous.status).toBe(403);
    expect(anonymous.body).toContain(`names in the ${HEADER} header`);
    expect((await visit(undefined, '/events')).status).toBe(403);
    expect((await visit('system:kube-controller-manager')).status).toBe(403);
    expect((await fetch(`${ui.url}/healthz`)).status).toBe(200);
  });

  it('shows each user only the namespaces their RBAC lets them list', async () => {
    const alice = await visit('alice');
    expect(alice.status).toBe(200);
    expect(alice.body).toContain('<th scope="row">shared</th>');
    expect(alice.body).not.toContain('secret-one');
    expect(alice.body).toContain(`You may not list guitars in ${closed}.`);
    expect(alice.body).toContain('Signed in as <strong>alice</strong>');
    // Someone with no access at all sees nothing, and is told why.
    const mallory = await visit('mallory');
    expect(mallory.body).not.toContain('shared</th>');
    expect(mallory.body).toContain(`You may not list guitars in ${team}, ${closed}.`);
  });

  it('lets a user add and delete where their RBAC allows it, and nowhere else', async () => {
    expect((await post('alice', '/guitars', { name: 'alices', namespace: team, brand: 'Gibson' })).status).toBe(303);
    expect(await exists('alices', team)).toBe(true);
    const outside = await post('alice', '/guitars', { name: 'sneaky', namespace: closed, brand: 'Gibson' });
    expect(outside.status).toBe(403);
    expect(outside.body).toContain('cannot create resource');
    expect(await exists('sneaky', closed)).toBe(false);
    expect((await post('alice', `/guitars/${team}/alices/delete`, {})).status).toBe(303);
    expect(await exists('alices', team)).toBe(false);
  });

  it('lets a read-only user look but not change anything', async () => {
    expect((await visit('bob')).body).toContain('<th scope="row">shared</th>');
    const create = await post('bob', '/guitars', { name: 'bobs', namespace: team, brand: 'Gibson' });
    expect(create.status).toBe(403);
    expect(create.body).toContain('User &quot;bob&quot; cannot create resource');
    expect((await post('bob', `/guitars/${team}/shared/delete`, {})).status).toBe(403);
    expect(await exists('shared', team)).toBe(true);
  });

  it('streams live updates from a watch made as the user', async () => {
    const abort = new AbortController();
    const response = await fetch(`${ui.url}/events`, { headers: { [HEADER]: 'alice' }, signal: abort.signal });
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const reader = response.body!.getReader();
    let text = '';
    while (!text.includes('event: guitars')) text += new TextDecoder().decode((await reader.read()).value);
    while (!text.endsWith('\n\n')) text += new TextDecoder().decode((await reader.read()).value);
    abort.abort();
    expect(text).toContain('shared');
    expect(text).not.toContain('secret-one');
  });
});
