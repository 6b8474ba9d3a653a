import { isChildCollection } from '../core/child-policy';
import { whyNotNamespaced } from '../core/namespaced';
import { crdName, isExtraIdentity, servedIdentities } from '../core/groups';
import { SYSTEM_CLOCK } from '../core/clock';
import { AnyKind, apiVersionOf, Clock, CustomResource } from '../core/kind';
import { CHILD_MANAGER, MANAGED_BY_LABEL, OWNER_KIND_LABEL, OWNER_NAME_LABEL, OWNER_NAMESPACE_LABEL, ownerKindLabel, labelValue } from '../core/names';
import { OperatorNames } from '../core/identity';
import { optedIn } from '../core/secret-copy';
import { CRDS_PATH } from '../kube/discovery';
import { resourcePath } from '../kube/paths';
import { KubeObject, ObjectClient, objectKey } from '../kube/objects';
import { isNotFound, KubeRest } from '../kube/rest';
import { EventRecorder } from './events';
import { Informer, WATCH_RESTARTS } from './informer';
import { KindWatches, WatchRestarts } from './watches';
import { Logger } from './log';
import { controllerName, EngineMetrics, ReconcileResult } from './engine-metrics';
import { Metrics } from './metrics';
import { ObjectMetrics } from './object-metrics';
import { OwnWrites } from './own-writes';
import { WorkQueue } from './queue';
import { reconcile, ReconcileContext, takeOver } from './reconciler';
import { ServerRewrites } from './rewrites';
import { WriteBudget } from './write-budget';
import { isDraining, labelsOf, SHARD_LABEL } from './sharding/labels';
import type { Shard } from './sharding/shard';
import type { Sharder } from './sharding/sharder';

export interface ControllerSettings {
  /** Whose controller: its field manager and Events' reportingController are the operator's. */
  readonly operator: OperatorNames;
  readonly kinds: readonly AnyKind[];
  /** Serve only these namespaces' objects; all when empty. */
  readonly namespaces: readonly string[];
  readonly workers: number;
  readonly resyncMs: number;
  /** The parsed values of every kind's options. */
  readonly kindOptions: Readonly<Record<string, unknown>>;
  /** This replica's name in Events and logs. */
  readonly identity: string;
  /** Extra groups of the kinds not to serve, by CRD name (`<plural>.<group>`); none by default. */
  readonly withoutExtraGroups?: readonly string[];
  /** Sharding: this replica serves only the objects labelled for its shard; the sharder (run by the leader) labels them. */
  readonly sharding?: { readonly shard: Shard; readonly sharder: Sharder };
  /** What time it is, for the kinds' hooks; the real time by default (a test sets another). */
  readonly clock?: Clock;
  /** False when this replica may no longer start a reconcile (its shard membership lapsed): queued work then waits for the exit. */
  readonly mayWork?: () => boolean;
}

type Owner = CustomResource;

/**
 * The generic engine: for each kind in each of its groups (see servedIdentities), once that
 * group's CRD is established, a cache of its objects and of the children it manages; every
 * change queues the owner, by a key that names the group; workers reconcile one key at a time.
 */
export class Controller {
  private readonly queue: WorkQueue;
  private readonly contexts = new Map<string, ReconcileContext>();
  private readonly informers: Array<Pick<Informer, 'hasSynced' | 'start' | 'stop'>> = [];
  private readonly objects: ObjectClient;
  private stopping = false;
  private readonly running: Promise<void>[] = [];
  private readonly metrics: EngineMetrics;
  /** Each served kind's objects, by `plural.group`, for the per-object series read at each scrape. */
  private readonly served = new Map<string, () => Owner[]>();

  constructor(
    private readonly rest: KubeRest,
    private readonly settings: ControllerSettings,
    private readonly log: Logger,
    registry: Metrics,
  ) {
    this.objects = new ObjectClient(rest, settings.operator.fieldManager);
    this.metrics = new EngineMetrics(registry, settings.kinds, settings.workers);
    // A key is `plural.group|namespace/name`, in whichever group of its kind: its controller is its kind's.
    const identitiesOf = (kind: AnyKind) => servedIdentities(kind, settings.withoutExtraGroups);
    const controllers = new Map(settings.kinds.flatMap(identitiesOf).map((identity) => [crdName(identity), controllerName(identity)]));
    const controllerOf = (key: string) => controllers.get(key.slice(0, key.indexOf('|')));
    this.queue = new WorkQueue(undefined, this.metrics.queueHooks(controllerOf));
    new ObjectMetrics(registry, settings.kinds, (kind) => identitiesOf(kind).flatMap((identity) => this.served.get(crdName(identity))?.() ?? []));
    const restarts = registry.counter(registry.named('watch_restarts_total'), 'Watches started over other than by the server\u2019s routine timeout, by collection and why (expired, error, silent).', ['resource', 'reason']);
    this.watchRestarts = {
      // Every reason at 0 from the start, so that increase() sees the first restart.
      watching: (resource) => WATCH_RESTARTS.forEach((reason) => restarts.inc({ resource, reason }, 0)),
      restarted: (resource, why) => restarts.inc({ resource, reason: why }),
    };
    registry.onCollect(() => {
      this.metrics.collectQueue(this.queue, [...new Set(controllers.values())], controllerOf);
    });
  }

  private readonly watchRestarts: WatchRestarts;

  /** How many objects this replica serves (those in its caches), for the shard's metrics. */
  servedObjects(): number {
    let count = 0;
    for (const owners of this.served.values()) count += owners().length;
    return count;
  }

  /** Whether every kind whose CRD exists has a filled cache. */
  get synced(): boolean {
    return this.informers.every((i) => i.hasSynced);
  }

  /** Starts every kind in each of its groups (each as soon as its CRD is established) and the workers; returns at once. */
  start(): void {
    for (const kind of this.settings.kinds) {
      for (const identity of servedIdentities(kind, this.settings.withoutExtraGroups)) this.running.push(this.startKindUntilItWorks(identity));
    }
    for (let i = 0; i < this.settings.workers; i++) this.running.push(this.work());
  }

  /** Finishes the reconciles under way, then stops watching. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.queue.shutDown();
    await Promise.allSettled(this.running);
    await Promise.all([...this.contexts.values()].map((ctx) => ctx.events.flush()));
    for (const informer of this.informers) informer.stop();
  }

  /** Starting needs the API server (discovery); if it is unreachable, try again rather than die. */
  private async startKindUntilItWorks(kind: AnyKind): Promise<void> {
    for (let attempt = 0; !this.stopping; attempt++) {
      try {
        return await this.startKind(kind);
      } catch (err) {
        const delay = Math.min(30_000, 1000 * 2 ** attempt);
        this.log.warn('could not start serving the kind; retrying', { kind: kind.kind, crd: crdName(kind), retryInMs: delay, error: err as Error });
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  }

  private async startKind(kind: AnyKind): Promise<void> {
    const log = this.log.child({ kind: kind.kind, ...(isExtraIdentity(kind) ? { group: kind.group } : {}) });
    if (!(await this.waitForCrd(kind, log))) return;
    // Queue keys start with the CRD's name, so that same-named objects in two groups of a kind are two keys.
    const group = crdName(kind);
    const options = this.settings.kindOptions;
    const serves = (owner: Owner) => kind.controller?.serves?.(owner, options) ?? true;
    const namespaces = this.settings.namespaces.length && kind.scope === 'Namespaced' ? this.settings.namespaces : [undefined];
    this.watchRestarts.watching(group);
    const sharding = this.settings.sharding;
    const paths = namespaces.map((namespace) => resourcePath(ownerResource(kind), { namespace }));
    const owners = paths.map((path) => new Informer<Owner>(this.rest, { path, labelSelector: sharding?.shard.selector, onRestart: (why) => this.watchRestarts.restarted(group, why) }, log));
    const written = new OwnWrites<Owner>();
    const cached = (key: string) => owners.map((informer) => informer.cache.get(key)).find((o) => o);
    for (const informer of owners) {
      informer.on((type, object, previous) => {
        written.seen(object);
        const item = `${group}|${objectKey(object)}`;
        if (sharding && type === 'deleted') sharding.shard.forget(item);
        if (sharding && type !== 'deleted' && isDraining(object)) {
          // Not queued again; a reconcile under way finishes first, then the object is let go.
          const stillHere = () => labelsOf(cached(objectKey(object)) ?? { metadata: { name: '' } })[SHARD_LABEL] === sharding.shard.name;
          sharding.shard.drain(item, ownerPath(kind, object), () => this.queue.inProcess().has(item), stillHere);
          return;
        }
        // An owner that moved here while this replica runs: its takeover starts now, not when a worker
        // reaches it, so that all the owners moving at once share one look at the other shards' children.
        const ctx = sharding && type === 'added' && informer.hasSynced && serves(object) ? this.contexts.get(group) : undefined;
        if (ctx) takeOver(ctx, objectKey(object), object).catch(() => undefined);
        if (serves(object) && (type !== 'updated' || needsReconcile(object, previous))) this.queue.add(item);
      });
    }
    sharding?.sharder.add({ group, paths, objectPath: (object) => ownerPath(kind, object) });
    const allOwners = () => owners.flatMap((informer) => [...informer.cache.values()]).filter(serves);
    this.served.set(group, allOwners);
    const watches = new KindWatches(
      this.rest,
      {
        child: (child) => {
          const owner = ownerKeyOf(kind, child);
          if (owner) this.queue.add(`${group}|${owner}`);
        },
        related: (keys) => {
          for (const key of keys === 'all' ? allOwners().map(objectKey) : keys) this.queue.add(`${group}|${key}`);
        },
      },
      log,
      this.watchRestarts,
    );
    await this.watchCollections(kind, watches);
    const clock = this.settings.clock ?? SYSTEM_CLOCK;
    const ctx: ReconcileContext = {
      kind,
      objects: this.objects,
      // An object asked to drain is no longer served here, even by a reconcile queued before.
      owner: (key) => {
        const owner = written.latest(key, owners.map((informer) => informer.cache.get(key)).find((o) => o && serves(o)));
        return owner && sharding && isDraining(owner) ? undefined : owner;
      },
      shard: sharding?.shard.name,
      adopt: sharding && ((key, owner, labels, servedBefore) => sharding.shard.adopt(`${group}|${key}`, owner, labels, watches.childCollections, servedBefore && watches.childrenOf(labels).length === 0)),
      wrote: (base, result) => written.record(base, result),
      watches,
      observe: kind.controller?.observer?.({ options, caches: watches, clock }) as ReconcileContext['observe'],
      options,
      events: new EventRecorder(this.rest, kind, this.settings.identity, log, this.settings.operator.reportingController),
      rewrites: new ServerRewrites(),
      budget: new WriteBudget(),
      log: this.log,
      resyncMs: this.settings.resyncMs,
      clock,
    };
    this.contexts.set(group, ctx);
    for (const informer of owners) {
      this.informers.push(informer);
      informer.start();
    }
    this.informers.push(watches);
    watches.start();
    log.info('serving', { children: [...watches.children.keys()] });
  }

  /** The CRD is installed by GitOps, maybe after the controller starts: wait for it, saying why. */
  private async waitForCrd(kind: AnyKind, log: Logger): Promise<boolean> {
    const name = crdName(kind);
    let waited = 0;
    while (!this.stopping) {
      try {
        const crd = await this.rest.request<{ status?: { conditions?: { type: string; status: string }[] } }>('GET', `${CRDS_PATH}/${name}`);
        if (crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')) return true;
        if (waited % 30 === 0) log.info('waiting for the CRD to become established', { crd: name });
      } catch (err) {
        if (waited % 30 === 0) log.info(isNotFound(err) ? 'waiting for the CRD to be installed' : 'cannot read the CRD yet', { crd: name, error: isNotFound(err) ? undefined : (err as Error) });
      }
      await new Promise((resolve) => setTimeout(resolve, 1000));
      waited++;
    }
    return false;
  }

  /**
   * The kind's children (label-selected, where it may list and watch them) and the collections it
   * reads: for a kind that can be served so, in the namespaces served only (--namespace), each
   * watched on its own, so that Roles there are all the controller needs; else everywhere.
   */
  private async watchCollections(kind: AnyKind, watches: KindWatches): Promise<void> {
    const served = whyNotNamespaced(kind) ? [] : this.settings.namespaces;
    const shard = this.settings.sharding?.shard;
    const selector = `${MANAGED_BY_LABEL}=${CHILD_MANAGER},${OWNER_KIND_LABEL}=${labelValue(ownerKindLabel(kind))}${shard ? `,${shard.selector}` : ''}`;
    for (const permission of kind.manages) {
      if (!isChildCollection(permission) || !optedIn(permission.optIn, this.settings.kindOptions)) continue;
      for (const name of permission.resources) {
        const collection = await this.objects.discovery.resolve(permission.apiGroup, name);
        if (collection?.namespaced) watches.addChildren(collection, selector, permission.namespace ? [permission.namespace] : served);
      }
    }
    for (const watch of kind.controller?.watches ?? []) {
      if (!optedIn(watch.optIn, this.settings.kindOptions)) continue;
      const collection = await this.objects.discovery.resolve(watch.apiGroup, watch.resource);
      if (!collection) throw new Error(`the API server does not serve ${watch.resource} in group "${watch.apiGroup}", which ${kind.kind} watches`);
      if (watch.queries) watches.addQueried(collection, watch.metadataOnly);
      else watches.addWhole(collection, watch.metadataOnly, served);
    }
  }

  private async work(): Promise<void> {
    for (;;) {
      const item = await this.queue.next();
      if (item === undefined) return;
      if (this.settings.mayWork && !this.settings.mayWork()) {
        this.queue.done(item);
        continue;
      }
      const [group, key] = item.split('|');
      const ctx = this.contexts.get(group)!;
      const started = process.hrtime.bigint();
      let outcome: ReconcileResult = 'error';
      let writes = {};
      this.metrics.working(ctx.kind, 1);
      try {
        const result = await reconcile(ctx, key);
        // As controller-runtime counts: a retry with backoff is a requeue; a kind's own wake (or a hold) sooner than the resync a requeue_after.
        outcome = result.retry ? 'requeue' : result.requeueAfterMs !== undefined && result.requeuePriority !== 'low' ? 'requeue_after' : 'success';
        writes = result;
        if (result.retry) this.queue.addWithBackoff(item);
        else {
          this.queue.forget(item);
          // The resync's look waits behind events; a kind's own wake (or a hold) does not. 0 is at once.
          if (result.requeueAfterMs !== undefined) this.queue.addAfter(item, result.requeueAfterMs, result.requeuePriority ?? 'normal');
        }
      } catch (err) {
        const delay = this.queue.addWithBackoff(item);
        this.log.error('reconcile failed; retrying', { kind: ctx.kind.kind, object: key, retryInMs: delay, error: err as Error });
      } finally {
        this.metrics.working(ctx.kind, -1);
        this.metrics.reconciled(ctx.kind, outcome, Number(process.hrtime.bigint() - started) / 1e9, writes);
        this.queue.done(item);
      }
    }
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

/** The owner of a child: its controller reference (of this group), or (across namespaces, where there is none) its labels. */
function ownerKeyOf(kind: AnyKind, child: KubeObject): string | undefined {
  const refs = (child.metadata.ownerReferences ?? []) as { apiVersion: string; kind: string; name: string; controller?: boolean }[];
  const ref = refs.find((r) => r.controller && r.kind === kind.kind && r.apiVersion.split('/')[0] === kind.group);
  if (ref) return kind.scope === 'Namespaced' ? `${child.metadata.namespace}/${ref.name}` : ref.name;
  const labels = (child.metadata.labels ?? {}) as Record<string, string>;
  const name = labels[OWNER_NAME_LABEL];
  if (!name) return undefined;
  return kind.scope === 'Namespaced' ? `${labels[OWNER_NAMESPACE_LABEL]}/${name}` : name;
}
