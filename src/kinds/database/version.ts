import { IMAGE_REFERENCE_PATTERN } from './api';

/** The parts of an image reference that upgrades compare. */
export interface PostgresVersion {
  /** The repository's last path component, e.g. `postgres` for registry.example.com/library/postgres:17. */
  readonly repository: string;
  /** The whole tag, e.g. `17.2-alpine3.21`. */
  readonly tag: string;
  readonly major: number;
  /** 0 when the tag names only the major version (`17`). */
  readonly minor: number;
  /** Which C library the image is built on; it decides how text sorts in indexes. */
  readonly libc: 'glibc' | 'musl';
}

/** Why a version could not be read from an image reference, for the held status. */
export type UnreadableVersion = { readonly unreadable: string };

/**
 * The version of an image whose tag starts with one (`17`, `17.2`, `17.2-alpine3.21`, with
 * or without a digest), or why none can be read: no tag (`postgres@sha256:...`), or a tag
 * that is a name (`latest`, `bookworm`). The registry and path do not matter, so a mirror of
 * the same image compares equal; the repository's last component must match for a comparison.
 */
export function readImageVersion(image: string): PostgresVersion | UnreadableVersion {
  if (!new RegExp(IMAGE_REFERENCE_PATTERN).test(image)) return { unreadable: `${image} is no image reference` };
  const withoutDigest = image.split('@')[0];
  const lastSlash = withoutDigest.lastIndexOf('/');
  const colon = withoutDigest.indexOf(':', lastSlash + 1);
  const repository = (colon < 0 ? withoutDigest : withoutDigest.slice(0, colon)).slice(lastSlash + 1);
  if (colon < 0) return { unreadable: `${image} has no tag to read a version from` };
  const tag = withoutDigest.slice(colon + 1);
  const match = /^([0-9]+)(?:[.]([0-9]+))?(?:[.][0-9]+)?([-_.].*)?$/.exec(tag);
  if (!match) return { unreadable: `the tag ${tag} of ${image} does not start with a version number` };
  const [, major, minor, variant = ''] = match;
  return { repository, tag, major: Number(major), minor: Number(minor ?? 0), libc: /alpine|musl/i.test(variant) ? 'musl' : 'glibc' };
}

/** The version of an image, or undefined when none can be read (see readImageVersion). */
export function parsePostgresImage(image: string): PostgresVersion | undefined {
  const version = readImageVersion(image);
  return 'unreadable' in version ? undefined : version;
}

/** Negative when `a` is older than `b`, 0 for the same major.minor, positive when newer. */
export function compareVersions(a: PostgresVersion, b: PostgresVersion): number {
  return a.major - b.major || a.minor - b.minor;
}
