import { AnyKind, CacheReader } from '../core/contract/kind';
import { childLabels } from '../core/kit/names';
import { KindWatches } from './watches';

/** What a kind's observer reads (ObserverContext.caches): the kind's watches, and an owner's own children from the engine's index. */
export function observerCaches(kind: AnyKind, watches: KindWatches): CacheReader {
  return {
    get: (collection, key) => watches.get(collection, key),
    list: (collection, query) => watches.list(collection, query),
    childrenOf: (owner, collection) => watches.ownChildren(childLabels(kind, owner as Parameters<typeof childLabels>[1]), owner.metadata.uid, collection),
  };
}
