import { ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { hostProgram, ImageConfig } from './image';
import { logChild } from './child-log';

/** What the kubelet mounts at /var/run/secrets/kubernetes.io/serviceaccount. */
export interface ServiceAccountFiles {
  readonly token: string;
  readonly caPem: string;
  readonly namespace: string;
}

export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';
export const IMAGE_UID = 65532;

/**
 * An unpacked image root run the way the Deployment runs it, without a container runtime:
 * the root is mounted read-only (readOnlyRootFilesystem), /tmp is a tmpfs, the service
 * account's files are a read-only mount, and the entrypoint runs under chroot as 65532
 * with the image's environment plus what a Pod gets. The network namespace is the host's,
 * so 127.0.0.1 reaches the test's API server and rate provider.
 */
export class PodSandbox {
  private readonly mounts: string[] = [];
  /** Found on the host's PATH: the child's environment is the image's, whose PATH is /usr/local/bin. */
  private readonly chroot = hostProgram('chroot') ?? 'chroot';

  constructor(
    readonly rootfs: string,
    private readonly image: ImageConfig,
    private readonly podEnv: Record<string, string>,
  ) {}

  /** Mounts everything; `serviceAccount` files are written to `secretsDir` (outside the root) first. */
  mount(serviceAccount: ServiceAccountFiles | undefined, secretsDir: string): void {
    const target = join(this.rootfs, SERVICE_ACCOUNT_DIR);
    // A runtime creates its mount points in the container's own layer; here they go in before the root turns read-only.
    if (serviceAccount) mkdirSync(target, { recursive: true });
    this.bind(this.rootfs, this.rootfs, true);
    this.mountTmpfs(join(this.rootfs, 'tmp'));
    if (serviceAccount) {
      mkdirSync(secretsDir, { recursive: true });
      for (const [file, text] of Object.entries({ token: serviceAccount.token, 'ca.crt': serviceAccount.caPem, namespace: serviceAccount.namespace })) {
        writeFileSync(join(secretsDir, file), text);
        chmodSync(join(secretsDir, file), 0o644); // the kubelet's default mode for the projected token volume
      }
      this.bind(secretsDir, target, true);
    }
  }

  /** Unmounts in reverse order; a busy mount is detached lazily rather than left behind. */
  unmount(): void {
    for (const target of this.mounts.reverse()) {
      if (spawnSync('umount', [target]).status !== 0) spawnSync('umount', ['-l', target]);
    }
    this.mounts.length = 0;
  }

  /** The environment the container gets: the image's Env, then the Pod's, then `extra`. */
  env(extra: Record<string, string> = {}): Record<string, string> {
    const fromImage = Object.fromEntries(this.image.config.Env.map((e) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)]));
    return { ...fromImage, ...this.podEnv, ...extra };
  }

  /** The chroot command line for the entrypoint (or `command` in the image) with `args`. */
  private argv(args: string[], command = this.image.config.Entrypoint): string[] {
    return [`--userspec=${IMAGE_UID}:${IMAGE_UID}`, `--groups=${IMAGE_UID}`, this.rootfs, ...command, ...args];
  }

  /** Starts a long-running process (the controller), its output going to `logFile`. */
  start(args: string[], logFile: string, extraEnv: Record<string, string> = {}): ChildProcess {
    // Its own process group, so that a watchdog can stop it the way it stops the control plane's processes.
    const child = spawn(this.chroot, this.argv(args), { env: this.env(extraEnv), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    void logChild(child, logFile);
    return child;
  }

  /** Runs to completion: the entrypoint with `args`, or another program of the image (`command`). */
  run(args: string[], options: { input?: string; env?: Record<string, string>; command?: string[] } = {}): { status: number | null; stdout: string; stderr: string } {
    const result = spawnSync(this.chroot, this.argv(args, options.command), { env: this.env(options.env), input: options.input, encoding: 'utf8', timeout: 60_000 });
    return { status: result.status, stdout: result.stdout, stderr: result.stderr };
  }

  private bind(source: string, target: string, readOnly: boolean): void {
    execFileSync('mount', ['--bind', source, target]);
    this.mounts.push(target);
    if (readOnly) execFileSync('mount', ['-o', 'remount,bind,ro', target]);
  }

  private mountTmpfs(target: string): void {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'mode=1777,size=64m,nosuid,nodev', 'tmpfs', target]);
    this.mounts.push(target);
  }
}

/**
 * Unmounts what sandboxes of earlier runs left mounted under `<parent>/<prefix>*` when their
 * test process died before its afterAll (each run writes its pid to `<dir>/pid`), and removes
 * those directories. A run that is still alive keeps its mounts.
 */
export function cleanUpAbandonedSandboxes(parent: string, prefix: string): void {
  const mounts = readFileSync('/proc/self/mounts', 'utf8')
    .split('\n')
    .map((line) => line.split(' ')[1]?.replace(/\\040/g, ' '))
    .filter((target): target is string => !!target && target.startsWith(join(parent, prefix)));
  const runDir = (target: string) => join(parent, target.slice(parent.length + 1).split('/')[0]);
  const abandoned = (dir: string) => {
    const pidFile = join(dir, 'pid');
    if (!existsSync(pidFile)) return true;
    return !existsSync(`/proc/${readFileSync(pidFile, 'utf8').trim()}`);
  };
  const dirs = new Set<string>();
  // Deepest first: /proc/self/mounts lists mounts in the order they were made.
  for (const target of mounts.reverse()) {
    const dir = runDir(target);
    if (!abandoned(dir)) continue;
    if (spawnSync('umount', [target]).status !== 0) spawnSync('umount', ['-l', target]);
    dirs.add(dir);
  }
  for (const dir of dirs) if (existsSync(dir) && dirname(dir) === parent) rmSync(dir, { recursive: true, force: true });
}
