import { isChildCollection } from '../core/kit/child-policy';
import { AnyKind } from '../core/contract/kind';
import { whyNotNamespaced } from '../core/install/namespaced';
import { CHILD_MANAGER, labelValue, MANAGED_BY_LABEL, OWNER_KIND_LABEL, ownerKindLabel } from '../core/kit/names';
import { optInIsOn } from '../core/contract/opt-ins';
import { ObjectClient } from '../kube/objects';
import { KindWatches } from './watches';

/**
 * Adds to `watches` the kind's children (label-selected, where it may list and watch them) and
 * the collections it reads: for a kind that can be served so, in the namespaces served only
 * (--namespace), each watched on its own, so that Roles there are all the controller needs;
 * else everywhere. Sharded, the children's selector names this replica's shard too.
 */
export async function watchKindCollections(
  kind: AnyKind,
  watches: KindWatches,
  settings: { readonly objects: ObjectClient; readonly namespaces: readonly string[]; readonly options: Readonly<Record<string, unknown>>; readonly shardSelector?: string },
): Promise<void> {
  const { objects, options, shardSelector } = settings;
  const served = whyNotNamespaced(kind) ? [] : settings.namespaces;
  const selector = `${MANAGED_BY_LABEL}=${CHILD_MANAGER},${OWNER_KIND_LABEL}=${labelValue(ownerKindLabel(kind))}${shardSelector ? `,${shardSelector}` : ''}`;
  for (const permission of kind.manages) {
    if (!isChildCollection(permission) || !optInIsOn(kind, permission.optIn, options)) continue;
    for (const name of permission.resources) {
      const collection = await objects.discovery.resolve(permission.apiGroup, name);
      if (collection?.namespaced) watches.addChildren(collection, selector, permission.namespace ? [permission.namespace] : served);
    }
  }
  for (const watch of kind.controller?.watches ?? []) {
    if (!optInIsOn(kind, watch.optIn, options)) continue;
    const collection = await objects.discovery.resolve(watch.apiGroup, watch.resource);
    if (!collection) throw new Error(`the API server does not serve ${watch.resource} in group "${watch.apiGroup}", which ${kind.kind} watches`);
    if (watch.queries) watches.addQueried(collection, watch.metadataOnly);
    else watches.addWhole(collection, watch.metadataOnly, served);
  }
}
