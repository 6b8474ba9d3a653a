import { AnyKind } from '../core/contract/kind';
import { Metrics } from './metrics';
import { QueueHooks, WorkQueue } from './queue';

/**
 * The engine's metrics, under its own names and, where a figure means what controller-runtime's
 * (and client-go's workqueue) does, under their names and labels too, so that dashboards and
 * alerts written for Go operators work unchanged. docs/monitoring.md lists both.
 */

/** controller-runtime names a kind's controller (and its queue) by the kind in lower case. */
export function controllerName(kind: Pick<AnyKind, 'kind'>): string {
  return kind.kind.toLowerCase();
}

/** How a reconcile ended, as controller_runtime_reconcile_total's `result` label says it. */
export type ReconcileResult = 'success' | 'error' | 'requeue' | 'requeue_after';

/** controller-runtime's reconcile buckets (seconds), so its dashboards' quantiles read the same. */
const RECONCILE_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10, 15,
  20, 25, 30, 40, 50, 60,
];
/** client-go's workqueue buckets: 10ns to 1000s, by tens. */
const QUEUE_BUCKETS = Array.from({ length: 12 }, (_, i) => Number((1e-8 * 10 ** i).toPrecision(1)));

export class EngineMetrics {
  private readonly own;
  private readonly runtime;
  private readonly queue;
  private readonly active = new Map<string, number>();

  constructor(
    registry: Metrics,
    /** The kinds served, so that every controller's series exist (at 0) before anything happens. */
    kinds: readonly AnyKind[],
    /** Reconciles that may run at once; one pool serves every kind. */
    workers: number,
  ) {
    this.own = {
      reconciles: registry.counter(registry.named('reconciles_total'), 'Reconciles by kind and result.', ['kind', 'result']),
      duration: registry.histogram(registry.named('reconcile_duration_seconds'), 'Time one reconcile took.', ['kind']),
      writes: registry.counter(registry.named('child_writes_total'), 'Children applied or pruned.', ['kind', 'action']),
      depth: registry.gauge(registry.named('workqueue_depth'), 'Keys waiting to be reconciled.'),
    };
    this.runtime = {
      total: registry.counter('controller_runtime_reconcile_total', 'Total number of reconciliations per controller', ['controller', 'result']),
      errors: registry.counter('controller_runtime_reconcile_errors_total', 'Total number of reconciliation errors per controller', ['controller']),
      time: registry.histogram('controller_runtime_reconcile_time_seconds', 'Length of time per reconciliation per controller', ['controller'], RECONCILE_BUCKETS),
      maxConcurrent: registry.gauge('controller_runtime_max_concurrent_reconciles', 'Maximum number of concurrent reconciles per controller', ['controller']),
      activeWorkers: registry.gauge('controller_runtime_active_workers', 'Number of currently used workers per controller', ['controller']),
    };
    this.queue = {
      depth: registry.gauge('workqueue_depth', 'Current depth of workqueue by workqueue and priority', ['name', 'controller', 'priority']),
      adds: registry.counter('workqueue_adds_total', 'Total number of adds handled by workqueue', ['name', 'controller']),
      retries: registry.counter('workqueue_retries_total', 'Total number of retries handled by workqueue', ['name', 'controller']),
      latency: registry.histogram('workqueue_queue_duration_seconds', 'How long in seconds an item stays in workqueue before being requested', ['name', 'controller'], QUEUE_BUCKETS),
      work: registry.histogram('workqueue_work_duration_seconds', 'How long in seconds processing an item from workqueue takes.', ['name', 'controller'], QUEUE_BUCKETS),
      unfinished: registry.gauge(
        'workqueue_unfinished_work_seconds',
        "How many seconds of work has been done that is in progress and hasn't been observed by work_duration. Large values indicate stuck threads.",
        ['name', 'controller'],
      ),
      longest: registry.gauge('workqueue_longest_running_processor_seconds', 'How many seconds has the longest running processor for workqueue been running.', ['name', 'controller']),
    };
    for (const kind of kinds) {
      const controller = controllerName(kind);
      for (const result of ['success', 'error', 'requeue', 'requeue_after'] as const) this.runtime.total.inc({ controller, result }, 0);
      this.runtime.errors.inc({ controller }, 0);
      this.runtime.maxConcurrent.set({ controller }, workers);
      this.runtime.activeWorkers.set({ controller }, 0);
      this.queue.adds.inc({ name: controller, controller }, 0);
      this.queue.retries.inc({ name: controller, controller }, 0);
    }
  }

  /** One reconcile of `kind` ended. */
  reconciled(kind: AnyKind, result: ReconcileResult, seconds: number, writes: { applied?: number; pruned?: number } = {}): void {
    const controller = controllerName(kind);
    // The engine's own names predate controller-runtime's split of success into requeue(_after).
    this.own.reconciles.inc({ kind: kind.kind, result: result === 'error' ? 'error' : result === 'requeue' ? 'retry' : 'success' });
    this.own.duration.observe({ kind: kind.kind }, seconds);
    if (writes.applied) this.own.writes.inc({ kind: kind.kind, action: 'apply' }, writes.applied);
    if (writes.pruned) this.own.writes.inc({ kind: kind.kind, action: 'prune' }, writes.pruned);
    this.runtime.total.inc({ controller, result });
    if (result === 'error') this.runtime.errors.inc({ controller });
    this.runtime.time.observe({ controller }, seconds);
  }

  /** A worker started (+1) or finished (-1) a reconcile of `kind`. */
  working(kind: AnyKind, delta: 1 | -1): void {
    const controller = controllerName(kind);
    const now = (this.active.get(controller) ?? 0) + delta;
    this.active.set(controller, now);
    this.runtime.activeWorkers.set({ controller }, now);
  }

  /** The hooks that count a queue's adds, retries and waits, by the controller each key belongs to. */
  queueHooks(controllerOf: (key: string) => string | undefined): QueueHooks {
    const labels = (key: string) => {
      const controller = controllerOf(key);
      return controller ? { name: controller, controller } : undefined;
    };
    const count = (counter: { inc(labels: Record<string, string>): void }) => (key: string) => {
      const l = labels(key);
      if (l) counter.inc(l);
    };
    const observe = (histogram: { observe(labels: Record<string, string>, seconds: number): void }) => (key: string, seconds: number) => {
      const l = labels(key);
      if (l) histogram.observe(l, seconds);
    };
    return { added: count(this.queue.adds), retried: count(this.queue.retries), taken: observe(this.queue.latency), finished: observe(this.queue.work) };
  }

  /** The queue's depth and its work in process, by controller, read at each scrape. */
  collectQueue(queue: WorkQueue, controllers: readonly string[], controllerOf: (key: string) => string | undefined): void {
    const depth = new Map<string, number>(controllers.map((c) => [c, 0]));
    let all = 0;
    for (const key of queue.pending()) {
      const controller = controllerOf(key);
      if (controller) depth.set(controller, (depth.get(controller) ?? 0) + 1);
      all++;
    }
    const now = Date.now();
    const unfinished = new Map<string, number>(controllers.map((c) => [c, 0]));
    const longest = new Map<string, number>(controllers.map((c) => [c, 0]));
    for (const [key, since] of queue.inProcess()) {
      const controller = controllerOf(key);
      if (!controller) continue;
      const seconds = (now - since) / 1000;
      unfinished.set(controller, (unfinished.get(controller) ?? 0) + seconds);
      longest.set(controller, Math.max(longest.get(controller) ?? 0, seconds));
    }
    this.own.depth.set(undefined, all);
    for (const [controller, n] of depth) this.queue.depth.set({ name: controller, controller, priority: '' }, n);
    for (const [controller, s] of unfinished) this.queue.unfinished.set({ name: controller, controller }, s);
    for (const [controller, s] of longest) this.queue.longest.set({ name: controller, controller }, s);
  }
}
