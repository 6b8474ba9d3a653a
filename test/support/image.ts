import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');
/** Where `npm run image` writes the archive and its image.json. */
export const IMAGE_DIR = join(root, 'build', 'image');

/** What scripts/image/build.sh reports in image.json. */
export interface BuiltImage {
  readonly reference: string;
  readonly digest: string;
  readonly archive: string;
  readonly revision: string;
  /** A hash of every file, mode and setting that went into the image. */
  readonly inputs: string;
  readonly compressedBytes: number;
  readonly unpackedBytes: number;
  /** How long this build took (not in image.json). */
  readonly seconds?: number;
}

/** The OCI image configuration (the parts the tests read). */
export interface ImageConfig {
  readonly config: { User: string; Entrypoint: string[]; Cmd?: string[]; Env: string[]; WorkingDir: string; Labels: Record<string, string> };
}

const TOOLS = ['buildah', 'umoci', 'skopeo', 'chroot', 'mount', 'umount'];

/** The image tests run everywhere CI runs: a missing tool is a failure that says what to install. */
export function requireImageTools(): void {
  const missing = TOOLS.filter((tool) => !onPath(tool));
  if (missing.length) {
    throw new Error(`the image tests need ${missing.join(', ')} on PATH: install them with apt-get install -y buildah umoci skopeo (.ci/run does)`);
  }
  if (process.getuid?.() !== 0) throw new Error('the image tests need root: buildah (vfs, chroot isolation), umoci unpack, chroot --userspec and mount do');
}

function onPath(tool: string): boolean {
  return hostProgram(tool) !== undefined;
}

/** A program's absolute path on the host's PATH (a child's own environment may have another PATH). */
export function hostProgram(tool: string): string | undefined {
  return (process.env.PATH ?? '')
    .split(':')
    .map((dir) => join(dir, tool))
    .find((path) => path.startsWith('/') && existsSync(path));
}

/** Builds the image from the compiled checkout (lib/) into `outDir`, as `npm run image` does. */
export function buildImage(outDir: string): BuiltImage {
  const started = Date.now();
  try {
    execFileSync('bash', [join(root, 'scripts', 'image', 'build.sh'), outDir], { cwd: root, stdio: 'pipe', maxBuffer: 64 * 1024 * 1024 });
  } catch (e) {
    const err = e as { stderr?: Buffer; stdout?: Buffer };
    throw new Error(`scripts/image/build.sh ${outDir} failed:\n${err.stderr?.toString() ?? ''}${err.stdout?.toString() ?? ''}`);
  }
  return { ...readBuiltImage(outDir)!, seconds: (Date.now() - started) / 1000 };
}

export function readBuiltImage(dir: string): BuiltImage | undefined {
  const file = join(dir, 'image.json');
  if (!existsSync(file)) return undefined;
  const image = JSON.parse(readFileSync(file, 'utf8')) as BuiltImage;
  return existsSync(image.archive) ? image : undefined;
}

/** One blob of an OCI archive, by digest. */
export function archiveBlob(archive: string, digest: string): Buffer {
  return execFileSync('tar', ['-xOf', archive, `blobs/sha256/${digest.replace(/^sha256:/, '')}`], { maxBuffer: 256 * 1024 * 1024 });
}

export function imageConfig(image: BuiltImage): ImageConfig {
  const manifest = JSON.parse(archiveBlob(image.archive, image.digest).toString()) as { config: { digest: string } };
  return JSON.parse(archiveBlob(image.archive, manifest.config.digest).toString()) as ImageConfig;
}

/**
 * The image's root filesystem in `dir`/bundle/rootfs, as a container runtime would lay it
 * out: skopeo copies the archive into an OCI layout, umoci unpacks its layers with their owners.
 */
export function unpackImage(image: BuiltImage, dir: string): string {
  const layout = join(dir, 'layout');
  execFileSync('skopeo', ['copy', '--quiet', `oci-archive:${image.archive}`, `oci:${layout}:controller`], { stdio: 'pipe' });
  execFileSync('umoci', ['unpack', '--image', `${layout}:controller`, join(dir, 'bundle')], { stdio: 'pipe' });
  rmSync(layout, { recursive: true, force: true });
  return join(dir, 'bundle', 'rootfs');
}
