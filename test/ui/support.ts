import * as k8s from '@kubernetes/client-node';
import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { chromium, BrowserContext, Page } from 'playwright-core';
import { stringify } from 'yaml';
import { PolicyRule } from '../../src/bundle/rbac';
import { ObjectClient } from '../../src/kube/objects';
import { eventually } from '../../src/testing/cluster';
import { logChild } from '../support/child-log';
import { untilRulesApply } from '../support/tenancy';

// Run by Jest from test/ui/, or compiled into lib/test/ui/ (the screenshot script).
const root = __dirname.includes(`${sep}lib${sep}test${sep}`) ? join(__dirname, '..', '..', '..') : join(__dirname, '..', '..');
export const bin = join(root, 'bin', 'cdk8s-operators');

/** `cdk8s-operators <command> ...` in a child process logging to `logFile`; `stop` sends SIGTERM, then SIGKILL after 10 s. */
export function startCommand(command: string, args: string[], logFile: string): { child: ChildProcess; stop(): Promise<void> } {
  const child = spawn(process.execPath, [bin, command, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = logChild(child, logFile);
  return {
    child,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** `cdk8s-operators ui ...` as the image runs it, in a child process on 127.0.0.1. */
export interface UiProcess {
  readonly url: string;
  readonly logFile: string;
  stop(): Promise<void>;
}

export async function startUi(args: string[], logFile: string): Promise<UiProcess> {
  const { child, stop } = startCommand('ui', ['--host', '127.0.0.1', '--port', '0', ...args], logFile);
  const port = await eventually(`the UI to listen (log: ${logFile})`, async () => {
    if (child.exitCode !== null) throw new Error(`the UI exited with ${child.exitCode}; see ${logFile}`);
    const line = readFileSync(logFile, 'utf8').split('\n').find((l) => l.includes('"ui listening"'));
    return line ? (JSON.parse(line) as { port: number }).port : undefined;
  }, 30_000);
  return {
    url: `http://127.0.0.1:${port}`,
    logFile,
    stop,
  };
}

/**
 * A ServiceAccount with exactly `rules` (cluster-wide) and a kubeconfig that authenticates
 * as it with a bound token: the UI's identity as the bundle gives it.
 */
export async function serviceAccountKubeconfig(objects: ObjectClient, admin: k8s.KubeConfig, namespace: string, name: string, rules: PolicyRule[], dir: string): Promise<string> {
  const roleName = `${namespace}:${name}`;
  await objects.apply({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace } });
  await objects.apply({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: roleName }, rules });
  await objects.apply({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: roleName },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: roleName },
    subjects: [{ kind: 'ServiceAccount', name, namespace }],
  });
  await untilRulesApply(objects, `system:serviceaccount:${namespace}:${name}`, rules);
  return writeKubeconfig(admin, join(dir, `${name}.kubeconfig`), name, { token: await tokenFor(objects, namespace, name) });
}

/** A bound token of a ServiceAccount (TokenRequest), as `kubectl create token` makes one. */
export async function tokenFor(objects: ObjectClient, namespace: string, name: string): Promise<string> {
  const request = await objects.rest.request<{ status: { token: string } }>('POST', `/api/v1/namespaces/${namespace}/serviceaccounts/${name}/token`, {
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } },
  });
  return request.status.token;
}

/** The API server's address and CA and no user: all a UI that forwards users' tokens is given. */
export function apiServerKubeconfig(admin: k8s.KubeConfig, dir: string): string {
  return writeKubeconfig(admin, join(dir, 'api-server.kubeconfig'), 'nobody', {});
}

function writeKubeconfig(admin: k8s.KubeConfig, path: string, name: string, user: Record<string, string>): string {
  const cluster = admin.getCurrentCluster()!;
  writeFileSync(
    path,
    stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'local', cluster: { server: cluster.server, 'certificate-authority-data': cluster.caData } }],
      users: [{ name, user }],
      contexts: [{ name: 'local', context: { cluster: 'local', user: name } }],
      'current-context': 'local',
    }),
    { mode: 0o600 },
  );
  return path;
}

/** Signs the browser in through the UI's login form with `token`, as a person pasting it would. */
export async function signIn(page: Page, url: string, token: string): Promise<void> {
  const response = await page.goto(`${url}/login`);
  if (response?.status() !== 200) throw new Error(`the login page answered ${response?.status()}`);
  await page.fill('#token', token);
  await Promise.all([page.waitForURL(`${url}/`), page.click('button[type=submit]')]);
  const heading = await page.locator('h1').textContent();
  if (heading !== 'Guitars') throw new Error(`signing in led to "${heading}", not the guitars: ${await page.locator('[role=alert]').allTextContents()}`);
}

export async function deleteClusterRbac(objects: ObjectClient, namespace: string, name: string): Promise<void> {
  const roleName = `${namespace}:${name}`;
  for (const kind of ['ClusterRoleBinding', 'ClusterRole']) {
    await objects.delete({ apiVersion: 'rbac.authorization.k8s.io/v1', kind, metadata: { name: roleName } }).catch(() => undefined);
  }
}

/** Debian's Chromium, headless, with a fresh profile and nothing that phones home. */
export async function launchChromium(options: { javaScriptEnabled?: boolean } = {}): Promise<BrowserContext> {
  return chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), 'ui-chromium-')), {
    ...options,
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `${prefix}-`));
}
