import { CustomResource, ObservationError, ObservationProblem, ReadyVerdict, ReconcileOutcome } from '../core/contract/kind';
import { validateResource } from '../core/contract/validation';
import { isExtraIdentity } from '../core/groups';
import { childLabels } from '../core/kit/names';
import { keptUntilRelease, withOwner } from '../core/ownership';
import { renderChildren } from '../core/render';
import { optInIsOn } from '../core/contract/opt-ins';
import { KubeObject, objectKey } from '../kube/objects';
import { formatFieldErrors } from '../schema';
import { shardLabelled, writeChildren } from './child-writes';
import { prune, release } from './deletion';
import { addFinalizer, holdsOwnFinalizer } from './finalizer';
import { childId } from './ownership';
import { NOTHING, Owner, ReconcileContext, ReconcileResult } from './reconcile-context';
import { rememberIfSecret } from './secret-values';
import { engineVerdict, writeStatus } from './verdict';
import { nextLook, wakeAtOf } from './wake';
import { Logger } from './log';

/**
 * One reconcile of an owner this replica serves (the kind server found it, and took its children
 * over where sharding moved it here): validate, observe, render, write the children, prune, write
 * the status, and say when to look again. A deletion ends in the release (see deletion.ts).
 */
export async function reconcile(ctx: ReconcileContext, resource: Owner): Promise<ReconcileResult> {
  const { kind } = ctx;
  const log = ctx.log.child({ kind: kind.kind, ...(isExtraIdentity(kind) ? { group: kind.group } : {}), namespace: resource.metadata.namespace, name: resource.metadata.name });
  const deleting = resource.metadata.deletionTimestamp !== undefined;
  const holdsFinalizer = holdsOwnFinalizer(kind, resource);
  if (deleting && !holdsFinalizer) return NOTHING;
  if (deleting && !kind.controller?.mayRelease) {
    const validation = validateResource(kind, resource as unknown as Record<string, unknown>);
    if (validation.ok) recordKindEvents(ctx, resource, { ...resource, spec: validation.spec }, undefined, undefined);
    return release(ctx, resource, log);
  }
  // Go on with what the API server answered, so that the status write below is known to come after it.
  if (!deleting && kind.finalizer && !holdsFinalizer) resource = await addFinalizer(ctx, resource);

  const validation = validateResource(kind, resource as unknown as Record<string, unknown>);
  if (!validation.ok) {
    // An invalid object being deleted cannot be rendered: let it go rather than hold it forever.
    if (deleting) return release(ctx, resource, log);
    const message = formatFieldErrors(validation.errors);
    log.warn('invalid spec', { errors: message });
    await writeStatus(ctx, resource, { status: 'False', reason: 'InvalidSpec', message });
    return NOTHING; // Nothing to retry: a change to the object queues it again.
  }
  const valid = { ...resource, spec: validation.spec };

  // The one look at the children this reconcile decides on: the prune below acts only on these.
  const seen = new Set(ctx.watches.childrenLabelled(childLabels(kind, resource)).map(childId));
  let observation: unknown;
  // Any child read meanwhile (this observation's or, in parallel, another's) keeps the echoes of our writes as news.
  const childReadsBefore = ctx.watches.childReads;
  try {
    await ctx.watches.ensure(objectKey(resource), relatedQueries(ctx, valid));
    observation = ctx.observe ? await ctx.observe(valid) : undefined;
  } catch (err) {
    const reason = err instanceof ObservationError ? err.reason : 'ObservationFailed';
    const retry = !(err instanceof ObservationError) || err.retry;
    log.warn('observation failed; children left as they are', { reason, error: err as Error });
    const written = await writeStatus(ctx, resource, { status: 'False', reason, message: (err as Error).message });
    return written === 'gone' ? gone(log) : { ...NOTHING, retry };
  }

  const desired = renderChildren(kind, valid, observation, ctx.clock).map((child) => shardLabelled(ctx, withOwner(child as KubeObject, resource, kind)));
  // The values of the Secrets we write are the log's to redact wherever they appear.
  desired.forEach(rememberIfSecret);
  const echoIsNews = ctx.watches.childReads !== childReadsBefore;
  const { outcome, applied, heldMs, outdated } = await writeChildren(ctx, resource, desired, log, echoIsNews);
  if (outdated) {
    // Nothing more from this render: the next reconcile reads the owner as it is now.
    log.info('a child of ours is gone and the cached owner is out of date: reading it again', { deleting: outdated.fresh?.metadata.deletionTimestamp !== undefined, gone: !outdated.fresh });
    if (outdated.fresh) ctx.ownerWrites.record(resource, outdated.fresh);
    return { ...NOTHING, retry: outdated.fresh !== undefined };
  }
  // Until the release, a child kept for the last step stays even when no longer rendered (e.g. a
  // kind's standby replica scaled away as it is deleted: its data waits for the final snapshot).
  const spared = deleting ? (child: KubeObject) => keptUntilRelease(kind, child) : undefined;
  const pruned = await prune(ctx, resource, new Set(desired.map(childId)), log, { seen, spared });
  if (applied || pruned) log.info('children reconciled', { applied, pruned });
  if (outcome.conflicts.length) log.warn('left alone objects this resource does not manage', { conflicts: outcome.conflicts });

  const kindStatus = kind.controller?.status?.(valid, observation, outcome);
  const ownConditions = kind.controller?.conditions?.(valid, observation, outcome, ctx.clock) ?? [];
  recordKindEvents(ctx, resource, valid, observation, outcome);
  const problem = kind.controller?.problem?.(valid, observation);
  if (problem) log.info('the observation found a problem; children reconciled all the same', { reason: problem.reason, message: problem.message });
  // A conflict is the engine's to report, whatever the kind knows: a kind's verdict is asked only without one.
  const kindVerdict = outcome.conflicts.length ? undefined : problem ? problemVerdict(problem) : kind.controller?.ready?.(valid, observation, outcome);
  if (deleting) {
    const verdict = kind.controller!.mayRelease!(valid, observation, outcome);
    // Kept children the engine does not watch (e.g. create-only ones) are only known from this render.
    if (verdict === true) return release(ctx, resource, log, outcome.served.filter((child) => keptUntilRelease(kind, child)));
    const waiting = kindVerdict ?? { status: 'False', reason: 'Finalizing', message: `deleting: waiting for ${verdict}` };
    const written = await writeStatus(ctx, resource, waiting, kindStatus, ownConditions);
    return written === 'gone' ? gone(log) : { applied, pruned };
  }
  const ready = kindVerdict ?? engineVerdict(kind, outcome);
  if ((await writeStatus(ctx, resource, ready, kindStatus, ownConditions)) === 'gone') return gone(log);
  if (outcome.conflicts.length || problem?.retry) return { retry: true, applied, pruned };
  const next = nextLook(wakeAtOf(kind.controller, valid, observation, ctx.clock), ctx.clock.now().getTime(), ctx.resyncMs, heldMs);
  return { requeueAfterMs: next.afterMs, requeuePriority: next.priority, applied, pruned };
}

/** The Ready condition of a problem the observation reported. */
const problemVerdict = ({ reason, message }: ObservationProblem): ReadyVerdict => ({ status: 'False', reason, message });

/** The object was deleted while it was reconciled: nothing more to do, nothing to retry (its deletion's own event comes). */
function gone(log: Logger): ReconcileResult {
  log.debug('the object is gone: its status is not written');
  return NOTHING;
}

/** The parts of related collections this resource reads, for the shared watches. */
function relatedQueries(ctx: ReconcileContext, resource: CustomResource) {
  return (ctx.kind.controller?.watches ?? [])
    .filter((watch) => watch.queries && optInIsOn(ctx.kind, watch.optIn, ctx.options))
    .flatMap((watch) => watch.queries!(resource, ctx.options).map((query) => ({ collection: watch, query })));
}

/** The kind's own Events about the resource, each recorded once per object. */
function recordKindEvents(ctx: ReconcileContext, resource: Owner, valid: CustomResource, observation: unknown, outcome: ReconcileOutcome | undefined): void {
  for (const event of ctx.kind.controller?.events?.(valid, observation, outcome) ?? []) ctx.events.recordOnce(resource, event.type, event.reason, event.message);
}
