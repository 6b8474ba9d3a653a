import type { KubeJson } from '../../core/contract/kube-json';
import { isNotFound, KubeError, KubeRest } from '../../kube/rest';
import { Logger } from '../log';
import type { ChildCollection } from '../watches';
import { DRAIN_LABEL, labelPath, SHARD_LABEL } from './labels';
import { ShardMetrics } from './metrics';
import { Takeover } from './takeover';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A replica's side of sharding: which objects it watches (its label), how it lets one go
 * (drain, then acknowledge) and how it takes one over (its children relabelled).
 */
export class Shard {
  private readonly draining = new Set<string>();
  /** Owners whose children this process has checked for another shard's label. */
  private readonly adopted = new Set<string>();
  /** Owners whose check runs, so that an early start (on the owner's arrival) and its reconcile share it. */
  private readonly adopting = new Map<string, Promise<void>>();
  private stopped = false;
  private readonly takeover: Takeover;

  constructor(
    private readonly rest: KubeRest,
    readonly name: string,
    private readonly metrics: ShardMetrics,
    private readonly log: Logger,
  ) {
    this.takeover = new Takeover(rest, name, (item, owner, children) => {
      this.metrics.handedOver('adopted');
      this.log.info('took over an object and relabelled its children', { object: item, children, owner: owner.metadata.name });
    });
  }

  /** The label selector of everything this replica watches: its objects and their children. */
  get selector(): string {
    return `${SHARD_LABEL}=${this.name}`;
  }

  /**
   * The object is to move: once no reconcile of it runs here (`busy`), removes this shard's
   * label and the drain mark together, on the condition that the label still names this shard.
   * The caller has stopped queueing it already; `stillHere` says whether it is still ours to let go.
   */
  drain(item: string, path: string, busy: () => boolean, stillHere: () => boolean): void {
    if (this.draining.has(item)) return;
    this.draining.add(item);
    void (async () => {
      try {
        for (let attempt = 0; !this.stopped && stillHere(); attempt++) {
          if (busy()) {
            await sleep(50);
            continue;
          }
          try {
            await this.rest.request('PATCH', path, {
              body: [
                { op: 'test', path: labelPath(SHARD_LABEL), value: this.name },
                { op: 'remove', path: labelPath(SHARD_LABEL) },
                { op: 'remove', path: labelPath(DRAIN_LABEL) },
              ],
              contentType: 'application/json-patch+json',
            });
            this.metrics.handedOver('drained');
            this.adopted.delete(item);
            return;
          } catch (err) {
            // 422: the test failed (the label is no longer ours); 404: the object is gone. Either way nothing is left to let go.
            if (isNotFound(err) || (err instanceof KubeError && err.code === 422)) return;
            this.log.warn('cannot hand an object over; retrying', { object: item, error: err as Error });
            await sleep(Math.min(10_000, 500 * 2 ** attempt));
          }
        }
      } finally {
        this.draining.delete(item);
      }
    })();
  }

  /** Ends hand-overs under way (the replica is stopping: its Lease's release or expiry hands its objects on). */
  stop(): void {
    this.stopped = true;
  }

  /** The owner left this shard or was deleted: a later return checks its children again. */
  forget(item: string): void {
    this.adopted.delete(item);
  }

  /**
   * Before its first reconcile here, an owner that moved here gets its children back (see
   * Takeover). `mayHaveOthers` false skips that: when the cache holds children of the owner
   * already (they carry our label), or when no controller served the owner yet (a new object has
   * no children, and a LIST for each of thousands of new objects would load the API server).
   */
  async adopt(item: string, owner: KubeJson, ownerLabels: Readonly<Record<string, string>>, children: readonly ChildCollection[], mayHaveOthers: boolean): Promise<void> {
    if (this.adopted.has(item)) return;
    let check = this.adopting.get(item);
    if (!check) {
      if (!mayHaveOthers) {
        this.adopted.add(item);
        return;
      }
      check = this.takeover.take(children, item, owner, ownerLabels);
      this.adopting.set(item, check);
      // A failed check is not remembered: the reconcile that awaited it fails, and its retry checks again.
      check.then(() => this.adopted.add(item), () => undefined).finally(() => this.adopting.delete(item));
    }
    await check;
  }
}
