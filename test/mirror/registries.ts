import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, chownSync, closeSync, copyFileSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isAlive, sleep } from '../../src/testing/controlplane/processes';
import { RegistryClient } from './oci-client';
import { TestTls } from './tls';

/** A registry process on 127.0.0.1 and where it logs. */
export interface RunningRegistry {
  readonly url: string;
  readonly logFile: string;
  log(): string;
  stop(): Promise<void>;
}

function startRegistry(binary: string, args: string[], env: Record<string, string>, url: string, logFile: string): RunningRegistry {
  const fd = openSync(logFile, 'a');
  const child = spawn(binary, args, { env, stdio: ['ignore', fd, fd], detached: true });
  closeSync(fd);
  const pid = child.pid!;
  return {
    url,
    logFile,
    log: () => readFileSync(logFile, 'utf8'),
    stop: async () => {
      try {
        process.kill(-pid, 'SIGTERM');
      } catch {
        return; // Already gone.
      }
      for (let i = 0; i < 100 && isAlive(pid); i++) await sleep(100);
      if (isAlive(pid)) process.kill(-pid, 'SIGKILL');
      await new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve(undefined) : child.once('exit', resolve)));
    },
  };
}

/** Waits until GET `path` answers `status`; fails with the registry's log if it never does. */
export async function untilAnswers(registry: RunningRegistry, path: string, status: number, caFile?: string): Promise<void> {
  const client = new RegistryClient({ url: registry.url, caFile });
  try {
    for (let i = 0; i < 200; i++) {
      if (await client.status(path).catch(() => 0) === status) return;
      await sleep(100);
    }
  } finally {
    await client.close();
  }
  throw new Error(`${registry.url}${path} never answered ${status}; its log:\n${registry.log()}`);
}

/**
 * The upstream: a second distribution registry on HTTPS that lets in only `username` with
 * `password` (a bcrypt htpasswd file, made by Apache's htpasswd).
 */
export async function startUpstream(registry: string, dir: string, port: number, tls: TestTls, username: string, password: string): Promise<RunningRegistry> {
  mkdirSync(join(dir, 'storage'), { recursive: true });
  writeFileSync(join(dir, 'htpasswd'), execFileSync('htpasswd', ['-inB', username], { input: `${password}\n` }));
  const config = join(dir, 'config.yml');
  writeFileSync(config, [
    'version: 0.1',
    'storage:',
    `  filesystem: { rootdirectory: ${join(dir, 'storage')} }`,
    'http:',
    `  addr: 127.0.0.1:${port}`,
    `  tls: { certificate: ${tls.certFile}, key: ${tls.keyFile} }`,
    'auth:',
    `  htpasswd: { realm: upstream, path: ${join(dir, 'htpasswd')} }`,
    '',
  ].join('\n'));
  const upstream = startRegistry(registry, ['serve', config], {}, `https://127.0.0.1:${port}`, join(dir, 'registry.log'));
  await untilAnswers(upstream, '/v2/', 401, tls.caFile);
  return upstream;
}

/** By absolute path: the mirror's environment has no PATH to look it up with. */
const CHROOT = execFileSync('sh', ['-c', 'command -v chroot'], { encoding: 'utf8' }).trim();

export interface MirrorJail {
  /** The container's root filesystem. */
  readonly root: string;
  /** The cache, where the StatefulSet mounts its PVC. */
  readonly cacheDir: string;
}

/**
 * A root filesystem laid out like the cache's registry image: the registry program, the
 * image's config file, its trust store (which holds only the test CA here, as the image's
 * holds the public CAs), and the PVC's and emptyDir's mount points owned by the Pod's uid
 * and gid (what fsGroup does).
 */
export function makeMirrorJail(registry: string, dir: string, caFile: string, uid: number, gid: number): MirrorJail {
  const root = join(dir, 'root');
  const place = (from: string, to: string) => {
    mkdirSync(join(root, to, '..'), { recursive: true });
    copyFileSync(from, join(root, to));
  };
  place(registry, 'bin/registry');
  chmodSync(join(root, 'bin/registry'), 0o755);
  place(join(__dirname, 'registry-image-config.yml'), 'etc/docker/registry/config.yml');
  place(caFile, 'etc/ssl/certs/ca-certificates.crt');
  for (const volume of ['var/lib/registry', 'tmp']) {
    mkdirSync(join(root, volume), { recursive: true });
    chownSync(join(root, volume), uid, gid);
  }
  return { root, cacheDir: join(root, 'var/lib/registry') };
}

/**
 * The cache as its Pod runs it: the image's command in the jail, as the Pod's uid and gid,
 * with the container's environment and nothing else, but for the listen address: a Pod has
 * its own network namespace, the test only 127.0.0.1 and a free port.
 */
export async function startMirror(jail: MirrorJail, env: Record<string, string>, port: number, uid: number, gid: number, readinessPath: string): Promise<RunningRegistry> {
  const mirror = startRegistry(
    CHROOT,
    [`--userspec=${uid}:${gid}`, jail.root, '/bin/registry', 'serve', '/etc/docker/registry/config.yml'],
    { ...env, REGISTRY_HTTP_ADDR: `127.0.0.1:${port}` },
    `http://127.0.0.1:${port}`,
    join(jail.root, '..', 'mirror.log'),
  );
  await untilAnswers(mirror, readinessPath, 200);
  return mirror;
}
