import { EngineMetrics, ReconcileResult as ReconcileMetric } from './engine-metrics';
import { KindServer } from './kind-server';
import { Logger } from './log';
import { WorkQueue } from './queue';
import { cacheKey, parseItemKey } from './queue-item';

/** What one worker needs: the queue it takes items from, and the kind server each item's group names. */
export interface WorkerSettings {
  readonly queue: WorkQueue;
  readonly serverOf: (group: string) => KindServer;
  readonly metrics: EngineMetrics;
  readonly log: Logger;
  /**
   * False while this replica may not start a reconcile: its shard membership was not renewed
   * within the renew deadline. Work taken meanwhile waits (it is looked at again every
   * HELD_WORK_RETRY_MS): either the membership is lost and the replica exits, or a late renewal
   * keeps it, and the work goes on.
   */
  readonly mayWork?: () => boolean;
}

/** How soon work held back by mayWork is looked at again: half the leader election's retry period. */
export const HELD_WORK_RETRY_MS = 1000;

/**
 * One worker of the pool that serves every kind: takes an item (never one another worker holds),
 * hands it to its kind server, and queues it again as the reconcile asks (later, or with backoff
 * after a failure). Returns once the queue shuts down.
 */
export async function runWorker({ queue, serverOf, metrics, log, mayWork }: WorkerSettings): Promise<void> {
  for (;;) {
    const key = await queue.next();
    if (key === undefined) return;
    if (mayWork && !mayWork()) {
      queue.addAfter(key, HELD_WORK_RETRY_MS);
      queue.done(key);
      continue;
    }
    const item = parseItemKey(key);
    const server = serverOf(item.group);
    const started = process.hrtime.bigint();
    let outcome: ReconcileMetric = 'error';
    let writes = {};
    metrics.working(server.kind, 1);
    try {
      const result = await server.reconcile(item);
      // As controller-runtime counts: a retry with backoff is a requeue; a kind's own wake (or a hold) sooner than the resync a requeue_after.
      outcome = result.retry ? 'requeue' : result.requeueAfterMs !== undefined && result.requeuePriority !== 'low' ? 'requeue_after' : 'success';
      writes = result;
      if (result.retry) queue.addWithBackoff(key);
      else {
        queue.forget(key);
        // The resync's look waits behind events; a kind's own wake (or a hold) does not. 0 is at once.
        if (result.requeueAfterMs !== undefined) queue.addAfter(key, result.requeueAfterMs, result.requeuePriority ?? 'normal');
      }
    } catch (err) {
      const delay = queue.addWithBackoff(key);
      log.error('reconcile failed; retrying', { kind: server.kind.kind, object: cacheKey(item), retryInMs: delay, error: err as Error });
    } finally {
      metrics.working(server.kind, -1);
      metrics.reconciled(server.kind, outcome, Number(process.hrtime.bigint() - started) / 1e9, writes);
      queue.done(key);
    }
  }
}
