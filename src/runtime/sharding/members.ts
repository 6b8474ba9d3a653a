import { ENGINE_DOMAIN } from '../../core/install/identity';
import type { KubeJson } from '../../core/contract/kube-json';
import { labelValue } from '../../core/kit/names';
import { LEASES, resourcePath } from '../../kube/paths';
import { KubeRest } from '../../kube/rest';
import { Informer } from '../informer';
import { Logger } from '../log';
import { labelsOf, SHARD_LABEL } from './labels';

/** On every member Lease: which ring (the leader Lease's name) it belongs to, so one label selector lists the ring. */
export const RING_LABEL = `${ENGINE_DOMAIN}/shard-ring`;

type Lease = KubeJson & { spec?: { holderIdentity?: string; renewTime?: string; leaseDurationSeconds?: number } };

/** A replica's shard name: its identity as a label value (lower case, at most 63 characters). */
export function shardName(identity: string): string {
  return labelValue(identity.toLowerCase().replace(/[^a-z0-9.-]+/g, '-').replace(/^[^a-z0-9]+|[^a-z0-9]+$/g, '') || 'replica');
}

/** The name of a replica's own membership Lease. */
export function memberLeaseName(ring: string, shard: string): string {
  return `${ring}-shard-${shard}`.slice(0, 253).replace(/[-.]+$/, '');
}

/**
 * The live members of a ring as one observer sees them: a member Lease is live while it has a
 * holder and its renewTime changed within its lease duration on this process's own monotonic
 * clock (as the leader election judges expiry, so clock skew between nodes cannot make a dead
 * member look live or the reverse). A freshly started observer so counts every Lease as live
 * for one lease duration: a member that died just before waits that long to be replaced.
 */
export class MemberView {
  private readonly informer: Informer<Lease>;
  private readonly seen = new Map<string, { renewTime?: string; at: number }>();
  private timer?: NodeJS.Timeout;
  private last = '';
  private readonly path: string;

  constructor(
    private readonly rest: KubeRest,
    private readonly options: { namespace: string; ring: string; checkEveryMs: number },
    private readonly onChange: (members: readonly string[]) => void,
    private readonly log: Logger,
  ) {
    this.path = resourcePath(LEASES, { namespace: options.namespace });
    this.informer = new Informer<Lease>(rest, { path: this.path, labelSelector: `${RING_LABEL}=${options.ring}` }, log);
    this.informer.on(() => this.check());
  }

  get hasSynced(): boolean {
    return this.informer.hasSynced;
  }

  start(): void {
    this.informer.start();
    this.timer = setInterval(() => this.check(), this.options.checkEveryMs);
  }

  stop(): void {
    clearInterval(this.timer);
    this.informer.stop();
  }

  /** The live members' shard names, sorted. */
  live(): string[] {
    const now = performance.now();
    const live: string[] = [];
    for (const [key, lease] of this.informer.cache) {
      const spec = lease.spec ?? {};
      const previous = this.seen.get(key);
      if (previous?.renewTime !== spec.renewTime) this.seen.set(key, { renewTime: spec.renewTime, at: now });
      const since = now - this.seen.get(key)!.at;
      const shard = labelsOf(lease)[SHARD_LABEL];
      if (shard && spec.holderIdentity && since < (spec.leaseDurationSeconds ?? 15) * 1000) live.push(shard);
    }
    for (const key of this.seen.keys()) if (!this.informer.cache.has(key)) this.seen.delete(key);
    return [...new Set(live)].sort();
  }

  /** Member Leases that are not live (expired or released), for clean-up. */
  dead(): Lease[] {
    const live = new Set(this.live());
    return [...this.informer.cache.values()].filter((lease) => !live.has(labelsOf(lease)[SHARD_LABEL] ?? ''));
  }

  private check(): void {
    if (!this.informer.hasSynced) return;
    const members = this.live();
    const now = members.join(',');
    if (now === this.last) return;
    this.last = now;
    this.onChange(members);
    void this.removeDead();
  }

  /** Deletes the Leases of members that are gone (a killed Pod leaves its Lease behind), unless one was renewed meanwhile. */
  private async removeDead(): Promise<void> {
    for (const lease of this.dead()) {
      try {
        await this.rest.request('DELETE', `${this.path}/${encodeURIComponent(lease.metadata.name)}`, { body: { preconditions: { resourceVersion: lease.metadata.resourceVersion } } });
        this.log.info('removed the Lease of a shard member that is gone', { lease: lease.metadata.name });
      } catch (err) {
        this.log.debug('did not remove a member Lease', { lease: lease.metadata.name, error: err as Error });
      }
    }
  }
}
