import { ChildState, KubeJson, ReconcileOutcome } from '../core/contract/kind';
import { adoptsExisting, createdOnly } from '../core/kit/child-policy';
import { childLabels } from '../core/kit/names';
import { applyOverCreate, createIfAbsent } from '../kube/create-then-apply';
import { KubeObject, objectKey } from '../kube/objects';
import { Logger } from './log';
import { mapLimited } from './limit';
import { matches } from './matches';
import { childId, claims, describeChild, ownedBy } from './ownership';
import { childState } from './readiness';
import { CHILD_WRITES_IN_FLIGHT, Owner, ReconcileContext } from './reconcile-context';
import { describeChanges, fieldChanges } from './rewrites';
import { withShard } from './sharding/labels';

/**
 * Applies each rendered child that differs from what is live, except where an object of that
 * name exists that this owner does not manage: that one is left alone and named as a conflict.
 * A child marked adopt-existing is only written over an object made for this owner (see
 * ADOPT_EXISTING_ANNOTATION), and skipped when there is none.
 * A child the API server stores differently from its render is applied once per render, and
 * the fields it changed are told in a Warning (see ServerRewrites); a child written too often
 * waits (see WriteBudget).
 */
export async function writeChildren(ctx: ReconcileContext, owner: Owner, desired: KubeObject[], log: Logger, echoIsNews: boolean): Promise<Served> {
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

export type Served = { outcome: ReconcileOutcome; applied: number; heldMs?: number; outdated?: undefined } | { outdated: OutdatedOwner; outcome?: undefined; applied?: undefined; heldMs?: undefined };

/** The owner as the API server has it when the cache is out of date: `fresh` is absent when it is gone (or another object took its name). */
export interface OutdatedOwner {
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
  const message = `${written} and its render still differs at ${fields.join(', ')}: further writes wait; a render must give the same child for the same object: a value new at each render (the current time, a counter, a random name) never settles, while a time fixed once (when a run was due) is fine`;
  if (ctx.events.recordOnce(owner, 'Warning', 'ChildWritesHeld', message)) log.warn('held back writes to a child that changes on every render', { child: describeChild(child), fields });
}

/**
 * Sharding: a child is labelled with this replica's shard where a shard's watch selects on
 * that label, i.e. in the collections watched (the next shard relabels those when the owner
 * moves). A child of a collection read by name only (a create-only Secret) carries none: it
 * is never written again, so the label would go on naming the shard it was created by.
 */
export function shardLabelled(ctx: ReconcileContext, child: KubeObject): KubeObject {
  return ctx.watches.informerOf(child) ? withShard(child, ctx.shard) : child;
}

/**
 * A child missing from its watched collection's cache most often does not exist yet: it is
 * POSTed, one request where a read and then an apply would be two (at 100,000 new objects,
 * 100,000 reads fewer for the API server). An object of that name that is not in the cache (not
 * ours, or ours but not delivered yet) makes the POST fail and is left as it is: undefined, and
 * writeChildren goes on as for any child, reading it first. Not tried for a child written lately (it may
 * have been removed since, see writeChildren), nor for one only ever adopted.
 */
async function createFirst(ctx: ReconcileContext, child: KubeObject, echoIsNews: boolean): Promise<KubeJson | undefined> {
  const id = childId(child);
  if (adoptsExisting(child) || ctx.budget.wroteRecently(id)) return undefined;
  const created = await ctx.watches.write(child, () => createIfAbsent<KubeJson>(ctx.objects, child), { echoIsNews });
  if (created) ctx.budget.spend(id);
  return created;
}
