/**
 * What the work queue holds: one object of one served kind, in one group of that kind (as
 * sample-controller queues a `cache.ObjectName`). The queue itself dedupes by a string: this file
 * is the only place that makes that string and reads it back.
 */
export interface QueueItem {
  /** The CRD's name (`plural.group`), so that same-named objects in two groups of a kind are two items. */
  readonly group: string;
  readonly namespace?: string;
  readonly name: string;
}

const SEPARATOR = '|';

/** The item of an object of the group `group`. */
export function queueItem(group: string, object: { readonly namespace?: string; readonly name: string }): QueueItem {
  return { group, name: object.name, ...(object.namespace ? { namespace: object.namespace } : {}) };
}

/** The string the queue dedupes by: `plural.group|namespace/name` (`plural.group|name` cluster-wide). */
export function itemKey(item: QueueItem): string {
  return `${item.group}${SEPARATOR}${cacheKey(item)}`;
}

/** The item a queue key names (see itemKey). */
export function parseItemKey(key: string): QueueItem {
  const at = key.indexOf(SEPARATOR);
  return queueItem(key.slice(0, at), objectNameOf(key.slice(at + 1)));
}

/** The namespace and name a cache key (`namespace/name`, or `name`) names. */
export function objectNameOf(cacheKey: string): { namespace?: string; name: string } {
  const slash = cacheKey.indexOf('/');
  return slash < 0 ? { name: cacheKey } : { namespace: cacheKey.slice(0, slash), name: cacheKey.slice(slash + 1) };
}

/** `namespace/name` (or `name`): how the caches name the item's object (see objectKey). */
export function cacheKey(item: Pick<QueueItem, 'namespace' | 'name'>): string {
  return item.namespace ? `${item.namespace}/${item.name}` : item.name;
}
