import { FieldSet, ManagedFieldsEntry, union } from '../kube/create-then-apply';
import { KubeObject } from '../kube/objects';

/*
 * Which status fields the operator wrote, read from the object's managedFields: the API server
 * records, for each writer, the fields its writes set. A status field the kind leaves out is
 * removed only when the operator wrote it, so a field another writer put there (the original
 * operator's, kept across a takeover) is never ours to remove, even where the schema declares it.
 * `fieldManager` is the operator's; a sharded operator writes as `<fieldManager>-shard-<name>`,
 * and a shard may inherit another shard's objects.
 */

/** Which managedFields entries an owner cache keeps: the operator's status writes, not the rest. */
export function keepsStatusWritesOf(fieldManager: string): (entry: ManagedFieldsEntry) => boolean {
  return (entry) => entry.subresource === 'status' && (entry.manager === fieldManager || !!entry.manager?.startsWith(`${fieldManager}-shard-`));
}

/** The status fields the operator wrote to `object` in its current apiVersion, as one FieldsV1 tree; undefined when none. */
export function statusWrittenBy(fieldManager: string, object: KubeObject): FieldSet | undefined {
  const ours = keepsStatusWritesOf(fieldManager);
  const trees = ((object.metadata.managedFields ?? []) as ManagedFieldsEntry[])
    .filter((e) => ours(e) && e.apiVersion === object.apiVersion)
    .map((e) => e.fieldsV1?.['f:status'])
    .filter((tree): tree is FieldSet => tree !== undefined);
  return trees.length ? trees.reduce(union) : undefined;
}
