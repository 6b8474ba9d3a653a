import { AnyKind, apiVersionOf, CustomResource, ObservationError, validateResource } from '../core/kind';
import { childLabels, OWNER_KIND_LABEL, OWNER_NAME_LABEL, OWNER_NAMESPACE_LABEL } from '../core/names';
import { renderChildren } from '../core/render';
import { KubeObject, ObjectClient, objectKey } from '../kube/objects';
import { isNotFound } from '../kube/rest';
import { formatFieldErrors } from '../schema';
import { Condition, readyCondition, statusPatch } from './status';
import { EventRecorder } from './events';
import { Informer } from './informer';
import { Logger } from './log';
import { matches } from './matches';

/** Everything one kind's reconcile needs; the runtime builds one per kind. */
export interface ReconcileContext {
  readonly kind: AnyKind;
  readonly objects: ObjectClient;
  /** The cached object of a key, if it exists. */
  readonly owner: (key: string) => (CustomResource & KubeObject) | undefined;
  /** Informers of the child collections, by `apiVersion/Kind`. */
  readonly children: ReadonlyMap<string, Informer>;
  readonly observe?: (resource: CustomResource) => Promise<unknown>;
  readonly events: EventRecorder;
  readonly log: Logger;
  /** Reconcile everything again after this long, even when nothing changed. */
  readonly resyncMs: number;
}

/** What a reconcile did, for metrics and the queue. */
export interface ReconcileResult {
  /** Queue the key again after this many milliseconds. */
  readonly requeueAfterMs?: number;
  /** Retry with backoff (a transient failure). */
  readonly retry?: boolean;
  readonly applied: number;
  readonly pruned: number;
}

/** Reconciles the object `key` (`namespace/name`, or `name` for cluster-scoped kinds) of `ctx.kind`. */
export async function reconcile(ctx: ReconcileContext, key: string): Promise<ReconcileResult> {
  const { kind } = ctx;
  const resource = ctx.owner(key);
  if (!resource) return { applied: 0, pruned: 0 }; // Deleted: the garbage collector removes owned children.
  const log = ctx.log.child({ kind: kind.kind, namespace: resource.metadata.namespace, name: resource.metadata.name });

  if (resource.metadata.deletionTimestamp) return finalize(ctx, resource, log);
  if (kind.finalizer && !resource.metadata.finalizers?.includes(kind.finalizer)) await addFinalizer(ctx, resource);

  const validation = validateResource(kind, resource as unknown as Record<string, unknown>);
  if (!validation.ok) {
    const message = formatFieldErrors(validation.errors);
    log.warn('invalid spec', { errors: message });
    await setStatus(ctx, resource, readyCondition(resource, 'False', 'InvalidSpec', message), {});
    // Nothing to retry: a change to the object queues it again.
    return { applied: 0, pruned: 0 };
  }
  const valid = { ...resource, spec: validation.spec };

  let observation: unknown;
  try {
    observation = ctx.observe ? await ctx.observe(valid) : undefined;
  } catch (err) {
    const reason = err instanceof ObservationError ? err.reason : 'ObservationFailed';
    log.warn('observation failed; children left as they are', { reason, error: err as Error });
    await setStatus(ctx, resource, readyCondition(resource, 'False', reason, (err as Error).message), {});
    return { retry: true, applied: 0, pruned: 0 };
  }

  const desired = renderChildren(kind, valid, observation).map((child) => withOwner(child as KubeObject, resource, kind));
  let applied = 0;
  for (const child of desired) {
    const live = ctx.children.get(`${child.apiVersion}/${child.kind}`)?.cache.get(objectKey(child));
    if (live && matches(child, live)) continue;
    await ctx.objects.apply(child);
    applied++;
  }
  const pruned = await prune(ctx, resource, new Set(desired.map((c) => `${c.apiVersion}/${c.kind}/${objectKey(c)}`)), log);
  if (applied || pruned) log.info('children reconciled', { applied, pruned });

  const kindStatus = kind.controller?.status?.(valid, observation) ?? {};
  await setStatus(ctx, resource, readyCondition(resource, 'True', kind.controller?.readyReason ?? 'Reconciled', readyMessage(desired.length)), kindStatus);
  const refresh = kind.controller?.requeueAfterMs?.(valid.spec, observation);
  return { requeueAfterMs: Math.min(refresh ?? ctx.resyncMs, ctx.resyncMs), applied, pruned };
}

function readyMessage(children: number): string {
  return children === 1 ? '1 child matches the spec' : `${children} children match the spec`;
}

/** A controller ownerReference where Kubernetes allows one: same namespace, or a cluster-scoped owner. */
function withOwner(child: KubeObject, owner: CustomResource & KubeObject, kind: AnyKind): KubeObject {
  const sameScope = !owner.metadata.namespace || owner.metadata.namespace === child.metadata.namespace;
  if (!sameScope || !owner.metadata.uid) return child;
  const ownerReference = { apiVersion: apiVersionOf(kind), kind: kind.kind, name: owner.metadata.name, uid: owner.metadata.uid, controller: true, blockOwnerDeletion: true };
  return { ...child, metadata: { ...child.metadata, ownerReferences: [ownerReference] } };
}

/** Deletes the children this owner's labels claim that the render no longer produced. */
async function prune(ctx: ReconcileContext, owner: CustomResource & KubeObject, keep: Set<string>, log: Logger): Promise<number> {
  const labels = childLabels(ctx.kind, owner);
  let pruned = 0;
  for (const informer of ctx.children.values()) {
    for (const child of informer.cache.values()) {
      const l = child.metadata.labels as Record<string, string> | undefined;
      const mine = l?.[OWNER_KIND_LABEL] === labels[OWNER_KIND_LABEL] && l?.[OWNER_NAME_LABEL] === labels[OWNER_NAME_LABEL] && l?.[OWNER_NAMESPACE_LABEL] === labels[OWNER_NAMESPACE_LABEL];
      if (!mine || keep.has(`${child.apiVersion}/${child.kind}/${objectKey(child)}`)) continue;
      await ctx.objects.delete(child).catch((err) => (isNotFound(err) ? undefined : Promise.reject(err)));
      log.info('pruned a child no longer rendered', { child: `${child.kind}/${objectKey(child)}` });
      pruned++;
    }
  }
  return pruned;
}

/** On deletion: remove every child we manage, then release our finalizer. */
async function finalize(ctx: ReconcileContext, resource: CustomResource & KubeObject, log: Logger): Promise<ReconcileResult> {
  const finalizer = ctx.kind.finalizer;
  if (!finalizer || !resource.metadata.finalizers?.includes(finalizer)) return { applied: 0, pruned: 0 };
  const pruned = await prune(ctx, resource, new Set(), log);
  await setFinalizers(ctx, resource, resource.metadata.finalizers.filter((f) => f !== finalizer));
  log.info('children removed, finalizer released', { pruned });
  return { applied: 0, pruned };
}

async function addFinalizer(ctx: ReconcileContext, resource: CustomResource & KubeObject): Promise<void> {
  await setFinalizers(ctx, resource, [...(resource.metadata.finalizers ?? []), ctx.kind.finalizer!]);
}

async function setFinalizers(ctx: ReconcileContext, resource: CustomResource & KubeObject, finalizers: string[]): Promise<void> {
  await ctx.objects.rest.request('PATCH', await ctx.objects.paths.path(resource), {
    // The resourceVersion makes this fail, rather than drop someone else's finalizer, when the list changed meanwhile.
    body: { metadata: { finalizers, resourceVersion: resource.metadata.resourceVersion } },
    contentType: 'application/merge-patch+json',
  });
}

/** Writes status only when it changed, and records an Event when Ready changes. */
async function setStatus(ctx: ReconcileContext, resource: CustomResource & KubeObject, ready: Condition, kindStatus: object): Promise<void> {
  const patch = statusPatch(resource, ready, kindStatus);
  if (!patch) return;
  await ctx.objects.rest.request('PATCH', `${await ctx.objects.paths.path(resource)}/status`, { body: { status: patch }, contentType: 'application/merge-patch+json' });
  const previous = (resource.status as { conditions?: Condition[] } | undefined)?.conditions?.find((c) => c.type === 'Ready');
  if (previous?.status !== ready.status || previous?.reason !== ready.reason) {
    await ctx.events.record(resource, ready.status === 'True' ? 'Normal' : 'Warning', ready.reason, ready.message);
  }
}
