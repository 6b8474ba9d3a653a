import { POSTGRES_IMAGE_PATTERN } from './api';

/** The parts of a postgres image reference that upgrades compare. */
export interface PostgresVersion {
  /** The whole tag, e.g. `17.2-alpine3.21`. */
  readonly tag: string;
  readonly major: number;
  /** 0 when the tag names only the major version (`17`). */
  readonly minor: number;
  /** Which C library the image is built on; it decides how text sorts in indexes. */
  readonly libc: 'glibc' | 'musl';
}

/** The version of a postgres image with a version tag, or undefined for any other image. */
export function parsePostgresImage(image: string): PostgresVersion | undefined {
  if (!new RegExp(POSTGRES_IMAGE_PATTERN).test(image)) return undefined;
  const tag = /postgres:([^@]+)/.exec(image)![1];
  const [, major, minor, variant = ''] = /^([0-9]+)(?:[.]([0-9]+))?(.*)$/.exec(tag)!;
  return { tag, major: Number(major), minor: Number(minor ?? 0), libc: variant.includes('alpine') ? 'musl' : 'glibc' };
}

/** Negative when `a` is older than `b`, 0 for the same major.minor, positive when newer. */
export function compareVersions(a: PostgresVersion, b: PostgresVersion): number {
  return a.major - b.major || a.minor - b.minor;
}
