import { crdName, isExtraIdentity, servedIdentities } from '../core/groups';
import { SYSTEM_CLOCK } from '../core/contract/clock';
import { AnyKind, Clock } from '../core/contract/kind';
import { OperatorNames } from '../core/install/identity';
import { CRDS_PATH } from '../kube/discovery';
import { ObjectClient } from '../kube/objects';
import { isNotFound, KubeRest } from '../kube/rest';
import { WATCH_RESTARTS } from './informer';
import { KindServer, KindQueue } from './kind-server';
import { Logger } from './log';
import { controllerName, EngineMetrics } from './engine-metrics';
import { Metrics } from './metrics';
import { ObjectMetrics } from './object-metrics';
import { WorkQueue } from './queue';
import { itemKey, parseItemKey, queueItem } from './queue-item';
import { WatchRestarts } from './watch-restarts';
import { runWorker } from './workers';
import type { Shard } from './sharding/shard';
import type { Sharder } from './sharding/sharder';

export interface ControllerSettings {
  /** Whose controller: its field manager and Events' reportingController are the operator's. */
  readonly operator: OperatorNames;
  readonly kinds: readonly AnyKind[];
  /** Serve only these namespaces' objects; all when empty. */
  readonly namespaces: readonly string[];
  readonly workers: number;
  readonly resyncMs: number;
  /** The parsed values of every kind's options. */
  readonly kindOptions: Readonly<Record<string, unknown>>;
  /** This replica's name in Events and logs. */
  readonly identity: string;
  /** Extra groups of the kinds not to serve, by CRD name (`<plural>.<group>`); none by default. */
  readonly withoutExtraGroups?: readonly string[];
  /** Sharding: this replica serves only the objects labelled for its shard; the sharder (run by the leader) labels them. */
  readonly sharding?: { readonly shard: Shard; readonly sharder: Sharder };
  /** What time it is, for the kinds' hooks; the real time by default (a test sets another). */
  readonly clock?: Clock;
  /** False while this replica may not start a reconcile (its shard membership lapsed): work waits (see WorkerSettings.mayWork). */
  readonly mayWork?: () => boolean;
}

/**
 * The generic engine: a kind server for each kind in each of its groups (see servedIdentities),
 * started once that group's CRD is established, and one pool of workers for them all, fed by one
 * queue whose items name the group.
 */
export class Controller {
  private readonly queue: WorkQueue;
  /** Each kind server by its group's CRD name, from its start on. */
  private readonly servers = new Map<string, KindServer>();
  /** The kind servers whose watches run: readiness waits for their caches, the stop ends them. */
  private readonly started: KindServer[] = [];
  private readonly objects: ObjectClient;
  private stopping = false;
  private readonly running: Promise<void>[] = [];
  private readonly metrics: EngineMetrics;
  private readonly watchRestarts: WatchRestarts;
  private readonly identities: AnyKind[];
  /** Stops the calls of a clock that jumps (see Clock.onJump). */
  private stopJumps?: () => void;

  constructor(
    private readonly rest: KubeRest,
    private readonly settings: ControllerSettings,
    private readonly log: Logger,
    registry: Metrics,
  ) {
    this.objects = new ObjectClient(rest, settings.operator.fieldManager);
    this.metrics = new EngineMetrics(registry, settings.kinds, settings.workers);
    const identitiesOf = (kind: AnyKind) => servedIdentities(kind, settings.withoutExtraGroups);
    this.identities = settings.kinds.flatMap(identitiesOf);
    // An item names its kind's group, in whichever group of its kind: its controller is its kind's.
    const controllers = new Map(this.identities.map((identity) => [crdName(identity), controllerName(identity)]));
    const controllerOf = (key: string) => controllers.get(parseItemKey(key).group);
    this.queue = new WorkQueue(undefined, this.metrics.queueHooks(controllerOf));
    new ObjectMetrics(registry, settings.kinds, (kind) => identitiesOf(kind).flatMap((identity) => this.servers.get(crdName(identity))?.servedOwners() ?? []));
    const restarts = registry.counter(registry.named('watch_restarts_total'), 'Watches started over other than by the server\u2019s routine timeout, by collection and why (expired, error, silent).', ['resource', 'reason']);
    this.watchRestarts = {
      // Every reason at 0 from the start, so that increase() sees the first restart.
      watching: (resource) => WATCH_RESTARTS.forEach((reason) => restarts.inc({ resource, reason }, 0)),
      restarted: (resource, why) => restarts.inc({ resource, reason: why }),
    };
    registry.onCollect(() => {
      this.metrics.collectQueue(this.queue, [...new Set(controllers.values())], controllerOf);
    });
  }

  /** How many objects this replica serves (those in its caches), for the shard's metrics. */
  servedObjects(): number {
    let count = 0;
    for (const server of this.servers.values()) count += server.servedOwners().length;
    return count;
  }

  /** Whether every kind whose CRD exists has a filled cache. */
  get synced(): boolean {
    return this.started.every((server) => server.hasSynced);
  }

  /** Starts every kind in each of its groups (each as soon as its CRD is established) and the workers; returns at once. */
  start(): void {
    for (const identity of this.identities) this.running.push(this.startKindUntilItWorks(identity));
    const worker = { queue: this.queue, serverOf: (group: string) => this.servers.get(group)!, metrics: this.metrics, log: this.log, mayWork: this.settings.mayWork };
    for (let i = 0; i < this.settings.workers; i++) this.running.push(runWorker(worker));
    this.stopJumps = this.settings.clock?.onJump?.(() => this.lookAgainAtEveryObject());
  }

  /** The clock jumped: every served object is reconciled now, which asks its wake time by the new time. */
  private lookAgainAtEveryObject(): void {
    for (const server of this.servers.values()) {
      for (const owner of server.servedOwners()) this.queue.add(itemKey(queueItem(server.group, owner.metadata)));
    }
  }

  /** Finishes the reconciles under way, then stops watching. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.stopJumps?.();
    this.queue.shutDown();
    await Promise.allSettled(this.running);
    await Promise.all(this.started.map((server) => server.stop()));
  }

  /** Starting needs the API server (discovery); if it is unreachable, try again rather than die. */
  private async startKindUntilItWorks(kind: AnyKind): Promise<void> {
    for (let attempt = 0; !this.stopping; attempt++) {
      try {
        return await this.startKind(kind);
      } catch (err) {
        const delay = Math.min(30_000, 1000 * 2 ** attempt);
        this.log.warn('could not start serving the kind; retrying', { kind: kind.kind, crd: crdName(kind), retryInMs: delay, error: err as Error });
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  }

  private async startKind(kind: AnyKind): Promise<void> {
    if (!(await this.waitForCrd(kind))) return;
    const queue: KindQueue = {
      add: (item) => this.queue.add(itemKey(item)),
      busy: (item) => this.queue.inProcess().has(itemKey(item)),
    };
    const { settings } = this;
    const server = new KindServer(kind, {
      rest: this.rest,
      objects: this.objects,
      namespaces: settings.namespaces,
      options: settings.kindOptions,
      identity: settings.identity,
      reportingController: settings.operator.reportingController,
      resyncMs: settings.resyncMs,
      clock: settings.clock ?? SYSTEM_CLOCK,
      sharding: settings.sharding,
      watchRestarts: this.watchRestarts,
      queue,
      log: this.log,
    });
    // Known before its watches start: their first events queue items a worker hands it.
    this.servers.set(server.group, server);
    await server.start();
    this.started.push(server);
  }

  /** The CRD is installed by GitOps, maybe after the controller starts: wait for it, saying why. */
  private async waitForCrd(kind: AnyKind): Promise<boolean> {
    const name = crdName(kind);
    const log = this.log.child({ kind: kind.kind, ...(isExtraIdentity(kind) ? { group: kind.group } : {}) });
    let waited = 0;
    while (!this.stopping) {
      try {
        const crd = await this.rest.request<{ status?: { conditions?: { type: string; status: string }[] } }>('GET', `${CRDS_PATH}/${name}`);
        if (crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')) return true;
        if (waited % 30 === 0) log.info('waiting for the CRD to become established', { crd: name });
      } catch (err) {
        if (waited % 30 === 0) log.info(isNotFound(err) ? 'waiting for the CRD to be installed' : 'cannot read the CRD yet', { crd: name, error: isNotFound(err) ? undefined : (err as Error) });
      }
      await new Promise((resolve) => setTimeout(resolve, 1000));
      waited++;
    }
    return false;
  }
}
