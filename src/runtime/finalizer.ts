import { AnyKind } from '../core/contract/kind';
import { KubeError } from '../kube/rest';
import { Owner, ReconcileContext } from './reconcile-context';

/** How often the release tries to drop the finalizer of an object others keep changing. */
const FINALIZER_ATTEMPTS = 5;

export const holdsOwnFinalizer = (kind: AnyKind, resource: Owner) => kind.finalizer !== undefined && resource.metadata.finalizers?.includes(kind.finalizer) === true;

/** Adds the kind's finalizer; answers the owner as the API server has it now, so a later status write is known to come after. */
export function addFinalizer(ctx: ReconcileContext, resource: Owner): Promise<Owner> {
  return setFinalizers(ctx, resource, [...(resource.metadata.finalizers ?? []), ctx.kind.finalizer!]);
}

/**
 * Removes our finalizer. The children are gone by now, and a reconcile retried with the object
 * as cached would render them anew (e.g. a final snapshot whose Job was just removed): so a
 * conflict (someone else changed the object, as the garbage collector does in a foreground
 * deletion) reads it again and retries here.
 */
export async function dropFinalizer(ctx: ReconcileContext, resource: Owner): Promise<void> {
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

/** The patch carries the resourceVersion: it fails, rather than drop someone else's finalizer, when the list changed meanwhile. */
async function setFinalizers(ctx: ReconcileContext, resource: Owner, finalizers: string[]): Promise<Owner> {
  const result = await ctx.objects.patchMetadata<Owner>(resource, { finalizers }, { fieldManager: ctx.ownerFieldManager });
  ctx.ownerWrites.record(resource, result);
  return result;
}
