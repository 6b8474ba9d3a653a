import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { KubeObject, ObjectClient } from '../../src/kube/objects';
import { isNotFound } from '../../src/kube/rest';
import { createTestNamespace, deleteNamespace, testKubeConfig } from '../../src/testing/cluster';
import { DIST, installCrds, loadYaml, testObjects } from '../support/manifests';
import { applyAggregatedRoles, namespaceEditor, NamespaceEditor, untilEditorMay } from '../support/tenancy';
import { apiServerKubeconfig, deleteClusterRbac, serviceAccountKubeconfig, startUi, tempDir, tokenFor, UiProcess } from './support';
import { uiRules } from '../../src/ui/install';

// The default: the UI holds no credentials (a kubeconfig with the API server's address and CA
// only) and acts with each user's own token, which the API server authenticates and authorizes.
// The users are namespace editors, as a real cluster has them.
const admin = testKubeConfig();
const objects: ObjectClient = testObjects();
const dir = tempDir('ui-token');
let mine: string;
let theirs: string;
let editor: NamespaceEditor;
let token: string;
let ui: UiProcess;

const guitar = (name: string, namespace: string): KubeObject => ({ apiVersion: 'kool.karmalabs.local/v1', kind: 'Guitar', metadata: { name, namespace }, spec: { brand: 'Martin' } });
const exists = (name: string, namespace: string) => objects.get(guitar(name, namespace)).then(() => true, (e) => (isNotFound(e) ? false : Promise.reject(e)));

/** A page's CSRF cookie and token, fetched with `headers`; the answer's status and body too. */
async function visit(url: string, headers: Record<string, string> = {}, path = '/') {
  const response = await fetch(url + path, { headers });
  const body = await response.text();
  const cookie = response.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
  return { status: response.status, body, cookie, csrf: /name="_csrf" value="([^"]+)"/.exec(body)?.[1] ?? '', setCookie: response.headers.getSetCookie() };
}

/** A form post as the UI's own page sends it (same origin, CSRF token), with `headers` on top. */
async function post(url: string, path: string, form: Record<string, string>, headers: Record<string, string> = {}) {
  const page = await visit(url, headers, path === '/login' ? '/login' : '/');
  const cookie = [page.cookie, headers.cookie].filter(Boolean).join('; ');
  const response = await fetch(url + path, {
    method: 'POST',
    redirect: 'manual',
    headers: { ...headers, cookie, origin: url, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...form, _csrf: page.csrf }),
  });
  return { status: response.status, body: await response.text(), setCookie: response.headers.getSetCookie(), location: response.headers.get('location') };
}

const bearer = (t: string) => ({ authorization: `Bearer ${t}` });

/** Reads an event stream until its first update, then leaves it open; closes with abort(). */
async function openStream(url: string, headers: Record<string, string>) {
  const abort = new AbortController();
  const response = await fetch(`${url}/events`, { headers, signal: abort.signal });
  if (response.status === 200) {
    const reader = response.body!.getReader();
    let text = '';
    while (!text.includes('event: guitars')) text += new TextDecoder().decode((await reader.read()).value);
  }
  return { status: response.status, body: response.status === 200 ? '' : await response.text(), retryAfter: response.headers.get('retry-after'), close: () => abort.abort() };
}

beforeAll(async () => {
  await installCrds(objects);
  await applyAggregatedRoles(objects, loadYaml(join(DIST, '1-operator.k8s.yaml')));
  [mine, theirs] = await Promise.all([createTestNamespace(admin, 'ui-mine'), createTestNamespace(admin, 'ui-theirs')]);
  editor = await namespaceEditor(objects, mine);
  await untilEditorMay(objects, editor, 'delete', 'kool.karmalabs.local', 'guitars');
  token = await tokenFor(objects, mine, 'editor');
  await objects.create(guitar('ours', mine));
  await objects.create(guitar('theirs', theirs));
  ui = await startUi(['--kubeconfig', apiServerKubeconfig(admin, dir), '--namespace', `${mine},${theirs}`, '--max-streams', '3', '--max-streams-per-user', '2'], join(dir, 'ui.log'));
}, 120_000);

afterAll(async () => {
  await ui?.stop();
  await deleteNamespace(admin, mine);
  await deleteNamespace(admin, theirs);
});

describe('the guitar web UI with users\u2019 own tokens (the default)', () => {
  it('answers an anonymous visit with 401 and the login page, and refuses an anonymous add, delete or live page', async () => {
    const page = await visit(ui.url);
    expect(page.status).toBe(401);
    expect(page.body).toContain('<h1>Sign in</h1>');
    expect(page.body).not.toContain('ours');
    const add = await post(ui.url, '/guitars', { name: 'anonymous', namespace: mine, brand: 'Gibson' });
    expect(add.status).toBe(401);
    expect(await exists('anonymous', mine)).toBe(false);
    const remove = await post(ui.url, `/guitars/${theirs}/theirs/delete`, {});
    expect(remove.status).toBe(401);
    expect(await exists('theirs', theirs)).toBe(true);
    expect((await openStream(ui.url, {})).status).toBe(401);
    // A token the API server does not know is no better.
    expect((await post(ui.url, `/guitars/${theirs}/theirs/delete`, {}, bearer('made-up-token'))).status).toBe(401);
    expect(await exists('theirs', theirs)).toBe(true);
  });

  it('lets a namespace editor\u2019s token delete a guitar in its namespace, and surfaces the API server\u2019s 403 in another\u2019s', async () => {
    const page = await visit(ui.url, bearer(token));
    expect(page.status).toBe(200);
    expect(page.body).toContain('<th scope="row">ours</th>');
    expect(page.body).toContain(`You may not list guitars in ${theirs}.`);
    expect(page.body).toContain(`Signed in as <strong>${editor.username}</strong>`);
    const refused = await post(ui.url, `/guitars/${theirs}/theirs/delete`, {}, bearer(token));
    expect(refused.status).toBe(403);
    expect(refused.body).toContain(`User &quot;${editor.username}&quot; cannot delete resource &quot;guitars&quot; in API group &quot;kool.karmalabs.local&quot; in the namespace &quot;${theirs}&quot;`);
    expect(await exists('theirs', theirs)).toBe(true);
    expect((await post(ui.url, `/guitars/${mine}/ours/delete`, {}, bearer(token))).status).toBe(303);
    expect(await exists('ours', mine)).toBe(false);
  });

  it('signs in with a pasted token kept in an HttpOnly, Secure, SameSite=Strict cookie, and signs out', async () => {
    const bad = await post(ui.url, '/login', { token: 'has spaces in it' });
    expect(bad.status).toBe(400);
    expect(bad.body).toContain('token: expected a bearer token');
    const unknown = await post(ui.url, '/login', { token: 'not-a-real-token' });
    expect(unknown.status).toBe(401);
    expect(unknown.body).toContain('token: not accepted by the Kubernetes API server');
    expect(unknown.setCookie.join('\n')).not.toContain('guitar-ui-token=not-a-real-token');

    const signed = await post(ui.url, '/login', { token });
    expect(signed.status).toBe(303);
    const cookie = signed.setCookie.find((c) => c.startsWith('guitar-ui-token='))!;
    expect(cookie).toMatch(/; HttpOnly/);
    expect(cookie).toMatch(/; Secure/);
    expect(cookie).toMatch(/; SameSite=Strict/);
    const session = { cookie: cookie.split(';')[0] };
    const page = await visit(ui.url, session);
    expect(page.status).toBe(200);
    expect(page.body).toContain(`Signed in as <strong>${editor.username}</strong>`);
    expect(page.body).toContain('Sign out');
    const out = await post(ui.url, '/logout', {}, session);
    expect(out.status).toBe(303);
    expect(out.location).toBe('/login');
    expect(out.setCookie.join('\n')).toMatch(/guitar-ui-token=;.*Expires=Thu, 01 Jan 1970/);
    // The UI never logged the token.
    expect(readFileSync(ui.logFile, 'utf8')).not.toContain(token);
  });

  it('caps live pages per user and in all, with 429', async () => {
    await namespaceEditor(objects, mine, 'second');
    const other = await tokenFor(objects, mine, 'second');
    const first = await openStream(ui.url, bearer(token));
    const second = await openStream(ui.url, bearer(token));
    expect([first.status, second.status]).toEqual([200, 200]);
    const third = await openStream(ui.url, bearer(token));
    expect(third.status).toBe(429);
    expect(third.body).toContain('at most 2');
    expect(third.retryAfter).toBe('30');
    const another = await openStream(ui.url, bearer(other));
    expect(another.status).toBe(200);
    const overall = await openStream(ui.url, bearer(await tokenFor(objects, mine, 'editor')));
    expect(overall.status).toBe(429);
    expect(overall.body).toContain('at most 3');
    first.close();
    await new Promise((resolve) => setTimeout(resolve, 500));
    const again = await openStream(ui.url, bearer(token));
    expect(again.status).toBe(200);
    for (const stream of [second, another, again]) stream.close();
  });
});

describe('the old default, acting as the UI\u2019s own ServiceAccount, now only with --auth=service-account', () => {
  it('lets anyone who reaches it delete any guitar it may delete: why it is no longer the default', async () => {
    await objects.create(guitar('exposed', theirs));
    const kubeconfig = await serviceAccountKubeconfig(objects, admin, mine, 'guitar-ui-own', uiRules('service-account'), dir);
    const own = await startUi(['--kubeconfig', kubeconfig, '--auth', 'service-account'], join(dir, 'ui-own.log'));
    try {
      expect((await post(own.url, `/guitars/${theirs}/exposed/delete`, {})).status).toBe(303);
      expect(await exists('exposed', theirs)).toBe(false);
    } finally {
      await own.stop();
      await deleteClusterRbac(objects, mine, 'guitar-ui-own');
    }
  });
});
