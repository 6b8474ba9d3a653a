import { KubeError } from './rest';
import { KubeObject, ObjectClient } from './objects';

/**
 * Objects made by a POST and kept up to date by server-side apply afterwards.
 *
 * A POST is one request where "read it, then apply it" is two, and it never touches an object
 * that is already there (409 AlreadyExists), so nothing someone else made is written over. But
 * the fields a POST sets are owned by an `Update` entry in managedFields, and server-side apply
 * removes only fields its own `Apply` entry held: a field a later render leaves out would stay.
 * So the POST goes under a field manager of its own (createManager), and the first apply that
 * leaves out a field that entry still holds (or fails on one, see applyOverCreate) moves the
 * entry into the apply's (as kubectl's csaupgrade does, guarded by the resourceVersion) and
 * applies again, which then removes it.
 */

/** The field manager of the POSTs; its fields become the apply manager's on first need. */
export function createManager(fieldManager: string): string {
  return `${fieldManager}-create`;
}

/** POSTs the object; undefined when one of that name exists already (then it is not touched). */
export async function createIfAbsent<T extends KubeObject>(objects: ObjectClient, object: KubeObject): Promise<T | undefined> {
  try {
    return await objects.create<T>(object, { fieldManager: createManager(objects.fieldManager) });
  } catch (err) {
    if (err instanceof KubeError && err.reason === 'AlreadyExists') return undefined;
    throw err;
  }
}

/** How often taking over the POST's fields is tried again when the object changes meanwhile. */
const TAKEOVER_ATTEMPTS = 3;

/**
 * Server-side apply (force) of an object that may have been made by createIfAbsent: fields of
 * that POST the object still has and this apply left out are removed too, like any field an
 * earlier apply set. One request as long as no such field is left (the usual case).
 */
export async function applyOverCreate<T extends KubeObject>(objects: ObjectClient, object: KubeObject): Promise<T> {
  let result: T;
  try {
    result = await objects.apply<T>(object);
  } catch (err) {
    // A field of the POST that the apply would have removed can leave the object invalid (a
    // list item whose key the render changed, there twice): take the POST's fields over first.
    if (!(err instanceof KubeError && err.code === 422) || !(await takeOverCreate(objects, object, await objects.find<T>(object)))) throw err;
    return objects.apply<T>(object);
  }
  return (await takeOverCreate(objects, object, result)) ? objects.apply<T>(object) : result;
}

/** Moves the POST's entry into the apply's when it holds a field the apply's does not; false when there is none to move. */
async function takeOverCreate(objects: ObjectClient, object: KubeObject, live: KubeObject | undefined): Promise<boolean> {
  for (let attempt = 1; live; attempt++) {
    const managedFields = takenOver(live, createManager(objects.fieldManager), objects.fieldManager);
    if (!managedFields) return false;
    try {
      await objects.rest.request('PATCH', await objects.discovery.objectPath(object), {
        // The resourceVersion makes this fail, rather than drop what changed meanwhile, when the object moved on.
        body: { metadata: { managedFields, resourceVersion: live.metadata.resourceVersion } },
        contentType: 'application/merge-patch+json',
      });
      return true;
    } catch (err) {
      if (!(err instanceof KubeError && err.code === 409) || attempt >= TAKEOVER_ATTEMPTS) throw err;
      live = await objects.find(object);
    }
  }
  return false;
}

/** One entry of metadata.managedFields, as the API server writes it. */
export interface ManagedFieldsEntry {
  readonly manager?: string;
  readonly operation?: string;
  readonly apiVersion?: string;
  readonly time?: string;
  readonly fieldsType?: string;
  readonly fieldsV1?: FieldSet;
  readonly subresource?: string;
}

/** A FieldsV1 tree: `f:name`, `k:{...}`, `v:...` and `.` keys, each naming a field owned (or holding deeper ones). */
export interface FieldSet {
  readonly [key: string]: FieldSet;
}

/**
 * The managedFields with the POST's entry merged into the apply's, when the POST's entry holds
 * a field the apply's does not; undefined when there is nothing to take over. An entry of
 * another apiVersion is left alone: its field paths are that version's.
 */
export function takenOver(object: KubeObject, creator: string, applier: string): ManagedFieldsEntry[] | undefined {
  const entries = (object.metadata.managedFields ?? []) as ManagedFieldsEntry[];
  const applied = entries.find((e) => e.manager === applier && e.operation === 'Apply' && !e.subresource);
  const created = entries.find((e) => e.manager === creator && e.operation === 'Update' && !e.subresource && e.apiVersion === (applied?.apiVersion ?? object.apiVersion));
  if (!created?.fieldsV1 || !fieldsOutside(created.fieldsV1, applied?.fieldsV1 ?? {})) return undefined;
  const merged: ManagedFieldsEntry = { ...(applied ?? { manager: applier, operation: 'Apply', apiVersion: created.apiVersion, fieldsType: 'FieldsV1' }), fieldsV1: union(applied?.fieldsV1 ?? {}, created.fieldsV1) };
  return entries.flatMap((e) => (e === created ? [] : e === applied ? [merged] : [e])).concat(applied ? [] : [merged]);
}

/**
 * Whether `a` holds a field `b` does not. A map's or list item's own entry (`.`, which a POST's
 * entry has and an apply's mostly not) is no field to remove while `b` holds that map or item:
 * were it dropped, `b` would not hold it either.
 */
export function fieldsOutside(a: FieldSet, b: FieldSet): boolean {
  return Object.entries(a).some(([key, inner]) => key !== '.' && (!(key in b) || fieldsOutside(inner, b[key])));
}

/** Every field either holds. */
/** Every field either tree holds. */
export function union(a: FieldSet, b: FieldSet): FieldSet {
  const result: Record<string, FieldSet> = { ...a };
  for (const [key, inner] of Object.entries(b)) result[key] = key in result ? union(result[key], inner) : inner;
  return result;
}
