import { ManagedFieldsEntry } from '../kube/create-then-apply';
import { KubeObject, objectKey } from '../kube/objects';
import { strip } from './informer';

/**
 * Our own writes to watched objects, until the watch delivers them. A reconcile that runs in
 * between (queued by a child's event, say) would otherwise read the object as it was before
 * the write and write the same status again, recording its Event twice. Resource versions are
 * opaque, so none is compared for order: a write is the newest version of an object exactly
 * while the cache still holds the version it was made on.
 */
export class OwnWrites<T extends KubeObject> {
  private readonly written = new Map<string, { base: unknown; result: T }>();

  /** `keepManagedFields` as the informer of these objects has it, so a write's result reads like the cache. */
  constructor(private readonly keepManagedFields?: (entry: ManagedFieldsEntry) => boolean) {}

  /** `result` is what the API server answered to a write made on `base`. */
  record(base: T, result: T): void {
    strip(result, this.keepManagedFields);
    this.written.set(objectKey(base), { base: base.metadata.resourceVersion, result });
  }

  /** Call for every object the watch delivers: once the cache moves past the base, the write is old news. */
  seen(object: T): void {
    const key = objectKey(object);
    if (this.written.get(key)?.base !== object.metadata.resourceVersion) this.written.delete(key);
  }

  /** The cached object, or our write on top of it when the cache has not caught up yet. */
  latest(key: string, cached: T | undefined): T | undefined {
    const write = this.written.get(key);
    if (write && cached?.metadata.resourceVersion === write.base) return write.result;
    return cached;
  }
}
