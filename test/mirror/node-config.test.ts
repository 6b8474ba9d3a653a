import { ChildProcess, execFileSync } from 'node:child_process';
import { existsSync, linkSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { toolsBeforeAll } from '../support/go-tool';
import { makeBusyboxRoot, runInContainer } from './busybox-jail';
import { KEPT_FILE, OURS_MARK } from '../../src/kinds/registrymirror/node-config';
import { renderMirror } from './rendered';
import { mirrorTools } from './tools';

toolsBeforeAll(mirrorTools);

/**
 * The DaemonSet's own script, from the rendered manifest, run by busybox's sh in a root like
 * the busybox image's, with a directory standing in for the node's containerd certs.d mounted
 * where the hostPath goes; containerd's own hosts.toml parser then says where a node pulls from.
 */
describe('the RegistryMirror node configuration, run as rendered against a stand-in for the node\u2019s certs.d', () => {
  const CLUSTER_IP = '10.96.0.42';
  let dir: string;
  let root: string;
  let certsD: string;
  let running: ChildProcess | undefined;

  /** The DaemonSet container's command, preStop and mount point, and the variable kubelet sets for the mirror's Service. */
  const rendered = (upstreamUrl: string, more: Record<string, unknown> = {}) => {
    const mirror = renderMirror('test-mirror', { upstreamUrl, ...more });
    const service = mirror.children.find((c) => c.kind === 'Service' && (c.spec as { clusterIP?: string }).clusterIP !== 'None')!;
    return {
      command: mirror.nodeConfig.command!,
      preStop: mirror.nodeConfig.lifecycle!.preStop!.exec!.command!,
      mountPath: mirror.nodeConfig.volumeMounts![0].mountPath,
      // What kubelet names the variable with the Service's ClusterIP.
      serviceHost: `${service.metadata.name.toUpperCase().replaceAll('-', '_')}_SERVICE_HOST`,
    };
  };

  /** Where containerd with config_path = certs.d pulls `image` from, in order. */
  const containerdHosts = (image: string) =>
    execFileSync(mirrorTools().containerdHosts, [certsD, image], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { url: string; capabilities: string[] });

  const start = (upstreamUrl: string, env: Record<string, string>, more: Record<string, unknown> = {}) => {
    const { command, mountPath } = rendered(upstreamUrl, more);
    const child = runInContainer(root, certsD, mountPath, command, env);
    running = child;
    let output = '';
    child.stdout!.on('data', (chunk) => (output += chunk));
    child.stderr!.on('data', (chunk) => (output += chunk));
    const exited = new Promise<{ code: number | null; output: string }>((resolve) => child.on('exit', (code) => resolve({ code, output })));
    return { child, exited, output: () => output };
  };

  const until = async (what: string, condition: () => boolean) => {
    for (let i = 0; i < 200 && !condition(); i++) await new Promise((r) => setTimeout(r, 50));
    if (!condition()) throw new Error(`timed out waiting for ${what}`);
  };

  beforeAll(() => {
    mirrorTools();
    dir = mkdtempSync(join(tmpdir(), 'mirror-node-'));
    root = join(dir, 'root');
    makeBusyboxRoot(root, rendered('registry-1.docker.io').mountPath);
  }, 600_000);

  beforeEach(() => {
    certsD = mkdtempSync(join(dir, 'certs.d-'));
  });

  afterEach(() => {
    // The script's background sleep outlives its shell, as it would not in a container.
    if (running?.pid) {
      try {
        process.kill(-running.pid, 'SIGKILL');
      } catch {
        // Nothing left running.
      }
    }
    running = undefined;
  });

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('points containerd\u2019s docker.io at the mirror first and Docker Hub second, and takes that back on SIGTERM', async () => {
    expect(containerdHosts('docker.io/library/busybox').map((h) => h.url)).toEqual(['https://registry-1.docker.io']);
    const { serviceHost } = rendered('registry-1.docker.io');
    const { child, exited, output } = start('registry-1.docker.io', { [serviceHost]: CLUSTER_IP });
    const hostsToml = join(certsD, 'docker.io', 'hosts.toml');
    await until('hosts.toml', () => existsSync(hostsToml));
    await until('the script to say what it did', () => output().includes('pulls'));
    expect(output()).toContain(`containerd on this node pulls docker.io through http://${CLUSTER_IP}:5000 (upstream registry-1.docker.io)`);

    for (const image of ['docker.io/library/busybox', 'busybox:1.37']) {
      expect(containerdHosts(image)).toEqual([
        { url: `http://${CLUSTER_IP}:5000`, path: '/v2', capabilities: ['pull', 'resolve'] },
        { url: 'https://registry-1.docker.io', path: '/v2', capabilities: ['pull', 'resolve', 'push', 'referrers'] },
      ]);
    }
    // Other registries are left alone.
    expect(containerdHosts('quay.io/team/app:1').map((h) => h.url)).toEqual(['https://quay.io']);
    // The original's default masquerade host, mirror-<upstreamUrl>, resolves through the mirror too.
    expect(containerdHosts('mirror-registry-1.docker.io/library/busybox:1.37').map((h) => h.url)).toEqual([`http://${CLUSTER_IP}:5000`, 'https://registry-1.docker.io']);

    child.kill('SIGTERM');
    expect((await exited).code).toBe(0);
    expect(readdirSync(certsD)).toEqual([]);
    expect(containerdHosts('docker.io/library/busybox').map((h) => h.url)).toEqual(['https://registry-1.docker.io']);
  });

  it('makes an image named by spec.masqueradeUrl pull through the mirror, then Docker Hub, and takes that back on SIGTERM', async () => {
    const masquerade = { masqueradeUrl: 'local.docker.io' };
    expect(containerdHosts('local.docker.io/library/busybox').map((h) => h.url)).toEqual(['https://local.docker.io']);
    const { serviceHost } = rendered('registry-1.docker.io', masquerade);
    const { child, exited, output } = start('registry-1.docker.io', { [serviceHost]: CLUSTER_IP }, masquerade);
    await until('both hosts.toml files', () => existsSync(join(certsD, 'docker.io', 'hosts.toml')) && existsSync(join(certsD, 'local.docker.io', 'hosts.toml')));
    await until('the script to say what it did', () => output().includes('pulls local.docker.io'));
    expect(readdirSync(certsD).sort()).toEqual(['docker.io', 'local.docker.io']);
    // Where containerd with config_path = certs.d pulls the image from: the mirror, else the real upstream (never local.docker.io, which no DNS knows).
    expect(containerdHosts('local.docker.io/library/busybox')).toEqual([
      { url: `http://${CLUSTER_IP}:5000`, path: '/v2', capabilities: ['pull', 'resolve'] },
      { url: 'https://registry-1.docker.io', path: '/v2', capabilities: ['pull', 'resolve', 'push', 'referrers'] },
    ]);
    expect(containerdHosts('docker.io/library/busybox').map((h) => h.url)).toEqual([`http://${CLUSTER_IP}:5000`, 'https://registry-1.docker.io']);

    child.kill('SIGTERM');
    expect((await exited).code).toBe(0);
    expect(readdirSync(certsD)).toEqual([]);
    expect(containerdHosts('local.docker.io/library/busybox').map((h) => h.url)).toEqual(['https://local.docker.io']);
  });

  it('replaces an existing hosts.toml by renaming a complete file over it, never by writing into it', async () => {
    const { serviceHost } = rendered('registry-1.docker.io');
    const hostsToml = join(certsD, 'docker.io', 'hosts.toml');
    // Ours, from a run before (its first line says so): replaced, not kept.
    const stale = `${OURS_MARK}: RegistryMirror test-mirror\nserver = "https://registry-1.docker.io"\n\n[host."http://10.96.0.7:5000"]\n  capabilities = ["pull", "resolve"]\n`;
    mkdirSync(join(certsD, 'docker.io'));
    writeFileSync(hostsToml, stale);
    // A second name for the old file: writing into it would change what this one reads too.
    const staleLink = `${certsD}-stale`;
    linkSync(hostsToml, staleLink);
    const staleInode = statSync(hostsToml).ino;

    start('registry-1.docker.io', { [serviceHost]: CLUSTER_IP });
    await until('the new hosts.toml', () => statSync(hostsToml).ino !== staleInode);
    expect(readFileSync(staleLink, 'utf8')).toBe(stale);
    expect(readFileSync(hostsToml, 'utf8')).toContain(`http://${CLUSTER_IP}:5000`);
    expect(readdirSync(join(certsD, 'docker.io'))).toEqual(['hosts.toml']);
  });

  it('keeps the node\u2019s own hosts.toml (spegel\u2019s prepend-existing): the mirror first, then the node\u2019s hosts and server; puts it back on SIGTERM', async () => {
    const { serviceHost } = rendered('registry-1.docker.io');
    const dockerIo = join(certsD, 'docker.io');
    // The node's own server settings (pull only from Docker Hub itself) and its proxy.
    const own = 'server = "https://registry-1.docker.io"\ncapabilities = ["pull", "resolve"]\n\n[host."https://proxy.corp.example:8443"]\n  capabilities = ["pull", "resolve"]\n';
    mkdirSync(dockerIo);
    writeFileSync(join(dockerIo, 'hosts.toml'), own);
    writeFileSync(join(dockerIo, 'corp-ca.crt'), 'a certificate of the node\n');
    expect(containerdHosts('docker.io/library/busybox').map((h) => h.url)).toEqual(['https://proxy.corp.example:8443', 'https://registry-1.docker.io']);

    const { child, exited, output } = start('registry-1.docker.io', { [serviceHost]: CLUSTER_IP });
    await until('the script to say what it did', () => output().includes('pulls docker.io'));
    expect(output()).toContain("before the node's own configuration");
    expect(containerdHosts('docker.io/library/busybox').map((h) => h.url)).toEqual([`http://${CLUSTER_IP}:5000`, 'https://proxy.corp.example:8443', 'https://registry-1.docker.io']);
    expect(containerdHosts('docker.io/library/busybox')[2]).toEqual({ url: 'https://registry-1.docker.io', path: '/v2', capabilities: ['pull', 'resolve'] });
    expect(readFileSync(join(dockerIo, KEPT_FILE), 'utf8')).toBe(own);

    // A restart finds its own file and the kept one: the same result, the node's file kept once.
    child.kill('SIGKILL');
    await exited;
    const again = start('registry-1.docker.io', { [serviceHost]: CLUSTER_IP });
    await until('the restarted script to say what it did', () => again.output().includes('pulls docker.io'));
    expect(containerdHosts('docker.io/library/busybox').map((h) => h.url)).toEqual([`http://${CLUSTER_IP}:5000`, 'https://proxy.corp.example:8443', 'https://registry-1.docker.io']);
    expect(readFileSync(join(dockerIo, KEPT_FILE), 'utf8')).toBe(own);

    again.child.kill('SIGTERM');
    expect((await again.exited).code).toBe(0);
    expect(readdirSync(dockerIo).sort()).toEqual(['corp-ca.crt', 'hosts.toml']);
    expect(readFileSync(join(dockerIo, 'hosts.toml'), 'utf8')).toBe(own);
  });

  it('leaves a hosts.toml someone wrote after it started, and the directory\u2019s other files, when it stops', async () => {
    const { serviceHost } = rendered('registry-1.docker.io');
    const dockerIo = join(certsD, 'docker.io');
    const { child, exited, output } = start('registry-1.docker.io', { [serviceHost]: CLUSTER_IP });
    await until('the script to say what it did', () => output().includes('pulls docker.io'));
    const theirs = 'server = "https://registry-1.docker.io"\n';
    writeFileSync(join(dockerIo, 'hosts.toml'), theirs);
    child.kill('SIGTERM');
    expect((await exited).code).toBe(0);
    expect(readFileSync(join(dockerIo, 'hosts.toml'), 'utf8')).toBe(theirs);
  });

  it('sends the install\u2019s pull credentials to the mirror, in a file root alone reads, when a pull Secret is set', async () => {
    const mirror = renderMirror('test-mirror', { upstreamUrl: 'registry-1.docker.io' }, { pendingNodes: [], access: { pullSecret: 'pull-login' } });
    const env = Object.fromEntries((mirror.nodeConfig.env ?? []).map((e) => [e.name, e.valueFrom?.secretKeyRef?.key === 'username' ? 'node' : 'only the nodes know this']));
    expect(mirror.nodeConfig.env?.map((e) => e.valueFrom?.secretKeyRef)).toEqual([{ name: 'pull-login', key: 'username' }, { name: 'pull-login', key: 'password' }]);
    const { serviceHost } = rendered('registry-1.docker.io');
    const child = runInContainer(root, certsD, mirror.nodeConfig.volumeMounts![0].mountPath, mirror.nodeConfig.command!, { ...env, [serviceHost]: CLUSTER_IP });
    running = child;
    const hostsToml = join(certsD, 'docker.io', 'hosts.toml');
    await until('hosts.toml', () => existsSync(hostsToml));
    const basic = Buffer.from('node:only the nodes know this').toString('base64');
    expect(readFileSync(hostsToml, 'utf8')).toContain(`[host."http://${CLUSTER_IP}:5000".header]\n    Authorization = ["Basic ${basic}"]\n`);
    expect(statSync(hostsToml).mode & 0o777).toBe(0o600);
    // containerd's parser takes the file, header table and all.
    expect(containerdHosts('docker.io/library/busybox').map((h) => h.url)).toEqual([`http://${CLUSTER_IP}:5000`, 'https://registry-1.docker.io']);
  });

  it('points any other registry, port included, at the mirror by its own name; preStop takes it back', async () => {
    const upstream = 'myregistry.example:5443';
    const { serviceHost, preStop, mountPath } = rendered(upstream);
    const { child, exited } = start(upstream, { [serviceHost]: CLUSTER_IP });
    await until('hosts.toml', () => existsSync(join(certsD, upstream, 'hosts.toml')));
    expect(containerdHosts(`${upstream}/team/app:1`).map((h) => h.url)).toEqual([`http://${CLUSTER_IP}:5000`, `https://${upstream}`]);
    expect(containerdHosts('docker.io/library/busybox').map((h) => h.url)).toEqual(['https://registry-1.docker.io']);

    // kubelet runs preStop in the same container before its SIGTERM.
    const hook = runInContainer(root, certsD, mountPath, preStop, {});
    expect(await new Promise((resolve) => hook.on('exit', resolve))).toBe(0);
    expect(containerdHosts(`${upstream}/team/app:1`).map((h) => h.url)).toEqual([`https://${upstream}`]);
    child.kill('SIGTERM');
    expect((await exited).code).toBe(0);
    expect(readdirSync(certsD)).toEqual([]);
  });

  it('exits non-zero, saying why, while the Service variable is missing, and writes nothing', async () => {
    const { exited } = start('registry-1.docker.io', {});
    const { code, output } = await exited;
    expect(code).toBe(1);
    expect(output).toContain('REGISTRY_MIRROR_TEST_MIRROR_SERVICE_HOST is not set: Service registry-mirror-test-mirror did not exist when this container started');
    expect(readdirSync(certsD)).toEqual([]);
  });
});
