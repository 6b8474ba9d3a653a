import { crdName, isExtraIdentity } from '../core/groups';
import { AnyKind, apiVersionOf, Clock } from '../core/contract/kind';
import { childLabels } from '../core/kit/names';
import { resourcePath } from '../kube/paths';
import { ObjectClient, objectKey } from '../kube/objects';
import { KubeRest } from '../kube/rest';
import { EventRecorder } from './events';
import { ChangeType, Informer } from './informer';
import { Logger } from './log';
import { OwnWrites } from './own-writes';
import { keepsStatusWritesOf } from './status-ownership';
import { observerCaches } from './observer-caches';
import { ownerOf } from './ownership';
import { cacheKey, itemKey, objectNameOf, QueueItem, queueItem } from './queue-item';
import { NOTHING, Owner, ReconcileContext, ReconcileResult } from './reconcile-context';
import { reconcile } from './reconciler';
import { ServerRewrites } from './rewrites';
import { holdsOwnFinalizer } from './finalizer';
import { observedOnce } from './status';
import { KindWatches } from './watches';
import { watchKindCollections } from './kind-collections';
import { WatchRestarts } from './watch-restarts';
import { WriteBudget } from './write-budget';
import { isDraining, labelsOf, SHARD_LABEL, shardFieldManager } from './sharding/labels';
import type { Shard } from './sharding/shard';
import type { Sharder } from './sharding/sharder';

/** What a kind server needs of the engine around it. */
export interface KindServerSettings {
  readonly rest: KubeRest;
  readonly objects: ObjectClient;
  /** Serve only these namespaces' objects; all when empty. */
  readonly namespaces: readonly string[];
  /** The parsed values of every kind's options. */
  readonly options: Readonly<Record<string, unknown>>;
  /** This replica's name in Events. */
  readonly identity: string;
  /** Events' reportingController: the operator's. */
  readonly reportingController: string;
  readonly resyncMs: number;
  readonly clock: Clock;
  readonly sharding?: { readonly shard: Shard; readonly sharder: Sharder };
  readonly watchRestarts: WatchRestarts;
  /** Where the server's owners and children queue their reconciles. */
  readonly queue: KindQueue;
  readonly log: Logger;
}

/** The work queue as a kind server sees it. */
export interface KindQueue {
  add(item: QueueItem): void;
  /** Whether a worker reconciles the item right now. */
  busy(item: QueueItem): boolean;
}

/**
 * Everything that serves one kind in one of its groups (as a controller-runtime controller):
 * the caches of its objects (owners) and of the collections it watches, our own writes to
 * owners, which owners this replica serves, and what queues their reconciles. A worker hands it
 * a queue item; it finds the owner and runs the reconcile with a plain-data context.
 */
export class KindServer {
  /** The CRD's name (`plural.group`): what the queue items of this kind name. */
  readonly group: string;
  readonly watches: KindWatches;
  private readonly owners: Informer<Owner>[];
  private readonly written: OwnWrites<Owner>;
  private readonly context: ReconcileContext;
  private readonly log: Logger;

  constructor(
    readonly kind: AnyKind,
    private readonly settings: KindServerSettings,
  ) {
    this.group = crdName(kind);
    this.log = settings.log.child({ kind: kind.kind, ...(isExtraIdentity(kind) ? { group: kind.group } : {}) });
    const { sharding, queue, options, clock } = settings;
    settings.watchRestarts.watching(this.group);
    const namespaces = settings.namespaces.length && kind.scope === 'Namespaced' ? settings.namespaces : [undefined];
    const paths = namespaces.map((namespace) => resourcePath(ownerResource(kind), { namespace }));
    // The owners' caches keep the operator's own status writes from managedFields: what a status write may remove (status-ownership.ts).
    const keepManagedFields = keepsStatusWritesOf(settings.objects.fieldManager);
    this.written = new OwnWrites<Owner>(keepManagedFields);
    this.owners = paths.map((path) => new Informer<Owner>(settings.rest, { path, labelSelector: sharding?.shard.selector, keepManagedFields, onRestart: (why) => settings.watchRestarts.restarted(this.group, why) }, this.log));
    for (const informer of this.owners) informer.on((type, object, previous) => this.ownerChanged(informer, type, object, previous));
    sharding?.sharder.add({ group: this.group, paths, objectPath: (object) => ownerPath(kind, object) });
    const item = (object: { namespace?: string; name: string }) => queueItem(this.group, object);
    this.watches = new KindWatches(
      settings.rest,
      {
        child: (child) => {
          const owner = ownerOf(kind, child);
          if (owner) queue.add(item(owner));
        },
        related: (keys) => {
          for (const owner of keys === 'all' ? this.servedOwners().map((o) => o.metadata) : [...keys].map(objectNameOf)) queue.add(item(owner));
        },
      },
      this.log,
      settings.watchRestarts,
    );
    this.context = {
      kind,
      objects: settings.objects,
      watches: this.watches,
      ownerWrites: this.written,
      observe: kind.controller?.observer?.({ options, caches: observerCaches(kind, this.watches), clock }) as ReconcileContext['observe'],
      options,
      events: new EventRecorder(settings.rest, kind, settings.identity, this.log, settings.reportingController),
      rewrites: new ServerRewrites(),
      budget: new WriteBudget(),
      log: settings.log,
      resyncMs: settings.resyncMs,
      clock,
      shard: sharding?.shard.name,
      ownerFieldManager: sharding && shardFieldManager(settings.objects.fieldManager, sharding.shard.name),
    };
  }

  /** Resolves the collections the kind watches, then starts every watch; returns once they run. */
  async start(): Promise<void> {
    const { objects, namespaces, options, sharding } = this.settings;
    await watchKindCollections(this.kind, this.watches, { objects, namespaces, options, shardSelector: sharding?.shard.selector });
    for (const informer of this.owners) informer.start();
    this.watches.start();
    this.log.info('serving', { children: [...this.watches.children.keys()] });
  }

  /** Sends the Events still waiting, then stops watching. */
  async stop(): Promise<void> {
    await this.context.events.flush();
    for (const informer of this.owners) informer.stop();
    this.watches.stop();
  }

  get hasSynced(): boolean {
    return this.owners.every((informer) => informer.hasSynced) && this.watches.hasSynced;
  }

  /** The cached owners this replica serves, for the per-object metrics and a related collection's change. */
  servedOwners(): Owner[] {
    return this.owners.flatMap((informer) => [...informer.cache.values()]).filter((owner) => this.serves(owner));
  }

  /** Reconciles the item's object, if it exists and this replica serves it; else forgets it. */
  async reconcile(item: QueueItem): Promise<ReconcileResult> {
    const key = cacheKey(item);
    const owner = this.owner(key);
    if (!owner) {
      this.watches.release(key);
      this.context.events.forget(key);
      return NOTHING; // Deleted: the garbage collector removes owned children.
    }
    await this.watches.waitForSync();
    await this.takeOver(owner);
    return reconcile(this.context, owner);
  }

  /** The kind's own filter (KindController.serves). */
  private serves(owner: Owner): boolean {
    return this.kind.controller?.serves?.(owner, this.settings.options) ?? true;
  }

  /** Sharding: an owner asked to drain is no longer served here, even by a reconcile queued before. */
  private draining(owner: Owner): boolean {
    return this.settings.sharding !== undefined && isDraining(owner);
  }

  /** The cached owner of a key (or our newer write of it), if it exists and this replica serves it. */
  private owner(key: string): Owner | undefined {
    const owner = this.written.latest(key, this.cached(key, (o) => this.serves(o)));
    return owner && !this.draining(owner) ? owner : undefined;
  }

  private cached(key: string, accept: (owner: Owner) => boolean = () => true): Owner | undefined {
    return this.owners.map((informer) => informer.cache.get(key)).find((o) => o && accept(o));
  }

  /**
   * Sharding: an owner that moved to this replica gets its children back before it is reconciled
   * here; one that no controller served yet (no status of ours, no finalizer) has none to look for.
   */
  private takeOver(owner: Owner): Promise<void> {
    const shard = this.settings.sharding?.shard;
    if (!shard) return Promise.resolve();
    const labels = childLabels(this.kind, owner);
    const servedBefore = holdsOwnFinalizer(this.kind, owner) || observedOnce(owner);
    return shard.adopt(itemKey(this.itemOf(owner)), owner, labels, this.watches.childCollections, servedBefore && this.watches.childrenLabelled(labels).length === 0);
  }

  private itemOf(owner: Owner): QueueItem {
    return queueItem(this.group, owner.metadata);
  }

  private ownerChanged(informer: Informer<Owner>, type: ChangeType, object: Owner, previous?: Owner): void {
    this.written.seen(object);
    const item = this.itemOf(object);
    const shard = this.settings.sharding?.shard;
    if (shard && type === 'deleted') shard.forget(itemKey(item));
    if (type !== 'deleted' && this.draining(object)) {
      // Not queued again; a reconcile under way finishes first, then the object is let go.
      const stillHere = () => labelsOf(this.cached(objectKey(object)) ?? { metadata: { name: '' } })[SHARD_LABEL] === shard!.name;
      shard!.drain(itemKey(item), ownerPath(this.kind, object), () => this.settings.queue.busy(item), stillHere);
      return;
    }
    if (!this.serves(object)) return;
    // An owner that moved here while this replica runs: its takeover starts now, not when a worker
    // reaches it, so that all the owners moving at once share one look at the other shards' children.
    if (shard && type === 'added' && informer.hasSynced) this.takeOver(object).catch(() => undefined);
    if (type !== 'updated' || needsReconcile(object, previous)) this.settings.queue.add(item);
  }
}

/** Our own status writes change no generation; only a change someone else made is worth a reconcile. */
function needsReconcile(object: Owner, previous?: Owner): boolean {
  if (!previous) return true;
  const meta = (o: Owner) => JSON.stringify([o.metadata.generation, o.metadata.deletionTimestamp, o.metadata.finalizers, o.metadata.labels, o.metadata.annotations]);
  return meta(object) !== meta(previous);
}

/** The kind's resource in the version the controller reads. */
const ownerResource = (kind: AnyKind) => ({ groupVersion: apiVersionOf(kind), resource: kind.plural });

/** The API path of an owner object. */
function ownerPath(kind: AnyKind, object: Pick<Owner, 'metadata'>): string {
  return resourcePath(ownerResource(kind), object.metadata);
}
