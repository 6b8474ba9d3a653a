import * as k8s from '@kubernetes/client-node';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { BrowserContext, Page } from 'playwright-core';
import { KubeObject, ObjectClient } from '../../src/kube/objects';
import { isNotFound } from '../../src/kube/rest';
import { ControllerProcess, startController } from '../support/controller-process';
import { createTestNamespace, deleteNamespace, eventually, testKubeConfig } from '../../src/testing/cluster';
import { DIST, installCrds, loadYaml, testObjects } from '../support/manifests';
import { applyAggregatedRoles, namespaceEditor, untilEditorMay } from '../support/tenancy';
import { apiServerKubeconfig, launchChromium, signIn, startUi, tempDir, tokenFor, UiProcess } from './support';

// The UI as the bundle installs it (no credentials of its own, limited to one namespace), a
// namespace editor signed in with their token, the controller reviewing, and Debian's Chromium
// driving the page.
const admin = testKubeConfig();
const objects: ObjectClient = testObjects();
const dir = tempDir('ui-browser');
let ns: string;
let other: string;
let controller: ControllerProcess;
let ui: UiProcess;
let browser: BrowserContext;
let page: Page;
let token: string;

const guitar = (name: string, brand: string, namespace = ns): KubeObject => ({ apiVersion: 'kool.karmalabs.local/v1', kind: 'Guitar', metadata: { name, namespace }, spec: { brand } });
const row = (name: string) => page.locator('#guitars tbody tr', { has: page.locator(`th:text-is("${name}")`) });
const axeSource = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core run in the page (evaluated over the DevTools protocol, since the page's CSP rightly forbids injected scripts). */
async function seriousViolations(p: Page): Promise<string[]> {
  await p.evaluate(axeSource);
  const result = (await p.evaluate('axe.run()')) as { violations: { id: string; impact: string; help: string; nodes: unknown[] }[] };
  return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help} (${v.nodes.length} nodes)`);
}

beforeAll(async () => {
  await installCrds(objects);
  ns = await createTestNamespace(admin, 'ui');
  other = await createTestNamespace(admin, 'ui-other');
  controller = startController(['--kubeconfig', process.env.TEST_KUBECONFIG!, '--kinds', 'guitars', '--namespace', `${ns},${other}`, '--leader-election=false', '--http-port', '0'], join(dir, 'controller.log'));
  await applyAggregatedRoles(objects, loadYaml(join(DIST, '1-operator.k8s.yaml')));
  await untilEditorMay(objects, await namespaceEditor(objects, ns), 'delete', 'kool.karmalabs.local', 'guitars');
  token = await tokenFor(objects, ns, 'editor');
  ui = await startUi(['--kubeconfig', apiServerKubeconfig(admin, dir), '--namespace', ns], join(dir, 'ui.log'));
  browser = await launchChromium();
  page = await browser.newPage();
  await signIn(page, ui.url, token);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await ui?.stop();
  await controller?.stop();
  await deleteNamespace(admin, ns);
  await deleteNamespace(admin, other);
});

describe('the guitar web UI in Chromium', () => {
  it('lists the guitars of its namespace with their reviews, and only those', async () => {
    await objects.create(guitar('les-paul', 'Gibson'));
    await objects.create(guitar('elsewhere', 'Fender', other));
    await eventually('the review of les-paul', async () => ((await objects.get<KubeObject & { status?: { verdict?: string } }>(guitar('les-paul', ''))).status?.verdict ? true : undefined));
    const response = await page.goto(ui.url);
    expect(response!.status()).toBe(200);
    await expect(row('les-paul').locator('td').nth(2).textContent()).resolves.toBe('great');
    await expect(row('les-paul').locator('td').nth(0).textContent()).resolves.toBe(ns);
    expect(await row('elsewhere').count()).toBe(0);
    const csp = response!.headers()['content-security-policy'];
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
  });

  it('adds a guitar from the form, and shows reviews and deletions without a reload', async () => {
    await page.goto(ui.url);
    await page.fill('#name', 'tele');
    await page.fill('#brand', 'Fender');
    await Promise.all([page.waitForURL(/created=/), page.click('#add-form button[type=submit]')]);
    await expect(page.locator('.notice.info').textContent()).resolves.toContain(`Guitar ${ns}/tele added`);
    // Mark this document: a reload would lose the mark.
    await page.evaluate("window.mark = 'same page'");
    // (A locator, not waitForFunction: polling a string in the page is eval, which the CSP rightly forbids.)
    await row('tele').locator('td:text-is("A fender is a great choice: enjoy playing it.")').waitFor({ timeout: 30_000 });
    await objects.create(guitar('pacifica', 'Yamaha'));
    await row('pacifica').locator('td:text-is("not great")').waitFor({ timeout: 30_000 });
    await objects.delete(guitar('pacifica', ''));
    await row('pacifica').waitFor({ state: 'detached', timeout: 30_000 });
    expect(await page.evaluate('window.mark')).toBe('same page');
  });

  it('shows the API server\u2019s own message next to a bad name or brand, and keeps the input', async () => {
    await page.goto(ui.url);
    await page.fill('#name', 'Bad_Name');
    await page.fill('#brand', 'Fender');
    const [response] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.click('#add-form button[type=submit]')]);
    expect(response.status()).toBe(400);
    await expect(page.locator('#name-error').textContent()).resolves.toMatch(/metadata\.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain/);
    expect(await page.inputValue('#name')).toBe('Bad_Name');
    expect(await page.getAttribute('#name', 'aria-describedby')).toBe('name-error');

    await page.fill('#name', 'blank-brand');
    await page.fill('#brand', '   ');
    const [second] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.click('#add-form button[type=submit]')]);
    expect(second.status()).toBe(400);
    await expect(page.locator('#brand-error').textContent()).resolves.toMatch(/spec\.brand/);
    expect(await page.inputValue('#name')).toBe('blank-brand');
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('answers 409 for a name already taken, next to the name', async () => {
    await page.goto(ui.url);
    await page.fill('#name', 'les-paul');
    await page.fill('#brand', 'Epiphone');
    const [response] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.click('#add-form button[type=submit]')]);
    expect(response.status()).toBe(409);
    await expect(page.locator('#name-error').textContent()).resolves.toContain('already exists');
  });

  it('shows markup in a brand or comment as text', async () => {
    const markup = '<img src=x id=injected><b>bold</b>';
    await objects.create(guitar('markup', markup));
    await page.goto(ui.url);
    await row('markup').locator('td:text-is("unknown")').waitFor({ timeout: 30_000 });
    await expect(row('markup').locator('td').nth(1).textContent()).resolves.toBe(markup);
    await expect(row('markup').locator('td').nth(3).textContent()).resolves.toContain(`reviewed ${markup} guitars`);
    expect(await page.locator('#injected, #guitars b').count()).toBe(0);
  });

  it('deletes a guitar after a confirmation, by keyboard alone', async () => {
    await page.goto(ui.url);
    await page.locator(`#delete-${ns}-les-paul`).focus();
    await Promise.all([page.waitForURL(/\/delete$/), page.keyboard.press('Enter')]);
    await expect(page.locator('h1').textContent()).resolves.toBe('Delete guitar les-paul?');
    expect(await seriousViolations(page)).toEqual([]);
    // The confirm button has the focus.
    await Promise.all([page.waitForURL(/deleted=/), page.keyboard.press('Enter')]);
    expect(await row('les-paul').count()).toBe(0);
    await expect(objects.get(guitar('les-paul', '')).catch((e) => (isNotFound(e) ? 'gone' : e))).resolves.toBe('gone');
  });

  it('adds a guitar by keyboard alone', async () => {
    await page.goto(ui.url);
    await page.locator('#name').focus();
    await page.keyboard.type('keyboard-strat');
    await page.keyboard.press('Tab'); // namespace
    await page.keyboard.press('Tab'); // brand
    await page.keyboard.type('Squier');
    await Promise.all([page.waitForURL(/created=/), page.keyboard.press('Enter')]);
    await row('keyboard-strat').waitFor();
  });

  it('fits a phone-sized screen and passes the accessibility check', async () => {
    const phone = await browser.newPage();
    await phone.setViewportSize({ width: 375, height: 667 });
    await phone.goto(ui.url);
    expect(await phone.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
    expect(await seriousViolations(phone)).toEqual([]);
    await phone.close();
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(ui.url);
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('refuses a form posted from another site, and a post without its token', async () => {
    const attacker: Server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<form method="post" action="${ui.url}/guitars"><input name="name" value="forged"><input name="namespace" value="${ns}"><input name="brand" value="x"><button>go</button></form>`);
    });
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
    try {
      // localhost and 127.0.0.1 are different sites to the browser.
      await page.goto(`http://localhost:${(attacker.address() as AddressInfo).port}/`);
      const [response] = await Promise.all([page.waitForResponse((r) => r.url().endsWith('/guitars')), page.click('button')]);
      expect(response.status()).toBe(403);
      await expect(page.locator('h1').textContent()).resolves.toBe('Not allowed');
    } finally {
      attacker.close();
    }
    // Same origin but no token: the CSRF check refuses it.
    await page.goto(ui.url);
    const status = await page.evaluate("fetch('/guitars', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'name=forged&brand=x' }).then((r) => r.status)");
    expect(status).toBe(403);
    // A valid session, cookie and token are not enough either when the Origin is another site's.
    const authorization = `Bearer ${token}`;
    const visit = await fetch(ui.url, { headers: { authorization } });
    const cookie = visit.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await visit.text())![1];
    const send = (origin: string, name = 'forged', namespace = ns) =>
      fetch(`${ui.url}/guitars`, { method: 'POST', redirect: 'manual', headers: { authorization, cookie, origin, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ name, namespace, brand: 'x', _csrf: csrf }) });
    expect((await send('http://evil.example')).status).toBe(403);
    expect((await send(ui.url, 'genuine')).status).toBe(303); // the same request from the UI's own origin
    const outside = await send(ui.url, 'outside', other);
    expect(outside.status).toBe(400);
    expect(await outside.text()).toContain(`namespace: expected one of ${ns}`);
    await expect(objects.get(guitar('forged', '')).catch((e) => (isNotFound(e) ? 'gone' : e))).resolves.toBe('gone');
  });

  it('works without JavaScript: a reload shows the changes', async () => {
    const plain = await launchChromium({ javaScriptEnabled: false });
    try {
      const p = await plain.newPage();
      await signIn(p, ui.url, token);
      await p.fill('#name', 'no-script');
      await p.fill('#brand', 'Washburn');
      await Promise.all([p.waitForURL(/created=/), p.click('#add-form button[type=submit]')]);
      await p.locator('#guitars th:text-is("no-script")').waitFor();
      await eventually('the review to be written', async () => ((await objects.get<KubeObject & { status?: { verdict?: string } }>(guitar('no-script', ''))).status?.verdict ? true : undefined));
      await p.reload();
      await expect(p.locator('#guitars tr', { has: p.locator('th:text-is("no-script")') }).locator('td').nth(2).textContent()).resolves.toBe('great');
    } finally {
      await plain.close();
    }
  });

  it('answers 403 outside its namespaces and 404 for an unknown guitar or page, with a page that says so', async () => {
    expect((await page.goto(`${ui.url}/guitars/${other}/elsewhere/delete`))!.status()).toBe(403);
    await expect(page.locator('[role=alert]').textContent()).resolves.toContain(`manages guitars in ${ns} only`);
    expect((await page.goto(`${ui.url}/guitars/${ns}/no-such-guitar/delete`))!.status()).toBe(404);
    expect((await page.goto(`${ui.url}/nowhere`))!.status()).toBe(404);
  });
});

describe('the guitar web UI without its API server', () => {
  it('answers 502 with a page that says the API server is unreachable', async () => {
    const kubeconfig = join(dir, 'unreachable.kubeconfig');
    const kc = new k8s.KubeConfig();
    kc.loadFromOptions({ clusters: [{ name: 'c', server: 'https://127.0.0.1:9', skipTLSVerify: true }], users: [{ name: 'u', token: 'none' }], contexts: [{ name: 'x', cluster: 'c', user: 'u' }], currentContext: 'x' });
    writeFileSync(kubeconfig, kc.exportConfig());
    const offline = await startUi(['--kubeconfig', kubeconfig, '--namespace', ns], join(dir, 'ui-offline.log'));
    try {
      // The browser sends its login cookie here too (a cookie is for the host, whatever the port).
      const response = await page.goto(offline.url);
      expect(response!.status()).toBe(502);
      await expect(page.locator('[role=alert]').textContent()).resolves.toContain('could not be reached');
      expect(await page.content()).not.toMatch(/at .*\.js:\d+/);
    } finally {
      await offline.stop();
    }
  });
});
