import type { KubeJson } from '../../core/contract/kube-json';
import { KubeError, KubeRest } from '../../kube/rest';
import { Informer } from '../informer';
import { mapLimited } from '../limit';
import { Logger } from '../log';
import { cacheKey, itemKey, parseItemKey, queueItem } from '../queue-item';
import { Rendezvous } from './hash';
import { DRAIN_LABEL, labelsOf, RELABEL_WRITES_IN_FLIGHT, SHARD_LABEL, shardMetadata } from './labels';
import { ShardMetrics } from './metrics';

/** One served collection of objects to assign: where to list them, and each one's path. */
export interface ShardedCollection {
  /** The queue-key prefix of the kind (`plural.group`): part of each object's hash key. */
  readonly group: string;
  /** List paths (all namespaces, or one per served namespace). */
  readonly paths: readonly string[];
  readonly objectPath: (object: KubeJson) => string;
}

/**
 * The leader's part of sharding (as timebertt/kubernetes-controller-sharding's sharder): it
 * caches of every served object only its name, version and shard labels (shardMetadata), and
 * labels each with the live member that rendezvous hashing picks. An object labelled for a
 * live member that is no longer its pick is not relabelled but marked to drain; its member
 * stops working on it and removes both labels, and only then does the sharder label it for
 * the new member. An object of a member that is no longer live is relabelled at once: that
 * member stopped working before its Lease could expire (see ShardMembership).
 */
export class Sharder {
  private readonly collections = new Map<string, { collection: ShardedCollection; informers: Informer[] }>();
  private ring = new Rendezvous([]);
  private live = new Set<string>();
  private readonly dirty = new Set<string>();
  private pumping = false;
  private leading = false;

  constructor(
    private readonly rest: KubeRest,
    private readonly log: Logger,
    private readonly metrics: ShardMetrics,
  ) {}

  /** A kind's objects to assign; watched from when this replica leads. */
  add(collection: ShardedCollection): void {
    const informers = collection.paths.map((path) => new Informer(this.rest, { path, metadataOnly: true, keep: shardMetadata }, this.log));
    for (const informer of informers) informer.on((type, object) => type !== 'deleted' && this.mark(collection.group, object));
    this.collections.set(collection.group, { collection, informers });
    if (this.leading) informers.forEach((i) => i.start());
  }

  lead(): void {
    this.leading = true;
    for (const { informers } of this.collections.values()) informers.forEach((i) => i.start());
  }

  stop(): void {
    this.leading = false;
    for (const { informers } of this.collections.values()) informers.forEach((i) => i.stop());
  }

  /** The live members changed: every object is looked at again. */
  membersChanged(members: readonly string[]): void {
    this.ring = new Rendezvous(members);
    this.live = new Set(members);
    this.metrics.members(members.length);
    this.log.info('shard members', { members });
    for (const { collection, informers } of this.collections.values()) {
      for (const informer of informers) for (const object of informer.cache.values()) this.mark(collection.group, object);
    }
  }

  private mark(group: string, object: KubeJson): void {
    if (!this.leading) return;
    this.dirty.add(itemKey(queueItem(group, object.metadata)));
    void this.pump();
  }

  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      while (this.dirty.size && this.leading) {
        const batch = [...this.dirty];
        this.dirty.clear();
        await mapLimited(batch, RELABEL_WRITES_IN_FLIGHT, (item) => this.assign(item));
      }
    } finally {
      this.pumping = false;
    }
  }

  /** What one object needs: a label, a drain mark, or nothing. */
  private async assign(item: string): Promise<void> {
    // The item's key is what the ring hashes: the same for an object on every replica.
    const { group, ...name } = parseItemKey(item);
    const key = cacheKey(name);
    const entry = this.collections.get(group);
    const object = entry?.informers.map((i) => i.cache.get(key)).find((o) => o);
    if (!entry || !object || object.metadata.deletionTimestamp) return;
    const wanted = this.ring.assign(item);
    if (!wanted) return;
    const labels = labelsOf(object);
    const current = labels[SHARD_LABEL];
    const draining = labels[DRAIN_LABEL] !== undefined;
    let change: Record<string, string | null> | undefined;
    if (!current || !this.live.has(current)) {
      // Unassigned, acknowledged, or its member is gone: label it for its pick.
      if (current !== wanted || draining) change = { [SHARD_LABEL]: wanted, [DRAIN_LABEL]: null };
    } else if (current !== wanted && !draining) change = { [DRAIN_LABEL]: wanted };
    if (!change) return;
    try {
      // The resourceVersion read makes this a compare-and-set: a changed object is looked at again by its watch event.
      await this.rest.request('PATCH', entry.collection.objectPath(object), {
        body: { metadata: { resourceVersion: object.metadata.resourceVersion, labels: change } },
        contentType: 'application/merge-patch+json',
      });
      this.metrics.assigned(change[SHARD_LABEL] ? 'assign' : 'drain');
    } catch (err) {
      if (err instanceof KubeError && (err.code === 409 || err.code === 404)) return;
      this.log.warn('cannot label an object for its shard; will retry', { object: item, error: err as Error });
      setTimeout(() => this.mark(group, object), 1000).unref();
    }
  }
}
