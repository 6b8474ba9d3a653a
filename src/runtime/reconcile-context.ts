import { AnyKind, Clock, CustomResource } from '../core/contract/kind';
import { ObjectClient } from '../kube/objects';
import { EventRecorder } from './events';
import { Logger } from './log';
import { OwnWrites } from './own-writes';
import { ServerRewrites } from './rewrites';
import { KindWatches } from './watches';
import { WriteBudget } from './write-budget';

export type Owner = CustomResource;

/**
 * Everything one kind's reconcile reads and writes through, as plain data (as kro's instance
 * context): the kind server builds one per kind, and the reconcile never calls back into it.
 */
export interface ReconcileContext {
  readonly kind: AnyKind;
  readonly objects: ObjectClient;
  /** The kind's children and the collections it reads. */
  readonly watches: KindWatches;
  /** Our writes to owners, so that a reconcile before the watch delivers one reads what the API server answered. */
  readonly ownerWrites: OwnWrites<Owner>;
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
  /** Sharding: this replica's shard, which every child it applies is labelled with. */
  readonly shard?: string;
  /** The field manager of our writes to an owner (status, finalizers): sharded, the replica's own (see shardFieldManager). */
  readonly ownerFieldManager?: string;
}

/** What a reconcile did, for metrics and the queue. */
export interface ReconcileResult {
  /** Queue the item again after this many milliseconds (0: at once). */
  readonly requeueAfterMs?: number;
  /** How the look after `requeueAfterMs` waits: `low`, the resync's, behind every event. */
  readonly requeuePriority?: 'normal' | 'low';
  /** Retry with backoff (a transient failure, or a conflict someone else must clear). */
  readonly retry?: boolean;
  readonly applied: number;
  readonly pruned: number;
}

export const NOTHING: ReconcileResult = { applied: 0, pruned: 0 };

/** One owner may have thousands of children (a rule's copies): write them this many at a time. */
export const CHILD_WRITES_IN_FLIGHT = 16;
