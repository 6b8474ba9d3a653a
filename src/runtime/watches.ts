import { CacheReader, Collection, KubeJson, Query } from '../core/kind';
import { collectionPath, labelSelector, matchesLabels, ResolvedCollection } from '../kube/discovery';
import { KubeObject, objectKey } from '../kube/objects';
import { ChangeType, Informer, WatchRestart } from './informer';
import { OWNER_NAME_LABEL, OWNER_NAMESPACE_LABEL } from '../core/names';
import { Logger } from './log';
import { childId } from './ownership';

/** How long a reconcile waits for a new watch's first LIST before it reports why not. */
const SYNC_TIMEOUT_MS = 30_000;

/** What a change in a watched collection should queue. */
export interface WatchEvents {
  /** A child changed: queue its owner. */
  readonly child: (object: KubeObject) => void;
  /** A related object changed: queue these owners, or every owner of the kind. */
  readonly related: (ownerKeys: Iterable<string> | 'all') => void;
}

/** A label-selected watch that some owners asked for, and who they are. */
interface SharedQuery {
  readonly informer: Informer;
  readonly owners: Set<string>;
}

const collectionKey = (c: Collection) => `${c.apiGroup}/${c.resource}`;
const resolvedKey = (c: ResolvedCollection) => collectionKey({ apiGroup: apiGroupOf(c), resource: c.resource });
/** How the child informers are found: by the child's `apiVersion/Kind`, and its namespace where each is watched on its own. */
const childInformerKey = (apiVersion: string, kind: string, namespace = '') => `${apiVersion}/${kind}${namespace ? `@${namespace}` : ''}`;
const queryKey = (c: Collection, q: Query) => `${collectionKey(c)}|${q.namespace ?? ''}|${labelSelector(q.labels) ?? ''}`;

/** A collection of a kind's children: its list path (in one namespace, or all) and the label selector its watch uses. */
export interface ChildCollection {
  readonly path: string;
  readonly collection: ResolvedCollection;
  readonly selector: string;
}

/**
 * Every collection one kind watches: its children (label-selected, to apply and prune), the
 * collections it reads whole (e.g. namespaces) and the label-selected parts of collections its
 * objects ask for (e.g. the ConfigMaps a rule selects), shared by every object that asks the
 * same. Observers read all of them here instead of listing the API server per reconcile.
 */
export class KindWatches implements CacheReader {
  /** Child informers by `apiVersion/Kind` (`apiVersion/Kind@namespace` where namespaces are watched each), for the reconciler's apply and prune. */
  readonly children = new Map<string, Informer>();
  /** The child collections, for a takeover's look at the children another shard labelled. */
  readonly childCollections: ChildCollection[] = [];
  /**
   * Children and whole related collections by `apiGroup/resource`, for reads; `child` marks the
   * children's. One informer per collection, or one per namespace served (--namespace), whose
   * caches are read together.
   */
  private readonly collections = new Map<string, { resolved: ResolvedCollection; informers: Informer[]; child: boolean }>();
  private readonly queries = new Map<string, SharedQuery>();
  /** Cached children by their owner labels (see childrenOf). */
  private readonly byOwner = new Map<string, Map<string, KubeObject>>();
  private readonly queriesOf = new Map<string, Set<string>>();
  /**
   * Reads of child collections through get and list (an observer's), counted: an observation
   * that read children may differ once the echo of a write is cached, so that echo stays news.
   */
  childReads = 0;
  /** Children we are writing, with the watch events of each that arrived meanwhile (see write). */
  private readonly writing = new Map<string, KubeObject[]>();
  /** The resourceVersion our last write of a child gave it, until the watch delivers the child (see write). */
  private readonly echoes = new Map<string, string>();
  private readonly resolved = new Map<string, { collection: ResolvedCollection; metadataOnly: boolean }>();
  private started = false;

  constructor(
    private readonly rest: ConstructorParameters<typeof Informer>[0],
    private readonly events: WatchEvents,
    private readonly log: Logger,
    /** Told of each collection watched and each time its watch starts over (see InformerOptions.onRestart). */
    private readonly restartsOf?: WatchRestarts,
  ) {}

  /** The informer watching this child's collection, if the kind watches it (else it is read by name only). */
  informerOf(child: KubeObject): Informer | undefined {
    return this.children.get(childInformerKey(child.apiVersion, child.kind)) ?? this.children.get(childInformerKey(child.apiVersion, child.kind, child.metadata.namespace));
  }

  private restarts(collection: ResolvedCollection): { onRestart?: (why: WatchRestart) => void } {
    const report = this.restartsOf;
    if (!report) return {};
    const resource = resourceLabel(collection.resource, apiGroupOf(collection));
    report.watching(resource);
    return { onRestart: (why) => report.restarted(resource, why) };
  }

  /**
   * A child collection, watched through the labels every child of the kind carries: in all
   * namespaces (none given), or in each namespace given, one watch per namespace.
   */
  addChildren(collection: ResolvedCollection, selector: string, namespaces: readonly string[] = []): void {
    const informers = inEach(namespaces, (namespace) => {
      const path = collectionPath(collection, namespace);
      this.childCollections.push({ path, collection, selector });
      const informer = new Informer(this.rest, { path, labelSelector: selector, ...this.restarts(collection) }, this.log);
      informer.on((type, child, previous) => {
        this.index(type, child, previous);
        this.changed(type, child);
      });
      this.children.set(childInformerKey(collection.groupVersion, collection.kind, namespace), informer);
      return informer;
    });
    this.collections.set(resolvedKey(collection), { resolved: collection, informers, child: true });
  }

  /** A collection read whole (in all namespaces, or in each namespace given): any change after the first LIST queues every owner. */
  addWhole(collection: ResolvedCollection, metadataOnly = false, namespaces: readonly string[] = []): void {
    const informers = inEach(collection.namespaced ? namespaces : [], (namespace) => {
      const informer = new Informer(this.rest, { path: collectionPath(collection, namespace), metadataOnly, ...this.restarts(collection) }, this.log);
      informer.on(() => informer.hasSynced && this.events.related('all'));
      return informer;
    });
    this.collections.set(resolvedKey(collection), { resolved: collection, informers, child: false });
  }

  /** A collection whose parts owners ask for through `ensure`. */
  addQueried(collection: ResolvedCollection, metadataOnly = false): void {
    this.resolved.set(resolvedKey(collection), { collection, metadataOnly });
  }

  start(): void {
    this.started = true;
    for (const informer of this.collectionInformers()) informer.start();
  }

  stop(): void {
    for (const informer of this.collectionInformers()) informer.stop();
    for (const { informer } of this.queries.values()) informer.stop();
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
      if (!shared) shared = this.startQuery(key, collection, query);
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

  /**
   * The cached children whose owner labels name this owner, from an index kept with the
   * caches: a reconcile looks at its own children, not at every child of the kind.
   */
  childrenOf(ownerLabels: Readonly<Record<string, string>>): KubeObject[] {
    return [...(this.byOwner.get(ownerIndexKey(ownerLabels)) ?? new Map()).values()];
  }

  /**
   * Sends our write of a child (`send`). The watch's echo of it, the child exactly as the write
   * left it (same resourceVersion), queues no owner, whether it comes before the answer or after:
   * the reconcile that wrote it knew all of it already (at 20,000 new objects, half of all
   * reconciles were such echoes), unless its observation read children (`echoIsNews`). Any
   * other change of the child still queues its owner. `send` answers undefined when it wrote nothing.
   */
  async write<T extends KubeObject | undefined>(child: KubeObject, send: () => Promise<T>, options: { echoIsNews?: boolean } = {}): Promise<T> {
    if (options.echoIsNews || !this.informerOf(child)) return send();
    const id = childId(child);
    const arrived: KubeObject[] = [];
    this.writing.set(id, arrived);
    let result: T | undefined;
    try {
      return (result = await send());
    } finally {
      this.writing.delete(id);
      const version = result?.metadata.resourceVersion;
      if (version && !arrived.some((c) => c.metadata.resourceVersion === version)) this.echoes.set(id, version);
      const others = arrived.filter((c) => c.metadata.resourceVersion !== version);
      if (others.length) this.events.child(others[others.length - 1]);
    }
  }

  /** A child's watch event: held while our write of it is under way, dropped when it is that write's echo. */
  private changed(type: ChangeType, child: KubeObject): void {
    const id = childId(child);
    const arrived = type === 'deleted' ? undefined : this.writing.get(id);
    if (arrived) return void arrived.push(child);
    const echo = this.echoes.get(id);
    if (echo !== undefined) this.echoes.delete(id);
    if (type === 'deleted' || echo !== child.metadata.resourceVersion) this.events.child(child);
  }

  private index(type: ChangeType, child: KubeObject, previous?: KubeObject): void {
    const id = childId(child);
    if (previous) this.byOwner.get(ownerIndexKey(previous.metadata.labels))?.delete(id);
    if (type === 'deleted') return;
    const key = ownerIndexKey(child.metadata.labels);
    let children = this.byOwner.get(key);
    if (!children) this.byOwner.set(key, (children = new Map()));
    children.set(id, child);
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
    const shared = this.queries.get(queryKey(collection, query));
    if (shared) return ([...shared.informer.cache.values()] as KubeJson[]).filter(selected);
    const whole = this.collections.get(collectionKey(collection));
    if (!whole) throw new Error(`${collectionKey(collection)} is not watched for this kind: declare it in manages or watches`);
    return whole.informers.flatMap((informer) => [...informer.cache.values()] as KubeJson[]).filter(selected);
  }

  private startQuery(key: string, collection: Collection, query: Query): SharedQuery {
    const resolved = this.resolved.get(collectionKey(collection));
    if (!resolved) throw new Error(`${collectionKey(collection)} is not a watched collection of this kind: declare it in watches with queries`);
    const informer = new Informer(this.rest, { path: collectionPath(resolved.collection, query.namespace), labelSelector: labelSelector(query.labels), metadataOnly: resolved.metadataOnly, ...this.restarts(resolved.collection) }, this.log);
    const shared = { informer, owners: new Set<string>() };
    // The first LIST only fills the cache: the owners that asked are reconciling already.
    informer.on(() => informer.hasSynced && this.events.related(shared.owners));
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

/** What counts watch restarts: told of each collection as it is first watched, then of each restart. */
export interface WatchRestarts {
  watching(resource: string): void;
  restarted(resource: string, why: WatchRestart): void;
}

/** `resource.group` (`resource` for the core group), the label watch restarts are counted by. */
export function resourceLabel(resource: string, apiGroup: string): string {
  return apiGroup ? `${resource}.${apiGroup}` : resource;
}

/** One informer in all namespaces (none given), or one in each namespace given. */
function inEach(namespaces: readonly string[], start: (namespace: string | undefined) => Informer): Informer[] {
  return namespaces.length ? namespaces.map(start) : [start(undefined)];
}

function apiGroupOf(collection: ResolvedCollection): string {
  return collection.groupVersion.includes('/') ? collection.groupVersion.split('/')[0] : '';
}

/** An owner's name and namespace as its children's labels carry them. */
function ownerIndexKey(labels: unknown): string {
  const l = (labels ?? {}) as Record<string, string>;
  return `${l[OWNER_NAMESPACE_LABEL] ?? ''}/${l[OWNER_NAME_LABEL] ?? ''}`;
}
