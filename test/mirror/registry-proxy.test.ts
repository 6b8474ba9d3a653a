import * as k8s from '@kubernetes/client-node';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../src/testing/controlplane/processes';
import { createTestNamespace, deleteNamespace, testKubeConfig } from '../../src/testing/cluster';
import { toolsBeforeAll } from '../support/go-tool';
import { makeTestImage, RegistryClient, RegistryError } from './oci-client';
import { makeMirrorJail, RunningRegistry, startMirror, startUpstream } from './registries';
import { mountSecretVolumes, renderMirror, resolveEnv } from './rendered';
import { makeTestTls, TestTls } from './tls';
import { mirrorTools } from './tools';

toolsBeforeAll(mirrorTools);

/**
 * The cache's proxy configuration, proven with the real programs: distribution's registry
 * runs with exactly the environment the StatefulSet renders (its Secret references read
 * from a real Secret), in front of a second registry that wants the credentials.
 */
describe('the RegistryMirror cache, run as rendered in front of an upstream that wants credentials', () => {
  const kc = testKubeConfig();
  const USERNAME = 'mirror-robot';
  const PASSWORD = 'correct horse battery staple';
  const PULL_USERNAME = 'node';
  const PULL_PASSWORD = 'only the nodes know this';
  let namespace: string;
  let dir: string;
  let tls: TestTls;
  let upstreamPort: number;
  let upstream: RunningRegistry | undefined;
  const running: RunningRegistry[] = [];
  const image = makeTestImage('pulled once per cluster\n');

  const createLogin = (name: string, password: string) =>
    kc.makeApiClient(k8s.CoreV1Api).createNamespacedSecret({ namespace, body: { metadata: { name }, stringData: { username: USERNAME, password } } });

  /** Renders a mirror of the upstream with `credentialsSecret` (and the install's pull Secret), and runs its cache as the Pod would. */
  const runMirror = async (credentialsSecret: string, pullSecret?: string) => {
    const rendered = renderMirror('test-upstream', { upstreamUrl: `127.0.0.1:${upstreamPort}`, credentialsSecret }, { pendingNodes: [], access: pullSecret ? { pullSecret } : {} });
    const env = await resolveEnv(kc, namespace, rendered.cache.env ?? []);
    const { runAsUser, runAsGroup } = rendered.cachePodSecurity;
    const jail = makeMirrorJail(mirrorTools().registry, mkdtempSync(join(dir, 'mirror-')), tls.caFile, runAsUser!, runAsGroup!);
    await mountSecretVolumes(kc, namespace, rendered, jail.root, runAsGroup!);
    const mirror = await startMirror(jail, env, await freePort(), runAsUser!, runAsGroup!, rendered.cache.readinessProbe!.httpGet!.path!);
    running.push(mirror);
    return { mirror, jail, env, client: new RegistryClient({ url: mirror.url }) };
  };

  beforeAll(async () => {
    mirrorTools();
    namespace = await createTestNamespace(kc, 'mirror-proxy');
    dir = mkdtempSync(join(tmpdir(), 'mirror-proxy-'));
    tls = makeTestTls(dir);
    upstreamPort = await freePort();
    mkdirSync(join(dir, 'upstream'));
    upstream = await startUpstream(mirrorTools().registry, join(dir, 'upstream'), upstreamPort, tls, USERNAME, PASSWORD);
    running.push(upstream);
    const pusher = new RegistryClient({ url: upstream.url, caFile: tls.caFile, username: USERNAME, password: PASSWORD });
    await pusher.push('team/hello', 'v1', image);
    await pusher.close();
    await createLogin('upstream-login', PASSWORD);
    await createLogin('stale-login', 'a password the upstream no longer takes');
  }, 600_000);

  afterAll(async () => {
    for (const registry of running) await registry.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
    if (namespace) await deleteNamespace(kc, namespace);
  });

  it('wants the install\u2019s pull credentials, with a pull Secret: an anonymous pull is refused, one with them is served', async () => {
    const htpasswd = execFileSync('htpasswd', ['-inB', PULL_USERNAME], { input: `${PULL_PASSWORD}\n` }).toString();
    await kc.makeApiClient(k8s.CoreV1Api).createNamespacedSecret({ namespace, body: { metadata: { name: 'pull-login' }, stringData: { username: PULL_USERNAME, password: PULL_PASSWORD, htpasswd } } });
    const { mirror, client } = await runMirror('upstream-login', 'pull-login');
    const node = new RegistryClient({ url: mirror.url, username: PULL_USERNAME, password: PULL_PASSWORD });
    const wrong = new RegistryClient({ url: mirror.url, username: PULL_USERNAME, password: 'guessed' });
    try {
      await expect(client.pull('team/hello', 'v1')).rejects.toMatchObject({ status: 401 });
      await expect(wrong.pull('team/hello', 'v1')).rejects.toMatchObject({ status: 401 });
      expect((await node.pull('team/hello', 'v1')).manifestDigest).toBe(image.manifestDigest);
      expect(mirror.log()).not.toContain(PULL_PASSWORD);
    } finally {
      for (const c of [client, node, wrong]) await c.close();
      await mirror.stop();
    }
  });

  it('has an upstream that refuses pulls without the credentials', async () => {
    const anonymous = new RegistryClient({ url: upstream!.url, caFile: tls.caFile });
    await expect(anonymous.pull('team/hello', 'v1')).rejects.toMatchObject({ status: 401 });
    await anonymous.close();
  });

  it('fails clearly with a wrong password: the upstream\u2019s 401 for a digest, no tag, nothing cached, no password logged', async () => {
    const { mirror, jail, client } = await runMirror('stale-login');
    try {
      // distribution answers a tag it could not look up upstream as unknown (containerd then
      // tries the next host, the upstream itself) ...
      await expect(client.pull('team/hello', 'v1')).rejects.toMatchObject({ status: 404, body: expect.stringContaining('MANIFEST_UNKNOWN') });
      // ... and a digest with the upstream's own refusal, which its log names.
      await expect(client.pull('team/hello', image.manifestDigest)).rejects.toMatchObject({ status: 401, body: expect.stringContaining('authentication required') });
      expect(mirror.log()).toMatch(/err\.code=unauthorized .*err\.message="authentication required"/);
      expect(upstream!.log()).toContain('invalid authorization credential');
      expect(existsSync(join(jail.cacheDir, 'docker/registry/v2/blobs'))).toBe(false);
      expect(mirror.log()).not.toContain('a password the upstream no longer takes');
    } finally {
      await client.close();
      await mirror.stop();
    }
  });

  it('pulls through with the Secret\u2019s credentials, keeps the image in its cache, and serves it from there once the upstream is gone', async () => {
    const { mirror, jail, env, client } = await runMirror('upstream-login');
    try {
      expect(env).toEqual({
        REGISTRY_PROXY_REMOTEURL: `https://127.0.0.1:${upstreamPort}`,
        REGISTRY_STORAGE_FILESYSTEM_ROOTDIRECTORY: '/var/lib/registry',
        REGISTRY_PROXY_USERNAME: USERNAME,
        REGISTRY_PROXY_PASSWORD: PASSWORD,
      });
      const pulled = await client.pull('team/hello', 'v1');
      expect(pulled.manifestDigest).toBe(image.manifestDigest);
      expect(pulled.blobs.map((b) => b.digest)).toEqual(image.blobs.map((b) => b.digest));
      // The blobs landed where the StatefulSet mounts the PVC.
      for (const b of image.blobs) {
        const hex = b.digest.slice('sha256:'.length);
        expect(existsSync(join(jail.cacheDir, 'docker/registry/v2/blobs/sha256', hex.slice(0, 2), hex, 'data'))).toBe(true);
      }

      await upstream!.stop();
      const fromCache = await client.pull('team/hello', 'v1');
      expect(fromCache.manifestDigest).toBe(image.manifestDigest);
      expect(fromCache.blobs.map((b) => b.content)).toEqual(image.blobs.map((b) => b.content));
      expect(mirror.log()).not.toContain(PASSWORD);
      // What was never pulled cannot come from the cache.
      await expect(client.pull('team/other', 'v1')).rejects.toBeInstanceOf(RegistryError);
    } finally {
      await client.close();
      await mirror.stop();
    }
  });
});
