import type { KubeJson } from '../core/contract/kube-json';
import { LEASES, resourcePath } from '../kube/paths';
import { microTime } from '../kube/time';
import { isNotFound, KubeError, KubeRest } from '../kube/rest';
import { Logger } from './log';

export interface LeaderElectionOptions {
  /** Where the Lease lives, usually the controller's own namespace. */
  readonly namespace: string;
  /** The Lease every replica competes for. */
  readonly leaseName: string;
  /** Unique per replica, e.g. the pod name: the Lease's holderIdentity. */
  readonly identity: string;
  /** How long a Lease that is not renewed stays held, in whole seconds. Default: 15. */
  readonly leaseDurationSeconds?: number;
  /** How long the leader keeps leading while its renewals fail; must be less than the lease duration. Default: 10. */
  readonly renewDeadlineSeconds?: number;
  /** How often to try to acquire or renew; must be less than the renew deadline. Default: 2. */
  readonly retryPeriodSeconds?: number;
  /** Labels the Lease carries, so that a set of Leases can be listed (see sharding/members.ts). Default: none. */
  readonly labels?: Readonly<Record<string, string>>;
}

export interface LeaderCallbacks {
  readonly onStartedLeading: () => void;
  readonly onStoppedLeading: () => void;
}

interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

type Lease = KubeJson & { spec?: LeaseSpec };

/** What one attempt found: we hold the Lease, another live holder does, or our write lost a race. */
type Outcome = 'holding' | 'held-by-other' | 'lost-race';

/**
 * Leader election on a coordination.k8s.io/v1 Lease, as client-go's leaderelection does it, so
 * only one replica reconciles at a time. Every write carries the resourceVersion that was read,
 * so of two replicas racing for the Lease exactly one wins (the other gets 409).
 *
 * Expiry is judged on this process's own monotonic clock: a Lease whose renewTime has not changed
 * for leaseDurationSeconds since we first saw that renewTime is taken over. Comparing the holder's
 * renewTime with our wall clock instead would let clock skew between nodes make two leaders.
 */
export class LeaderElector {
  private readonly leaseMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryMs: number;
  private readonly path: string;
  private readonly log: Logger;
  private callbacks?: LeaderCallbacks;
  private leading = false;
  /** Whether our last write of the Lease succeeded, i.e. it may still name us: stop() then releases it. */
  private holds = false;
  /** performance.now() when the last successful acquire or renew was sent. */
  private lastRenewal = 0;
  /** The holder and renewTime we last saw, and performance.now() when we first saw them. */
  private observed?: { holder: string; renewTime?: string; at: number };
  private loop?: Promise<void>;
  private stopping?: Promise<void>;
  private wake?: () => void;

  constructor(
    private readonly rest: KubeRest,
    private readonly options: LeaderElectionOptions,
    log: Logger,
  ) {
    const lease = options.leaseDurationSeconds ?? 15;
    const renew = options.renewDeadlineSeconds ?? 10;
    const retry = options.retryPeriodSeconds ?? 2;
    for (const field of ['namespace', 'leaseName', 'identity'] as const) {
      if (!options[field]) throw new Error(`leader election: ${field} must not be empty`);
    }
    if (!Number.isInteger(lease) || lease < 1) throw new Error(`leader election: leaseDurationSeconds must be a whole number of seconds >= 1, got ${lease}`);
    // As client-go requires: the leader must give up before its Lease can expire, and must retry several times before giving up.
    if (!(renew > 0 && renew < lease)) throw new Error(`leader election: renewDeadlineSeconds must be > 0 and less than leaseDurationSeconds (${lease}), got ${renew}`);
    if (!(retry > 0 && retry * 1.2 < renew)) throw new Error(`leader election: retryPeriodSeconds must be > 0 and 1.2 times it less than renewDeadlineSeconds (${renew}), got ${retry}`);
    this.leaseMs = lease * 1000;
    this.renewDeadlineMs = renew * 1000;
    this.retryMs = retry * 1000;
    this.path = resourcePath(LEASES, { namespace: options.namespace, name: options.leaseName });
    this.log = log.child({ lease: `${options.namespace}/${options.leaseName}`, identity: options.identity });
  }

  /** Starts competing for the Lease in the background; API errors are logged and retried, never thrown. */
  run(callbacks: LeaderCallbacks): void {
    if (this.loop || this.stopping) {
      this.log.warn('leader election is already running or was stopped; run() ignored');
      return;
    }
    this.callbacks = callbacks;
    this.loop = this.compete();
  }

  /**
   * False from the moment stop() is called, and once the renew deadline has passed without a
   * renewal even before the loop notices (say, the event loop was blocked): by then another
   * replica may be about to take over. So it can turn false shortly before onStoppedLeading runs.
   */
  isLeader(): boolean {
    return this.leading && !this.stopping && performance.now() - this.lastRenewal < this.renewDeadlineMs;
  }

  /**
   * Stops competing. If leading, first stops claiming leadership (isLeader() is false from here),
   * then releases the Lease so a successor takes over at once, then calls onStoppedLeading.
   * `release: false` keeps the Lease held until it expires, as a crashed replica would.
   * Stop the work that needs leadership before calling this: a successor may start as soon as the Lease is released.
   */
  stop(options: { release?: boolean } = {}): Promise<void> {
    this.stopping ??= (async () => {
      this.wake?.();
      await this.loop;
      const wasLeading = this.leading;
      this.leading = false;
      if (this.holds && (options.release ?? true)) await this.release();
      if (!wasLeading) return;
      this.log.info('stopped leading', { reason: 'stop() was called' });
      this.notify('onStoppedLeading');
    })();
    return this.stopping;
  }

  private async compete(): Promise<void> {
    while (!this.stopping) {
      await this.attempt();
      if (this.stopping) break;
      // Candidates jitter so replicas started together do not retry in lockstep; the leader renews on the beat.
      await this.sleep(this.leading ? this.retryMs : this.retryMs * (1 + 0.2 * Math.random()));
    }
  }

  private async attempt(): Promise<void> {
    const sent = performance.now();
    try {
      const outcome = await this.tryAcquireOrRenew();
      if (outcome === 'holding') {
        this.lastRenewal = sent;
        this.holds = true;
        // An attempt that wins while stop() waits for it only leaves a Lease to release, not a leadership to start.
        if (!this.leading && !this.stopping) {
          this.leading = true;
          this.log.info('started leading');
          this.notify('onStartedLeading');
        }
      }
    } catch (err) {
      this.log.warn('cannot read or write the lease; will retry', { error: err, retryPeriodSeconds: this.retryMs / 1000 });
    }
    if (this.leading && performance.now() - this.lastRenewal >= this.renewDeadlineMs) {
      this.stopLeading(`the lease was not renewed within the renew deadline of ${this.renewDeadlineMs / 1000} s`);
    }
  }

  private async tryAcquireOrRenew(): Promise<Outcome> {
    const now = microTime(new Date());
    const { identity } = this.options;
    let lease: Lease;
    try {
      lease = await this.rest.request<Lease>('GET', this.path, { timeoutMs: this.renewDeadlineMs });
    } catch (err) {
      if (!isNotFound(err)) throw err;
      const created: Lease = {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: this.options.leaseName, namespace: this.options.namespace, ...(this.options.labels ? { labels: { ...this.options.labels } } : {}) },
        spec: { holderIdentity: identity, leaseDurationSeconds: this.leaseMs / 1000, acquireTime: now, renewTime: now, leaseTransitions: 0 },
      };
      return this.write('POST', this.path.slice(0, this.path.lastIndexOf('/')), created);
    }
    const spec = lease.spec ?? {};
    const holder = spec.holderIdentity ?? '';
    this.observe(holder, spec.renewTime);
    // Someone else wrote the Lease while we thought we led: our leadership ended then, whatever happens next.
    if (this.leading && holder !== identity) this.stopLeading(holder ? `the lease is now held by ${holder}` : 'the lease was released by someone else');
    if (holder !== identity) this.holds = false;
    if (holder && holder !== identity && !this.expired(spec)) return 'held-by-other';
    const takeover = holder !== identity;
    if (takeover) this.log.info(holder ? 'taking over the expired lease' : 'acquiring the free lease', { previousHolder: holder || undefined });
    if (this.options.labels) lease.metadata.labels = { ...lease.metadata.labels, ...this.options.labels };
    lease.spec = {
      ...spec,
      holderIdentity: identity,
      leaseDurationSeconds: this.leaseMs / 1000,
      acquireTime: takeover ? now : (spec.acquireTime ?? now),
      renewTime: now,
      leaseTransitions: (spec.leaseTransitions ?? 0) + (takeover ? 1 : 0),
    };
    return this.write('PUT', this.path, lease);
  }

  /** A write that lost a race (409: the Lease exists already, or changed since we read it) is an attempt lost, not an error. */
  private async write(method: 'POST' | 'PUT', path: string, lease: Lease): Promise<Outcome> {
    try {
      await this.rest.request(method, path, { body: lease, timeoutMs: this.renewDeadlineMs });
    } catch (err) {
      if (err instanceof KubeError && err.code === 409) return 'lost-race';
      throw err;
    }
    this.observe(this.options.identity, lease.spec!.renewTime);
    return 'holding';
  }

  private observe(holder: string, renewTime: string | undefined): void {
    if (this.observed?.holder !== holder || this.observed.renewTime !== renewTime) this.observed = { holder, renewTime, at: performance.now() };
  }

  /** The holder's own lease duration counts, as it promised to renew within it. */
  private expired(spec: LeaseSpec): boolean {
    const seconds = spec.leaseDurationSeconds && spec.leaseDurationSeconds > 0 ? spec.leaseDurationSeconds : this.leaseMs / 1000;
    return performance.now() - this.observed!.at >= seconds * 1000;
  }

  /** Clears holderIdentity (as client-go's ReleaseOnCancel does), unless someone else holds the Lease by now. */
  private async release(): Promise<void> {
    try {
      const lease = await this.rest.request<Lease>('GET', this.path, { timeoutMs: this.renewDeadlineMs });
      if (lease.spec?.holderIdentity !== this.options.identity) return;
      const now = microTime(new Date());
      const { holderIdentity: _, ...rest } = lease.spec;
      lease.spec = { ...rest, leaseDurationSeconds: 1, acquireTime: now, renewTime: now };
      await this.rest.request('PUT', this.path, { body: lease, timeoutMs: this.renewDeadlineMs });
      this.log.info('released the lease');
    } catch (err) {
      this.log.warn('cannot release the lease; a successor takes over when it expires', { error: err });
    }
  }

  private stopLeading(reason: string): void {
    if (!this.leading) return;
    this.leading = false;
    this.log.warn('stopped leading', { reason });
    this.notify('onStoppedLeading');
  }

  /** A throwing callback is logged: it must not end the election loop, which would leave the Lease held. */
  private notify(callback: keyof LeaderCallbacks): void {
    try {
      this.callbacks?.[callback]();
    } catch (err) {
      this.log.error(`${callback} threw`, { error: err });
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
    });
  }
}
