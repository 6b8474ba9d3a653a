import { AnyKind, ChildState, Clock, CustomResource, KubeJson, ObservationError, ReadyVerdict, ReconcileOutcome, validateResource } from '../core/kind';
import { adoptsExisting, createdOnly } from '../core/child-policy';
import { isExtraIdentity } from '../core/groups';
import { childLabels } from '../core/names';
import { keptUntilRelease, withOwner } from '../core/ownership';
import { renderChildren } from '../core/render';
import { optedIn } from '../core/secret-copy';
import { applyOverCreate, createIfAbsent } from '../kube/create-then-apply';
import { KubeObject, ObjectClient, objectKey } from '../kube/objects';
import { isNotFound, KubeError } from '../kube/rest';
import { formatFieldErrors } from '../schema';
import { EventRecorder } from './events';
import { Logger } from './log';
import { mapLimited } from './limit';
import { matches } from './matches';
import { childId, claims, describeChild, ownedBy, prunable } from './ownership';
import { childState } from './readiness';
import { describeChanges, fieldChanges, ServerRewrites } from './rewrites';
import { WriteBudget } from './write-budget';
import { observedOnce, statusPatch, verdictConditions } from './status';
import { KindWatches } from './watches';
import { withShard } from './sharding/labels';
import { rememberIfSecret } from './secret-values';
import { nextLook, wakeAtOf } from './wake';

/** The field manager of a sharded replica's own writes to an owner (status, finalizers), so a write can be told apart by replica: the operator's, per shard. */
export function shardFieldManager(fieldManager: string, shard: string): string {
  return `${fieldManager}-shard-${shard}`;
}

type Owner = CustomResource;

/** Everything one kind's reconcile needs; the runtime builds one per kind. */
export interface ReconcileContext {
  readonly kind: AnyKind;
  readonly objects: ObjectClient;
  /** The cached object of a key (or our newer write of it), if it exists and this controller serves it. */
  readonly owner: (key: string) => Owner | undefined;
  /** Told what the API server answered to a write of ours to an owner, so the next reconcile reads it. */
  readonly wrote?: (base: Owner, result: Owner) => void;
  /** The kind's children and the collections it reads. */
  readonly watches: KindWatches;
  readonly observe?: (resource: CustomResource) => Promise<unknown>;
  /** The parsed values of every kind's options (e.g. whether Secrets may be managed). */
  readonly options: Readonly<Record<string, unknown>>;
  readonly events: EventRecorder;
  /** What the API server made of renders it does not store as written (see ServerRewrites). */
  readonly rewrites: ServerRewrites;
  /** How often one child may be written (see WriteBudget). */
  readonly budget: WriteBudget;
  readonly log: Logger;
  /** Reconcile everything again after this long, even when nothing changed. */
  readonly resyncMs: number;
  /** What time it is, for the kind's hooks (see Clock). */
  readonly clock: Clock;
  /** Sharding: this replica's shard, which every child it applies is labelled with (and its status writes' field manager names). */
  readonly shard?: string;
  /**
   * Sharding: before an owner's first reconcile here, takes over its children from the shard that
   * served it before; `servedBefore` false (no status of ours, no finalizer) says none did.
   */
  readonly adopt?: (key: string, owner: Owner, ownerLabels: Record<string, string>, servedBefore: boolean) => Promise<void>;
}

/** What a reconcile did, for metrics and the queue. */
export interface ReconcileResult {
  /** Queue the key again after this many milliseconds (0: at once). */
  readonly requeueAfterMs?: number;
  /** How the look after `requeueAfterMs` waits: `low`, the resync's, behind every event. */
  readonly requeuePriority?: 'normal' | 'low';
  /** Retry with backoff (a transient failure, or a conflict someone else must clear). */
  readonly retry?: boolean;
  readonly applied: number;
  readonly pruned: number;
}

const NOTHING: ReconcileResult = { applied: 0, pruned: 0 };
/** One owner may have thousands of children (a rule's copies): write them this many at a time. */
const CHILD_WRITES_IN_FLIGHT = 16;
/** How often the release tries to drop the finalizer of an object others keep changing. */
const FINALIZER_ATTEMPTS = 5;

const holdsOwnFinalizer = (kind: AnyKind, resource: Owner) => kind.finalizer !== undefined && resource.metadata.finalizers?.includes(kind.finalizer) === true;

/**
 * Sharding: an owner that moved to this replica gets its children back before it is reconciled
 * here (see ReconcileContext.adopt); one that no controller served yet has none to look for.
 */
export function takeOver(ctx: ReconcileContext, key: string, resource: Owner): Promise<void> {
  return ctx.adopt?.(key, resource, childLabels(ctx.kind, resource), holdsOwnFinalizer(ctx.kind, resource) || observedOnce(resource)) ?? Promise.resolve();
}

/** Reconciles the object `key` (`namespace/name`, or `name` for cluster-scoped kinds) of `ctx.kind`. */
export async function reconcile(ctx: ReconcileContext, key: string): Promise<ReconcileResult> {
  const { kind } = ctx;
  let resource = ctx.owner(key);
  if (!resource) {
    ctx.watches.release(key);
    ctx.events.forget(key);
    return NOTHING; // Deleted: the garbage collector removes owned children.
  }
  const log = ctx.log.child({ kind: kind.kind, ...(isExtraIdentity(kind) ? { group: kind.group } : {}), namespace: resource.metadata.namespace, name: resource.metadata.name });
  await ctx.watches.waitForSync();
  await takeOver(ctx, key, resource);

  const deleting = resource.metadata.deletionTimestamp !== undefined;
  const holdsFinalizer = holdsOwnFinalizer(kind, resource);
  if (deleting && !holdsFinalizer) return NOTHING;
  if (deleting && !kind.controller?.mayRelease) {
    const validation = validateResource(kind, resource as unknown as Record<string, unknown>);
    if (validation.ok) recordKindEvents(ctx, resource, { ...resource, spec: validation.spec }, undefined, undefined);
    return release(ctx, resource, log);
  }
  // Go on with what the API server answered, so that the status write below is known to come after it.
  if (!deleting && kind.finalizer && !holdsFinalizer) resource = await setFinalizers(ctx, resource, [...(resource.metadata.finalizers ?? []), kind.finalizer]);

  const validation = validateResource(kind, resource as unknown as Record<string, unknown>);
  if (!validation.ok) {
    // An invalid object being deleted cannot be rendered: let it go rather than hold it forever.
    if (deleting) return release(ctx, resource, log);
    const message = formatFieldErrors(validation.errors);
    log.warn('invalid spec', { errors: message });
    await setStatus(ctx, resource, { status: 'False', reason: 'InvalidSpec', message }, {});
    return NOTHING; // Nothing to retry: a change to the object queues it again.
  }
  const valid = { ...resource, spec: validation.spec };

  let observation: unknown;
  // Any child read meanwhile (this observation's or, in parallel, another's) keeps the echoes of our writes as news.
  const childReadsBefore = ctx.watches.childReads;
  try {
    await ctx.watches.ensure(key, relatedQueries(ctx, valid));
    observation = ctx.observe ? await ctx.observe(valid) : undefined;
  } catch (err) {
    const reason = err instanceof ObservationError ? err.reason : 'ObservationFailed';
    const retry = !(err instanceof ObservationError) || err.retry;
    log.warn('observation failed; children left as they are', { reason, error: err as Error });
    await setStatus(ctx, resource, { status: 'False', reason, message: (err as Error).message }, {});
    return { ...NOTHING, retry };
  }

  const desired = renderChildren(kind, valid, observation, ctx.clock).map((child) => shardLabelled(ctx, withOwner(child as KubeObject, resource, kind)));
  // The values of the Secrets we write are the log's to redact wherever they appear.
  desired.forEach(rememberIfSecret);
  const echoIsNews = ctx.watches.childReads !== childReadsBefore;
  const { outcome, applied, heldMs, outdated } = await serve(ctx, resource, desired, log, echoIsNews);
  if (outdated) {
    // Nothing more from this render: the next reconcile reads the owner as it is now.
    log.info('a child of ours is gone and the cached owner is out of date: reading it again', { deleting: outdated.fresh?.metadata.deletionTimestamp !== undefined, gone: !outdated.fresh });
    if (outdated.fresh) ctx.wrote?.(resource, outdated.fresh);
    return { ...NOTHING, retry: outdated.fresh !== undefined };
  }
  // Until the release, a child kept for the last step stays even when no longer rendered (e.g. a
  // Database's standby scaled away as it is deleted: its data waits for the final snapshot).
  const spared = deleting ? (child: KubeObject) => keptUntilRelease(kind, child) : undefined;
  const pruned = await prune(ctx, resource, new Set(desired.map(childId)), log, spared);
  if (applied || pruned) log.info('children reconciled', { applied, pruned });
  if (outcome.conflicts.length) log.warn('left alone objects this resource does not manage', { conflicts: outcome.conflicts });

  const kindStatus = kind.controller?.status?.(valid, observation, outcome) ?? {};
  recordKindEvents(ctx, resource, valid, observation, outcome);
  // A conflict is the engine's to report, whatever the kind knows: a kind's verdict is asked only without one.
  const kindVerdict = outcome.conflicts.length ? undefined : kind.controller?.ready?.(valid, observation, outcome);
  if (deleting) {
    const verdict = kind.controller!.mayRelease!(valid, observation, outcome);
    // Kept children the engine does not watch (e.g. create-only ones) are only known from this render.
    if (verdict === true) return release(ctx, resource, log, outcome.served.filter((child) => keptUntilRelease(kind, child)));
    const waiting = kindVerdict ?? { status: 'False', reason: 'Finalizing', message: `deleting: waiting for ${verdict}` };
    await setStatus(ctx, resource, waiting, kindStatus);
    return { applied, pruned };
  }
  const ready = kindVerdict ?? engineVerdict(kind, outcome);
  await setStatus(ctx, resource, ready, kindStatus);
  if (outcome.conflicts.length) return { retry: true, applied, pruned };
  const next = nextLook(wakeAtOf(kind.controller, valid, observation, ctx.clock), ctx.clock.now().getTime(), ctx.resyncMs, heldMs);
  return { requeueAfterMs: next.afterMs, requeuePriority: next.priority, applied, pruned };
}

/** The parts of related collections this resource reads, for the shared watches. */
function relatedQueries(ctx: ReconcileContext, resource: CustomResource) {
  return (ctx.kind.controller?.watches ?? [])
    .filter((watch) => watch.queries && optedIn(watch.optIn, ctx.options))
    .flatMap((watch) => watch.queries!(resource, ctx.options).map((query) => ({ collection: watch, query })));
}

/**
 * Applies each rendered child that differs from what is live, except where an object of that
 * name exists that this owner does not manage: that one is left alone and named as a conflict.
 * A child marked adopt-existing is only written over an object made for this owner (see
 * ADOPT_EXISTING_ANNOTATION), and skipped when there is none.
 * A child the API server stores differently from its render is applied once per render, and
 * the fields it changed are told in a Warning (see ServerRewrites); a child written too often
 * waits (see WriteBudget).
 */
async function serve(ctx: ReconcileContext, owner: Owner, desired: KubeObject[], log: Logger, echoIsNews: boolean): Promise<Served> {
  const labels = childLabels(ctx.kind, owner);
  let outdatedOwner: Promise<OutdatedOwner | undefined> | undefined;
  const results = await mapLimited(desired, CHILD_WRITES_IN_FLIGHT, async (child): Promise<ChildResult> => {
    const id = childId(child);
    // The cache of its collection, where it is watched; else (not watched, or not ours, or just
    // created) the API server: nothing we do not manage is applied over.
    const watched = ctx.watches.informerOf(child);
    const cached = watched?.cache.get(objectKey(child)) as KubeJson | undefined;
    const created = watched && !cached ? await createFirst(ctx, child, echoIsNews) : undefined;
    if (created) return { served: createdOnly(child) ? created : noteRewrites(ctx, owner, child, created, log), applied: true };
    const live = cached ?? (await ctx.objects.find<KubeJson>(child));
    if (adoptsExisting(child) && !live) return {};
    const adopted = adoptsExisting(child) && live && ownedBy(owner.metadata.uid, live);
    if (live && !claims(labels, live) && !adopted) return { conflict: ctx.kind.controller?.describeConflict?.(owner, child, ctx.options) ?? describeChild(child) };
    if (live && (createdOnly(child) || matches(child, live) || ctx.rewrites.settled(id, child, live))) return { served: live };
    // Ours, written lately, and gone: whoever removed it (a garbage collector finishing the
    // owner's deletion) may know of the owner what the cache does not yet. Ask, once per reconcile.
    if (!live && ctx.budget.wroteRecently(id)) {
      const outdated = await (outdatedOwner ??= outdatedCache(ctx, owner));
      if (outdated) return { outdated };
    }
    const heldMs = ctx.budget.waitMs(id);
    if (heldMs > 0) return held(ctx, owner, child, live, log, heldMs);
    ctx.budget.spend(id);
    if (!live && createdOnly(child)) return { served: await ctx.watches.write(child, () => ctx.objects.create<KubeJson>(child), { echoIsNews }), applied: true };
    // An adopted child the cache still holds after someone deleted it must not be made anew:
    // its apply names the uid, and finds nothing (undefined) once it is gone.
    const send = adopted ? () => ctx.objects.applyToExisting<KubeJson>(child, live.metadata.uid!) : () => applyOverCreate<KubeJson>(ctx.objects, child);
    const result = await ctx.watches.write(child, send, { echoIsNews });
    return result ? { served: noteRewrites(ctx, owner, child, result, log), applied: true } : {};
  });
  const outdated = results.find((r) => r.outdated)?.outdated;
  if (outdated) return { outdated };
  const served = results.flatMap((r) => (r.served ? [r.served] : []));
  const conflicts = results.flatMap((r) => (r.conflict ? [r.conflict] : []));
  const missing = results.flatMap((r) => (r.missing ? [r.missing] : []));
  const heldFor = results.flatMap((r) => (r.heldMs ? [r.heldMs] : []));
  return {
    outcome: { served, conflicts, children: [...served.map(childState), ...missing] },
    applied: results.filter((r) => r.applied).length,
    heldMs: heldFor.length ? Math.min(...heldFor) : undefined,
  };
}

/** Remembers what the API server made of a child it stored differently from its render, and says so once per render. */
function noteRewrites(ctx: ReconcileContext, owner: Owner, child: KubeObject, result: KubeJson, log: Logger): KubeJson {
  const changes = ctx.rewrites.applied(childId(child), child, result);
  if (changes) {
    // The kind's author can render what the server stores instead.
    // A Secret's values are told to no one: its Event names the fields only.
    const message = `the API server stored ${describeChild(child)} differently from its render: ${describeChanges(changes, child.kind !== 'Secret')}; it is not applied again until the render changes`;
    log.warn('the API server rewrote a rendered child', { child: describeChild(child), fields: changes.map((c) => c.path) });
    ctx.events.record(owner, 'Warning', 'RenderRewritten', message);
  }
  return result;
}

interface ChildResult {
  readonly served?: KubeJson;
  readonly conflict?: string;
  readonly applied?: boolean;
  /** Held back by the write budget: for this long. */
  readonly heldMs?: number;
  /** A child held back while it does not exist: not ready, and why. */
  readonly missing?: ChildState;
  readonly outdated?: OutdatedOwner;
}

type Served = { outcome: ReconcileOutcome; applied: number; heldMs?: number; outdated?: undefined } | { outdated: OutdatedOwner; outcome?: undefined; applied?: undefined; heldMs?: undefined };

/** The owner as the API server has it when the cache is out of date: `fresh` is absent when it is gone (or another object took its name). */
interface OutdatedOwner {
  readonly fresh?: Owner;
}

/** Undefined while the cached owner still holds: the same object, deleted or not alike. */
async function outdatedCache(ctx: ReconcileContext, owner: Owner): Promise<OutdatedOwner | undefined> {
  const fresh = await ctx.objects.find<Owner>(owner);
  if (!fresh || fresh.metadata.uid !== owner.metadata.uid) return {};
  const deleting = (o: Owner) => o.metadata.deletionTimestamp !== undefined;
  return deleting(fresh) === deleting(owner) ? undefined : { fresh };
}

/** A child the budget holds back: it stays as it is (or missing), and the kind's author is told why, once per set of fields. */
function held(ctx: ReconcileContext, owner: Owner, child: KubeObject, live: KubeJson | undefined, log: Logger, heldMs: number): ChildResult {
  const written = `${describeChild(child)} was written ${ctx.budget.limit} times within ${ctx.budget.windowMs / 1000} s`;
  if (live) {
    warnHeld(ctx, owner, child, live, log, written);
    return { served: live, heldMs };
  }
  const message = `${written} and is gone again: it is made again in ${Math.ceil(heldMs / 1000)} s; something removes it as soon as it exists, or the render flips between having it and not`;
  if (ctx.events.recordOnce(owner, 'Warning', 'ChildWritesHeld', message)) log.warn('held back re-creating a child that keeps disappearing', { child: describeChild(child) });
  const state = childState(child as KubeJson);
  return { missing: { child: state.child, kind: state.kind, name: state.name, ...(state.namespace ? { namespace: state.namespace } : {}), ready: false, message: `missing: ${message}` }, heldMs };
}

/** A child held back by its write budget: tell the kind's author which fields keep changing, once per set of fields. */
function warnHeld(ctx: ReconcileContext, owner: Owner, child: KubeObject, live: KubeJson, log: Logger, written: string): void {
  const fields = fieldChanges(child, live).map((c) => c.path);
  const message = `${written} and its render still differs at ${fields.join(', ')}: further writes wait; a render must give the same child for the same object (no timestamps, counters or random values)`;
  if (ctx.events.recordOnce(owner, 'Warning', 'ChildWritesHeld', message)) log.warn('held back writes to a child that changes on every render', { child: describeChild(child), fields });
}

/**
 * Sharding: a child is labelled with this replica's shard where a shard's watch selects on
 * that label, i.e. in the collections watched (the next shard relabels those when the owner
 * moves). A child of a collection read by name only (a create-only Secret) carries none: it
 * is never written again, so the label would go on naming the shard it was created by.
 */
function shardLabelled(ctx: ReconcileContext, child: KubeObject): KubeObject {
  return ctx.watches.informerOf(child) ? withShard(child, ctx.shard) : child;
}

/**
 * A child missing from its watched collection's cache most often does not exist yet: it is
 * POSTed, one request where a read and then an apply would be two (at 100,000 new objects,
 * 100,000 reads fewer for the API server). An object of that name that is not in the cache (not
 * ours, or ours but not delivered yet) makes the POST fail and is left as it is: undefined, and
 * serve goes on as for any child, reading it first. Not tried for a child written lately (it may
 * have been removed since, see serve), nor for one only ever adopted.
 */
async function createFirst(ctx: ReconcileContext, child: KubeObject, echoIsNews: boolean): Promise<KubeJson | undefined> {
  const id = childId(child);
  if (adoptsExisting(child) || ctx.budget.wroteRecently(id)) return undefined;
  const created = await ctx.watches.write(child, () => createIfAbsent<KubeJson>(ctx.objects, child), { echoIsNews });
  if (created) ctx.budget.spend(id);
  return created;
}

/** The kind's own Events about the resource, each recorded once per object. */
function recordKindEvents(ctx: ReconcileContext, resource: Owner, valid: CustomResource, observation: unknown, outcome: ReconcileOutcome | undefined): void {
  for (const event of ctx.kind.controller?.events?.(valid, observation, outcome) ?? []) ctx.events.recordOnce(resource, event.type, event.reason, event.message);
}

/** Conflicts first, then a failed child, then children not ready yet; else Ready. */
function engineVerdict(kind: AnyKind, outcome: ReconcileOutcome): ReadyVerdict {
  if (outcome.conflicts.length) {
    return { status: 'False', reason: 'Conflict', message: `left alone ${listed(outcome.conflicts)}: they exist and ${kind.kind} does not manage them` };
  }
  const failed = outcome.children.find((c) => c.failed);
  if (failed) return { status: 'False', reason: 'ChildFailed', message: `${failed.child} ${failed.message}` };
  const waiting = outcome.children.filter((c) => !c.ready);
  if (waiting.length) {
    return { status: 'False', reason: 'ChildNotReady', message: `${waiting[0].child}: ${waiting[0].message}${waiting.length > 1 ? `; ${waiting.length - 1} more children not ready` : ''}` };
  }
  const n = outcome.served.length;
  return { status: 'True', reason: kind.controller?.readyReason ?? 'Reconciled', message: n === 1 ? '1 child ready' : `${n} children ready` };
}

function listed(items: readonly string[], max = 10): string {
  return items.length <= max ? items.join(', ') : `${items.slice(0, max).join(', ')} and ${items.length - max} more`;
}

/** Deletes the children this owner's labels claim that the render no longer produced (never one kept on delete, nor one `spared`). */
async function prune(ctx: ReconcileContext, owner: Owner, keep: Set<string>, log: Logger, spared?: (child: KubeObject) => boolean): Promise<number> {
  const labels = childLabels(ctx.kind, owner);
  const stale = ctx.watches.childrenOf(labels).filter((child) => prunable(labels, owner.metadata.uid, child) && !keep.has(childId(child)) && !spared?.(child));
  await mapLimited(stale, CHILD_WRITES_IN_FLIGHT, async (child) => {
    ctx.budget.spend(childId(child));
    await ctx.objects.delete(child).catch((err) => (isNotFound(err) ? undefined : Promise.reject(err)));
    ctx.rewrites.forget(childId(child));
    log.info('pruned a child no longer rendered', { child: describeChild(child) });
  });
  return stale.length;
}

/**
 * The last step of a deletion: remove every child we manage, then our finalizer. `kept` are the
 * live children kept until now (KindController.keptUntilRelease), which have no ownerReference:
 * those in no watched collection are deleted by name, as what they are is known (served claims
 * only what its labels name ours), so that removing them needs `delete` but never `list`.
 */
async function release(ctx: ReconcileContext, resource: Owner, log: Logger, kept: readonly KubeJson[] = []): Promise<ReconcileResult> {
  const watched = new Set(ctx.watches.childrenOf(childLabels(ctx.kind, resource)).map(childId));
  const unwatched = kept.filter((child) => !watched.has(childId(child as KubeObject)));
  await mapLimited(unwatched, CHILD_WRITES_IN_FLIGHT, async (child) => {
    await ctx.objects.delete(child as KubeObject).catch((err) => (isNotFound(err) ? undefined : Promise.reject(err)));
    log.info('removed a child kept until the release', { child: describeChild(child as KubeObject) });
  });
  const pruned = unwatched.length + (await prune(ctx, resource, new Set(), log));
  await dropFinalizer(ctx, resource);
  ctx.watches.release(objectKey(resource));
  log.info('children removed, finalizer released', { pruned });
  return { applied: 0, pruned };
}

/**
 * Removes our finalizer. The children are gone by now, and a reconcile retried with the object
 * as cached would render them anew (e.g. a final snapshot whose Job was just removed): so a
 * conflict (someone else changed the object, as the garbage collector does in a foreground
 * deletion) reads it again and retries here.
 */
async function dropFinalizer(ctx: ReconcileContext, resource: Owner): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await setFinalizers(ctx, resource, (resource.metadata.finalizers ?? []).filter((f) => f !== ctx.kind.finalizer));
      return;
    } catch (err) {
      if (!(err instanceof KubeError && err.code === 409) || attempt >= FINALIZER_ATTEMPTS) throw err;
      const fresh = await ctx.objects.find<Owner>(resource);
      if (!fresh?.metadata.finalizers?.includes(ctx.kind.finalizer!)) return;
      resource = fresh;
    }
  }
}

async function setFinalizers(ctx: ReconcileContext, resource: Owner, finalizers: string[]): Promise<Owner> {
  const result = await ctx.objects.rest.request<Owner>('PATCH', await ctx.objects.discovery.objectPath(resource), {
    // The resourceVersion makes this fail, rather than drop someone else's finalizer, when the list changed meanwhile.
    body: { metadata: { finalizers, resourceVersion: resource.metadata.resourceVersion } },
    contentType: 'application/merge-patch+json',
    query: { fieldManager: ctx.shard ? shardFieldManager(ctx.objects.fieldManager, ctx.shard) : ctx.objects.fieldManager },
  });
  ctx.wrote?.(resource, result);
  return result;
}

/** Writes status only when it changed, and records an Event when Ready changes. */
async function setStatus(ctx: ReconcileContext, resource: Owner, verdict: ReadyVerdict, kindStatus: object): Promise<void> {
  const conditions = verdictConditions(ctx.kind, resource, verdict);
  const ready = conditions[0];
  const patch = statusPatch(resource, conditions, kindStatus);
  if (!patch) return;
  const result = await ctx.objects.rest.request<Owner>('PATCH', `${await ctx.objects.discovery.objectPath(resource)}/status`, {
    body: { status: patch },
    contentType: 'application/merge-patch+json',
    query: { fieldManager: ctx.shard ? shardFieldManager(ctx.objects.fieldManager, ctx.shard) : ctx.objects.fieldManager },
  });
  ctx.wrote?.(resource, result);
  const previous = (resource.status as { conditions?: { type: string; status: string; reason: string }[] } | undefined)?.conditions?.find((c) => c.type === 'Ready');
  if (previous?.status !== ready.status || previous?.reason !== ready.reason) {
    ctx.events.record(resource, ready.status === 'True' ? 'Normal' : 'Warning', ready.reason, ready.message);
  }
}
