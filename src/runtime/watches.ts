import { Collection, KubeJson, Query } from '../core/contract/kind';
import { collectionPath, matchesLabels, ResolvedCollection } from '../kube/discovery';
import { KubeObject, objectKey } from '../kube/objects';
import { ChildEchoes } from './child-echoes';
import { ChildrenByOwner } from './children-by-owner';
import { collectionKey, resolvedKey } from './collection-names';
import { Informer } from './informer';
import { Logger } from './log';
import { claims, controlledByAnother } from './ownership';
import { SharedQueries, SYNC_TIMEOUT_MS } from './shared-queries';
import { restartsOption, WatchRestarts } from './watch-restarts';

/** What a change in a watched collection should queue. */
export interface WatchEvents {
  /** A child changed: queue its owner. */
  readonly child: (object: KubeObject) => void;
  /** A related object changed: queue these owners, or every owner of the kind. */
  readonly related: (ownerKeys: Iterable<string> | 'all') => void;
}

/** How the child informers are found: by the child's `apiVersion/Kind`, and its namespace where each is watched on its own. */
const childInformerKey = (apiVersion: string, kind: string, namespace = '') => `${apiVersion}/${kind}${namespace ? `@${namespace}` : ''}`;

/** A collection of a kind's children: its list path (in one namespace, or all) and the label selector its watch uses. */
export interface ChildCollection {
  readonly path: string;
  readonly collection: ResolvedCollection;
  readonly selector: string;
}

/**
 * Every collection one kind watches, and the one place its reconciles and observers read them:
 * its children (label-selected, to apply and prune), the collections it reads whole (e.g.
 * namespaces) and the parts of collections its objects ask for (SharedQueries). Observers read
 * all of them here instead of listing the API server per reconcile.
 */
export class KindWatches {
  /** Child informers by `apiVersion/Kind` (`apiVersion/Kind@namespace` where namespaces are watched each), for the reconciler's apply and prune. */
  readonly children = new Map<string, Informer>();
  /** The child collections, for a takeover's look at the children another shard labelled. */
  readonly childCollections: ChildCollection[] = [];
  /**
   * Children and whole related collections by `apiGroup/resource`, for reads; `child` marks the
   * children's. One informer per collection, or one per namespace served (--namespace), whose
   * caches are read together.
   */
  private readonly collections = new Map<string, { informers: Informer[]; child: boolean }>();
  private readonly queries: SharedQueries;
  private readonly byOwner = new ChildrenByOwner();
  private readonly echoes: ChildEchoes;
  /**
   * Reads of child collections through get and list (an observer's), counted: an observation
   * that read children may differ once the echo of a write is cached, so that echo stays news.
   */
  childReads = 0;
  private started = false;

  constructor(
    private readonly rest: ConstructorParameters<typeof Informer>[0],
    private readonly events: WatchEvents,
    private readonly log: Logger,
    /** Told of each collection watched and each time its watch starts over (see InformerOptions.onRestart). */
    private readonly restartsOf?: WatchRestarts,
  ) {
    this.queries = new SharedQueries(rest, (owners) => events.related(owners), log, restartsOf);
    this.echoes = new ChildEchoes((child) => events.child(child));
  }

  /** The informer watching this child's collection, if the kind watches it (else it is read by name only). */
  informerOf(child: KubeObject): Informer | undefined {
    return this.children.get(childInformerKey(child.apiVersion, child.kind)) ?? this.children.get(childInformerKey(child.apiVersion, child.kind, child.metadata.namespace));
  }

  /**
   * A child collection, watched through the labels every child of the kind carries: in all
   * namespaces (none given), or in each namespace given, one watch per namespace.
   */
  addChildren(collection: ResolvedCollection, selector: string, namespaces: readonly string[] = []): void {
    const informers = inEach(namespaces, (namespace) => {
      const path = collectionPath(collection, namespace);
      this.childCollections.push({ path, collection, selector });
      const informer = new Informer(this.rest, { path, labelSelector: selector, ...restartsOption(this.restartsOf, collection) }, this.log);
      informer.on((type, child, previous) => {
        this.byOwner.changed(type, child, previous);
        this.echoes.seen(type, child);
      });
      this.children.set(childInformerKey(collection.groupVersion, collection.kind, namespace), informer);
      return informer;
    });
    this.collections.set(resolvedKey(collection), { informers, child: true });
  }

  /** A collection read whole (in all namespaces, or in each namespace given): any change after the first LIST queues every owner. */
  addWhole(collection: ResolvedCollection, metadataOnly = false, namespaces: readonly string[] = []): void {
    const informers = inEach(collection.namespaced ? namespaces : [], (namespace) => {
      const informer = new Informer(this.rest, { path: collectionPath(collection, namespace), metadataOnly, ...restartsOption(this.restartsOf, collection) }, this.log);
      informer.on(() => informer.hasSynced && this.events.related('all'));
      return informer;
    });
    this.collections.set(resolvedKey(collection), { informers, child: false });
  }

  /** A collection whose parts owners ask for through `ensure`. */
  addQueried(collection: ResolvedCollection, metadataOnly = false): void {
    this.queries.add(collection, metadataOnly);
  }

  start(): void {
    this.started = true;
    for (const informer of this.collectionInformers()) informer.start();
  }

  stop(): void {
    for (const informer of this.collectionInformers()) informer.stop();
    this.queries.stop();
  }

  get hasSynced(): boolean {
    return this.collectionInformers().every((informer) => informer.hasSynced);
  }

  /** Waits for the children and whole collections to be listed once, so a reconcile never reads an empty cache as the truth. */
  async waitForSync(): Promise<void> {
    if (!this.started) throw new Error('the watches have not been started');
    await Promise.all(this.collectionInformers().map((informer) => informer.waitForSync(SYNC_TIMEOUT_MS)));
  }

  private collectionInformers(): Informer[] {
    return [...this.collections.values()].flatMap(({ informers }) => informers);
  }

  /** Makes the owner's queries watched, and stops watching what no owner asks for any more (see SharedQueries). */
  ensure(owner: string, wanted: readonly { collection: Collection; query: Query }[]): Promise<void> {
    return this.queries.ensure(owner, wanted);
  }

  /** The owner is gone: it asks for nothing any more. */
  release(owner: string): void {
    this.queries.release(owner);
  }

  /** The cached children whose owner labels name this owner (see ChildrenByOwner). */
  childrenLabelled(ownerLabels: Readonly<Record<string, string>>): KubeObject[] {
    return this.byOwner.of(ownerLabels);
  }

  /**
   * An owner's own children (see CacheReader.childrenOf): those of the index its labels claim and
   * no other object controls, of one child collection or of all. A read of children, as `list`.
   */
  ownChildren(ownerLabels: Readonly<Record<string, string>>, ownerUid: string | undefined, collection?: Collection): KubeObject[] {
    this.childReads++;
    const kinds = collection && this.childKindsOf(collection);
    return this.byOwner.of(ownerLabels).filter((child) => claims(ownerLabels, child) && !controlledByAnother(ownerUid, child) && (!kinds || kinds.has(`${child.apiVersion}/${child.kind}`)));
  }

  /** The `apiVersion/Kind` of a child collection's objects. */
  private childKindsOf(collection: Collection): Set<string> {
    const watched = this.childCollections.filter((c) => resolvedKey(c.collection) === collectionKey(collection));
    if (!watched.length) throw new Error(`${collectionKey(collection)} is not a child collection of this kind: declare it in manages`);
    return new Set(watched.map((c) => `${c.collection.groupVersion}/${c.collection.kind}`));
  }

  /**
   * Sends our write of a child (`send`, which answers undefined when it wrote nothing): the
   * watch's echo of it queues no owner (see ChildEchoes), unless the reconcile's observation
   * read children (`echoIsNews`) or the child's collection is not watched.
   */
  write<T extends KubeObject | undefined>(child: KubeObject, send: () => Promise<T>, options: { echoIsNews?: boolean } = {}): Promise<T> {
    return options.echoIsNews || !this.informerOf(child) ? send() : this.echoes.write(child, send);
  }

  /** How many label-selected watches run for owners' queries (for tests and metrics). */
  get queryWatches(): number {
    return this.queries.size;
  }

  get(collection: Collection, key: string): KubeJson | undefined {
    this.countChildRead(collection);
    const whole = this.collections.get(collectionKey(collection));
    if (whole) return whole.informers.map((informer) => informer.cache.get(key)).find((o) => o) as KubeJson | undefined;
    return this.readable(collection, {}).find((o) => objectKey(o) === key);
  }

  list(collection: Collection, query: Query = {}): KubeJson[] {
    this.countChildRead(collection);
    return this.readable(collection, query);
  }

  private countChildRead(collection: Collection): void {
    if (this.collections.get(collectionKey(collection))?.child) this.childReads++;
  }

  private readable(collection: Collection, query: Query): KubeJson[] {
    // Checked again here, whatever the watch was asked: a cache holds only what its query selects.
    const selected = (o: KubeJson) => (!query.namespace || o.metadata.namespace === query.namespace) && matchesLabels(o.metadata.labels, query.labels);
    const asked = this.queries.cached(collection, query);
    if (asked) return asked.filter(selected);
    const whole = this.collections.get(collectionKey(collection));
    if (!whole) throw new Error(`${collectionKey(collection)} is not watched for this kind: declare it in manages or watches`);
    return whole.informers.flatMap((informer) => [...informer.cache.values()] as KubeJson[]).filter(selected);
  }
}

/** One informer in all namespaces (none given), or one in each namespace given. */
function inEach(namespaces: readonly string[], start: (namespace: string | undefined) => Informer): Informer[] {
  return namespaces.length ? namespaces.map(start) : [start(undefined)];
}
