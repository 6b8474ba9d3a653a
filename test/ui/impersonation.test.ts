import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { withHeaders } from '../../src/kube/connection';
import { loadKubeConnection } from '../../src/kube/kubeconfig';
import { KubeRest } from '../../src/kube/rest';
import { uiRules } from '../../src/ui/install';
import { KubeObject, ObjectClient } from '../../src/kube/objects';
import { isNotFound } from '../../src/kube/rest';
import { createTestNamespace, deleteNamespace, testKubeConfig } from '../../src/testing/cluster';
import { installCrds, testObjects } from '../support/manifests';
import { untilRulesApply } from '../support/tenancy';
import { deleteClusterRbac, serviceAccountKubeconfig, startUi, tempDir, UiProcess } from './support';

// Per-user access behind an authenticating proxy: the UI's ServiceAccount may only impersonate
// the listed users, the UI believes the user header only from a request carrying the proxy's
// secret, and what each person sees and changes is decided by the API server's RBAC for them.
const admin = testKubeConfig();
const objects: ObjectClient = testObjects();
const dir = tempDir('ui-users');
const HEADER = 'X-Forwarded-User';
const PROXY_SECRET = 'a-secret-only-the-proxy-knows';
const USERS = ['alice', 'bob', 'carol'];
/** What the proxy adds to every request it passes on: the user it authenticated, and its secret. */
const fromProxy = (user: string | undefined): Record<string, string> => ({ 'x-proxy-secret': PROXY_SECRET, ...(user ? { [HEADER]: user } : {}) });
let team: string;
let closed: string;
let ui: UiProcess;
let kubeconfig: string;

const guitar = (name: string, namespace: string): KubeObject => ({ apiVersion: 'kool.karmalabs.local/v1', kind: 'Guitar', metadata: { name, namespace }, spec: { brand: 'Martin' } });
const exists = (name: string, namespace: string) => objects.get(guitar(name, namespace)).then(() => true, (e) => (isNotFound(e) ? false : Promise.reject(e)));

async function grant(user: string, namespace: string, verbs: string[]): Promise<void> {
  const name = `guitars-${user}`;
  const rules = [{ apiGroups: ['kool.karmalabs.local'], resources: ['guitars'], verbs }];
  await objects.apply({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name, namespace }, rules });
  await objects.apply({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name, namespace },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
  });
  await untilRulesApply(objects, user, rules, namespace);
}

/** A browser's visit as `user`: the page, its CSRF cookie and token. */
async function visit(user: string | undefined, path = '/') {
  const response = await fetch(ui.url + path, { headers: fromProxy(user) });
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
    headers: { ...fromProxy(user), cookie, origin: ui.url, 'content-type': 'application/x-www-form-urlencoded' },
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
  kubeconfig = await serviceAccountKubeconfig(objects, admin, team, 'guitar-ui-users', uiRules('impersonate', USERS), dir);
  const secretFile = join(dir, 'proxy-secret');
  writeFileSync(secretFile, `${PROXY_SECRET}\n`, { mode: 0o600 });
  ui = await startUi(
    ['--kubeconfig', kubeconfig, '--namespace', `${team},${closed}`, '--auth', 'impersonate', '--user-header', HEADER, '--impersonate-users', USERS.join(','), '--proxy-secret-file', secretFile, '--max-streams-per-user', '1'],
    join(dir, 'ui.log'),
  );
}, 120_000);

afterAll(async () => {
  await ui?.stop();
  await deleteClusterRbac(objects, team, 'guitar-ui-users');
  await deleteNamespace(admin, team);
  await deleteNamespace(admin, closed);
});

describe('the guitar web UI acting as each user', () => {
  it('ignores the user header of a peer that is not the proxy, and refuses a request naming no user', async () => {
    for (const headers of [{ [HEADER]: 'alice' }, { [HEADER]: 'alice', 'x-proxy-secret': 'a-guess-at-the-secret' }]) {
      const response = await fetch(ui.url, { headers });
      expect(response.status).toBe(401);
      const body = await response.text();
      expect(body).toContain('did not come through it');
      expect(body).not.toContain('shared');
      expect((await fetch(`${ui.url}/events`, { headers })).status).toBe(401);
    }
    const forged = await fetch(`${ui.url}/guitars/${team}/shared/delete`, { method: 'POST', headers: { [HEADER]: 'alice', origin: ui.url } });
    expect(forged.status).toBe(403); // (its CSRF token is missing too)
    expect(await exists('shared', team)).toBe(true);
    const nobody = await visit(undefined);
    expect(nobody.status).toBe(401);
    expect(nobody.body).toContain(`named no user in the ${HEADER} header`);
    expect((await fetch(`${ui.url}/healthz`)).status).toBe(200);
  });

  it('refuses a user who is not on its list, and so does the API server', async () => {
    for (const user of ['mallory', 'system:kube-controller-manager', 'system:admin']) {
      const page = await visit(user);
      expect(page.status).toBe(403);
      expect(page.body).toContain('it acts only as the users it is configured for');
    }
    // Its ServiceAccount may impersonate the listed users only, whatever the UI's code does.
    const own = await loadKubeConnection({ kubeconfig }, {});
    await expect(new KubeRest(withHeaders(own, { 'Impersonate-User': 'mallory' })).request('GET', `/apis/kool.karmalabs.local/v1/namespaces/${team}/guitars`)).rejects.toThrow(/HTTP 403: .* cannot impersonate/);
  });

  it('shows each user only the namespaces their RBAC lets them list', async () => {
    const alice = await visit('alice');
    expect(alice.status).toBe(200);
    expect(alice.body).toContain('<th scope="row">shared</th>');
    expect(alice.body).not.toContain('secret-one');
    expect(alice.body).toContain(`You may not list guitars in ${closed}.`);
    expect(alice.body).toContain('Signed in as <strong>alice</strong>');
    // Someone with no access at all sees nothing, and is told why.
    const carol = await visit('carol');
    expect(carol.body).not.toContain('shared</th>');
    expect(carol.body).toContain(`You may not list guitars in ${team}, ${closed}.`);
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
    const response = await fetch(`${ui.url}/events`, { headers: fromProxy('alice'), signal: abort.signal });
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const reader = response.body!.getReader();
    let text = '';
    while (!text.includes('event: guitars')) text += new TextDecoder().decode((await reader.read()).value);
    while (!text.endsWith('\n\n')) text += new TextDecoder().decode((await reader.read()).value);
    // One live page per user here: a second of alice's is refused, bob's is not.
    const second = await fetch(`${ui.url}/events`, { headers: fromProxy('alice') });
    expect(second.status).toBe(429);
    expect(await second.text()).toContain('at most 1');
    const bobs = new AbortController();
    expect((await fetch(`${ui.url}/events`, { headers: fromProxy('bob'), signal: bobs.signal })).status).toBe(200);
    bobs.abort();
    abort.abort();
    expect(text).toContain('shared');
    expect(text).not.toContain('secret-one');
  });
});
