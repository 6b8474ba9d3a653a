import { KubeRest } from '../../kube/rest';
import { LeaderCallbacks, LeaderElector } from '../leader';
import { Logger } from '../log';
import { Metrics } from '../metrics';
import { SHARD_LABEL } from './labels';
import { memberLeaseName, MemberView, RING_LABEL, shardName } from './members';
import { ShardMetrics } from './metrics';
import { Shard } from './shard';
import { Sharder } from './sharder';

/** How often the leader looks for members whose Lease expired: the leader election's retry period. */
const CHECK_EVERY_MS = 2000;

/**
 * Everything `--sharding` adds to a replica: its membership Lease (held with the leader
 * election's own timing rules: 15 s lease, 10 s renew deadline, 2 s retries), its shard, and
 * the sharder with its view of the members, which run while this replica leads.
 */
export class Sharding {
  readonly shard: Shard;
  readonly sharder: Sharder;
  private readonly membership: LeaderElector;
  private readonly view: MemberView;

  constructor(rest: KubeRest, options: { identity: string; namespace: string; ring: string; served: () => number }, metrics: Metrics, log: Logger) {
    const name = shardName(options.identity);
    const shardMetrics = new ShardMetrics(metrics, name, options.served);
    const shardLog = log.child({ component: 'sharding', shard: name });
    this.shard = new Shard(rest, name, shardMetrics, shardLog);
    this.sharder = new Sharder(rest, shardLog.child({ role: 'sharder' }), shardMetrics);
    this.membership = new LeaderElector(
      rest,
      { namespace: options.namespace, leaseName: memberLeaseName(options.ring, name), identity: options.identity, labels: { [RING_LABEL]: options.ring, [SHARD_LABEL]: name } },
      shardLog,
    );
    this.view = new MemberView(rest, { namespace: options.namespace, ring: options.ring, checkEveryMs: CHECK_EVERY_MS }, (members) => this.sharder.membersChanged(members), shardLog);
  }

  /** Takes part once the membership Lease is held; its loss (the renew deadline passed) must stop the replica, as lost leadership does. */
  join(callbacks: LeaderCallbacks): void {
    this.membership.run(callbacks);
  }

  /** False once the membership Lease was not renewed within the renew deadline: the leader may soon hand our objects on. */
  isMember(): boolean {
    return this.membership.isLeader();
  }

  lead(): void {
    this.view.start();
    this.sharder.lead();
  }

  stopLeading(): void {
    this.sharder.stop();
    this.view.stop();
  }

  /** Releases the membership Lease: call after the work stopped. */
  async stop(): Promise<void> {
    this.shard.stop();
    await this.membership.stop();
  }
}
