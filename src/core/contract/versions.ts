import { ENGINE_DOMAIN } from '../install/identity';
import { FieldError } from '../../schema';
import type { AnyKind, KubeJson } from './kind';
import { Converted, KindVersion, VersionLayout } from './version-layout';

/**
 * A kind's API in several versions. The kind's own `version`, `spec` and `status` are its hub:
 * the newest version, the one the API server stores and the controller reads. Each older
 * version declares its layout and two conversions, to and from the hub, written once; the
 * engine derives the CRD's versions, the conversion webhook's answers, and the validation of
 * files in any served version from them.
 */

/**
 * Where the engine keeps what a conversion kept: on the converted object, JSON by the name of
 * the version that needs it to be restored exactly.
 */
export const CONVERSION_DATA_ANNOTATION = `${ENGINE_DOMAIN}/conversion-data`;

/** A conversion that cannot be done, naming the field and what was expected. */
export class ConversionError extends Error {
  constructor(
    readonly field: string,
    readonly problem: string,
  ) {
    super(`${field}: ${problem}`);
    this.name = 'ConversionError';
  }
}

type Versioned = Pick<AnyKind, 'version' | 'olderVersions'>;

/** The kind's version names, the hub first. */
export function versionNames(kind: Versioned): string[] {
  return [kind.version, ...(kind.olderVersions ?? []).map((v) => v.name)];
}

/** The versions the API serves, the hub first. */
export function servedVersionNames(kind: Versioned): string[] {
  return [kind.version, ...(kind.olderVersions ?? []).filter((v) => v.served !== false).map((v) => v.name)];
}

/** Every `group/version` the kind (in one of its groups) is served as, the hub first. */
export function servedApiVersions(kind: Versioned & Pick<AnyKind, 'group'>): string[] {
  return servedVersionNames(kind).map((version) => `${kind.group}/${version}`);
}

/** Whether the kind has more than one version, and so a CRD converting by webhook. */
export function hasVersions(kind: Versioned): boolean {
  return (kind.olderVersions ?? []).length > 0;
}

/** `group/version` split; the core group's `v1` has no group. */
export function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.lastIndexOf('/');
  return slash < 0 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

/** The layout of one version (the hub's is the kind's own). */
export function layoutOf(kind: Versioned & VersionLayout & Pick<AnyKind, 'kind'>, version: string): VersionLayout {
  if (version === kind.version) return kind;
  const older = olderVersion(kind, version);
  if (!older) throw new ConversionError('apiVersion', `unknown version "${version}" of ${kind.kind}; expected ${versionNames(kind).join(' or ')}`);
  return older;
}

function olderVersion(kind: Versioned, name: string): KindVersion | undefined {
  return kind.olderVersions?.find((v) => v.name === name);
}

/** The version an object is written in: its apiVersion's, or the hub's for an object without one. */
export function versionOf(kind: Versioned, object: Record<string, unknown>): string {
  return typeof object.apiVersion === 'string' ? splitApiVersion(object.apiVersion).version : kind.version;
}

/**
 * The object in `version`, converted through the hub, in the object's own group. Metadata is
 * kept as it is but for the engine's annotation. Throws a ConversionError naming the field for
 * an unknown version or a conversion that throws.
 */
export function convertObject(kind: AnyKind, object: KubeJson, version: string): KubeJson {
  const from = versionOf(kind, object);
  layoutOf(kind, from);
  layoutOf(kind, version);
  const group = splitApiVersion(object.apiVersion ?? '').group || kind.group;
  if (from === version) return object;
  const hub = from === kind.version ? object : step(kind, object, from, kind.version, group);
  return version === kind.version ? hub : step(kind, hub, kind.version, version, group);
}

/** One conversion, between the hub and an older version, with what it keeps for the way back. */
function step(kind: AnyKind, object: KubeJson, from: string, to: string, group: string): KubeJson {
  const older = olderVersion(kind, from === kind.version ? to : from)!;
  const there = (o: KubeJson, kept: unknown) => (to === kind.version ? older.toHub(o, kept) : older.fromHub(o, kept));
  const back = (o: KubeJson) => (to === kind.version ? older.fromHub(o, undefined) : older.toHub(o, undefined));
  const annotations = readKept(object);
  const { [to]: keptForUs, ...keptForOthers } = annotations;
  const source = withKeptData(object, keptForOthers);
  const converted = call(kind, from, () => there(jsonCopy(source), keptForUs));
  const result = withApiVersion(withKeptData(converted.object, keptForOthers), `${group}/${to}`);
  if (converted.kept === undefined) return result;
  // Nothing to keep when the way back already gives the object as it was.
  // Only compared, never returned: not made JSON (sameJson reads it as JSON would; anything else only keeps the data).
  const plain = call(kind, to, () => back(jsonCopy(result)), false);
  if (sameJson(withApiVersion(withKeptData(plain.object, keptForOthers), object.apiVersion), source)) return result;
  return withKeptData(result, { ...keptForOthers, [from]: converted.kept });
}

function call(kind: AnyKind, version: string, convert: () => Converted, asJson = true): Converted {
  try {
    return asJson ? jsonCopy(convert()) : convert();
  } catch (err) {
    if (err instanceof ConversionError) throw err;
    throw new ConversionError('apiVersion', `${kind.kind}'s conversion from version ${version} failed: ${(err as Error).message}`);
  }
}

function withApiVersion(object: KubeJson, apiVersion: string): KubeJson {
  const { apiVersion: _old, kind, ...rest } = object;
  return { apiVersion, kind, ...rest } as KubeJson;
}

function readKept(object: KubeJson): Record<string, unknown> {
  const text = object.metadata?.annotations?.[CONVERSION_DATA_ANNOTATION];
  if (text === undefined) return {};
  try {
    const parsed = JSON.parse(text) as unknown;
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {}; // Edited by hand into something else: convert as if nothing were kept.
  }
}

/** The object with the engine's annotation holding `kept` (none when empty). */
function withKeptData(object: KubeJson, kept: Record<string, unknown>): KubeJson {
  const { [CONVERSION_DATA_ANNOTATION]: _old, ...others } = object.metadata?.annotations ?? {};
  const annotations = Object.keys(kept).length ? { ...others, [CONVERSION_DATA_ANNOTATION]: JSON.stringify(kept) } : others;
  const { annotations: _previous, ...metadata } = object.metadata ?? {};
  return { ...object, metadata: (Object.keys(annotations).length ? { ...metadata, annotations } : metadata) as KubeJson['metadata'] };
}

/**
 * A copy of JSON data. Objects here come from JSON (a review's body, a conversion's result made
 * JSON by `call`): a JSON round trip copies them several times faster than structuredClone,
 * which was a fifth of a review's CPU time.
 */
function jsonCopy<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/**
 * Whether two JSON values are equal, whatever the order of object keys (what canonicalJson
 * compares, without building and sorting two strings, which cost another fifth). A key whose
 * value is undefined counts as absent, as in JSON.
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, i) => sameJson(item, b[i]));
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = Object.keys(left).filter((k) => left[k] !== undefined);
  if (keys.length !== Object.keys(right).filter((k) => right[k] !== undefined).length) return false;
  return keys.every((k) => Object.prototype.hasOwnProperty.call(right, k) && sameJson(left[k], right[k]));
}

/** JSON with object keys sorted, so that two objects compare by content. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  );
}

/** Field errors of a failed conversion, in the words validation uses. */
export function conversionErrors(err: unknown): FieldError[] {
  if (err instanceof ConversionError) return [{ field: err.field, message: err.problem }];
  throw err;
}

