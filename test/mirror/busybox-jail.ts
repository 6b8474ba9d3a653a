import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The PATH of the busybox image, which the node-config container runs with. */
export const BUSYBOX_IMAGE_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

const which = (program: string) => execFileSync('sh', ['-c', `command -v ${program}`], { encoding: 'utf8' }).trim();

/** The shared libraries `binary` loads; none for a static build (busybox-static), where ldd fails. */
function linkedLibraries(binary: string): string[] {
  try {
    return execFileSync('ldd', [binary], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).match(/\/\S+/g) ?? [];
  } catch {
    return [];
  }
}

/**
 * A root filesystem like the busybox image's: Debian's busybox (and the libraries it is
 * linked with) with a link per applet in /bin, and nothing else, but the mount point of
 * the node's directory, `mountPoint`.
 */
export function makeBusyboxRoot(root: string, mountPoint: string): void {
  const busybox = which('busybox');
  const libraries = linkedLibraries(busybox);
  for (const file of libraries) {
    mkdirSync(join(root, dirname(file)), { recursive: true });
    copyFileSync(file, join(root, file));
  }
  mkdirSync(join(root, 'bin'), { recursive: true });
  copyFileSync(busybox, join(root, 'bin/busybox'));
  for (const applet of execFileSync(busybox, ['--list'], { encoding: 'utf8' }).split('\n').filter((a) => a && a !== 'busybox')) {
    symlinkSync('busybox', join(root, 'bin', applet));
  }
  mkdirSync(join(root, mountPoint), { recursive: true });
  // The runtime gives every container a /dev; the shell needs /dev/null for background jobs.
  mkdirSync(join(root, 'dev'));
  writeFileSync(join(root, 'dev/null'), '');
}

/**
 * Runs `command` as the container would: in its own mount namespace, chrooted into `root`
 * mounted read-only (readOnlyRootFilesystem) with the node's /dev/null, with `hostDir` bind-mounted read-write at
 * `mountPoint` (the hostPath volume), and only `env` for an environment. The process keeps
 * the returned pid all the way down (each step execs the next), so a signal to it reaches
 * the container's shell, as kubelet's would; it leads its own process group.
 */
export function runInContainer(root: string, hostDir: string, mountPoint: string, command: string[], env: Record<string, string>): ChildProcess {
  const setup = 'root="$1" node="$2" at="$3"; shift 3; mount --bind "$root" "$root" && mount -o remount,bind,ro "$root" && mount --bind /dev/null "$root/dev/null" && mount --bind "$node" "$root$at" && exec chroot "$root" "$@"';
  return spawn(which('unshare'), ['--mount', '--propagation', 'private', which('sh'), '-c', setup, 'container', root, hostDir, mountPoint, ...command], {
    env: { PATH: BUSYBOX_IMAGE_PATH, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
}
