import { Collection, KubeJson, Query } from '../core/contract/kind';
import { collectionPath, labelSelector, ResolvedCollection } from '../kube/discovery';
import { collectionKey, resolvedKey } from './collection-names';
import { Informer } from './informer';
import { Logger } from './log';
import { restartsOption, WatchRestarts } from './watch-restarts';

/** How long a reconcile waits for a new watch's first LIST before it reports why not. */
export const SYNC_TIMEOUT_MS = 30_000;

/** A label-selected watch that some owners asked for, and who they are. */
interface SharedQuery {
  readonly informer: Informer;
  readonly owners: Set<string>;
}

const queryKey = (c: Collection, q: Query) => `${collectionKey(c)}|${q.namespace ?? ''}|${labelSelector(q.labels) ?? ''}`;

/**
 * The label-selected parts of collections the owners ask for (e.g. the ConfigMaps a rule
 * selects): one watch per distinct (collection, namespace, selector), shared by every owner
 * that asks the same, started at the first ask and stopped when no owner asks any more.
 */
export class SharedQueries {
  private readonly queries = new Map<string, SharedQuery>();
  private readonly queriesOf = new Map<string, Set<string>>();
  private readonly resolved = new Map<string, { collection: ResolvedCollection; metadataOnly: boolean }>();

  constructor(
    private readonly rest: ConstructorParameters<typeof Informer>[0],
    /** A query's objects changed after its first LIST: queue the owners that asked. */
    private readonly changed: (owners: Iterable<string>) => void,
    private readonly log: Logger,
    private readonly restartsOf?: WatchRestarts,
  ) {}

  /** A collection whose parts owners ask for through `ensure`. */
  add(collection: ResolvedCollection, metadataOnly: boolean): void {
    this.resolved.set(resolvedKey(collection), { collection, metadataOnly });
  }

  /**
   * Makes the owner's queries watched (starting a watch for a query no one asked for yet,
   * and waiting for its first LIST) and stops watching what no owner asks for any more.
   */
  async ensure(owner: string, wanted: readonly { collection: Collection; query: Query }[]): Promise<void> {
    const keys = new Set<string>();
    const waits: Promise<void>[] = [];
    // Every key first: a query refused (its labels are no selector) starts no watch, and leaves none half-owned.
    const keyed = wanted.map(({ collection, query }) => ({ collection, query, key: queryKey(collection, query) }));
    for (const { collection, query, key } of keyed) {
      keys.add(key);
      let shared = this.queries.get(key);
      if (!shared) shared = this.start(key, collection, query);
      shared.owners.add(owner);
      waits.push(shared.informer.waitForSync(SYNC_TIMEOUT_MS));
    }
    for (const key of this.queriesOf.get(owner) ?? []) if (!keys.has(key)) this.leave(owner, key);
    if (keys.size) this.queriesOf.set(owner, keys);
    else this.queriesOf.delete(owner);
    await Promise.all(waits);
  }

  /** The owner is gone: it asks for nothing any more. */
  release(owner: string): void {
    for (const key of this.queriesOf.get(owner) ?? []) this.leave(owner, key);
    this.queriesOf.delete(owner);
  }

  /** The cached objects of a query some owner asked for; undefined when none did. */
  cached(collection: Collection, query: Query): KubeJson[] | undefined {
    const shared = this.queries.get(queryKey(collection, query));
    return shared && ([...shared.informer.cache.values()] as KubeJson[]);
  }

  /** How many watches run. */
  get size(): number {
    return this.queries.size;
  }

  stop(): void {
    for (const { informer } of this.queries.values()) informer.stop();
  }

  private start(key: string, collection: Collection, query: Query): SharedQuery {
    const resolved = this.resolved.get(collectionKey(collection));
    if (!resolved) throw new Error(`${collectionKey(collection)} is not a watched collection of this kind: declare it in watches with queries`);
    const informer = new Informer(this.rest, { path: collectionPath(resolved.collection, query.namespace), labelSelector: labelSelector(query.labels), metadataOnly: resolved.metadataOnly, ...restartsOption(this.restartsOf, resolved.collection) }, this.log);
    const shared = { informer, owners: new Set<string>() };
    // The first LIST only fills the cache: the owners that asked are reconciling already.
    informer.on(() => informer.hasSynced && this.changed(shared.owners));
    this.queries.set(key, shared);
    informer.start();
    this.log.debug('watching a query', { query: key });
    return shared;
  }

  private leave(owner: string, key: string): void {
    const shared = this.queries.get(key);
    if (!shared) return;
    shared.owners.delete(owner);
    if (shared.owners.size) return;
    shared.informer.stop();
    this.queries.delete(key);
    this.log.debug('stopped watching a query no owner asks for', { query: key });
  }
}
