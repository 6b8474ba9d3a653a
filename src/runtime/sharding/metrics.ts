import { Metrics } from '../metrics';

/** The sharding series: what this replica serves and hands over, and (on the leader) what the sharder does. */
export class ShardMetrics {
  private readonly memberGauge;
  private readonly assignments;
  private readonly handovers;

  constructor(registry: Metrics, shard: string, objects: () => number) {
    const served = registry.gauge(registry.named('shard_objects'), 'Objects this replica serves, by its shard.', ['shard']);
    registry.onCollect(() => served.set({ shard }, objects()));
    this.memberGauge = registry.gauge(registry.named('shard_members'), 'Live shard members, as the leader (the sharder) sees them; 0 on other replicas.');
    this.memberGauge.set(undefined, 0);
    this.assignments = registry.counter(registry.named('shard_assignments_total'), 'Labels the sharder wrote: assign (an object labelled for its shard) or drain (an object asked to leave its shard).', ['action']);
    this.handovers = registry.counter(registry.named('shard_handovers_total'), 'Objects this replica handed over (drained: stopped and unlabelled) or took over (adopted: its children relabelled).', ['shard', 'direction']);
    for (const action of ['assign', 'drain']) this.assignments.inc({ action }, 0);
    for (const direction of ['drained', 'adopted']) this.handovers.inc({ shard, direction }, 0);
    this.shard = shard;
  }

  private readonly shard: string;

  members(count: number): void {
    this.memberGauge.set(undefined, count);
  }

  assigned(action: 'assign' | 'drain'): void {
    this.assignments.inc({ action });
  }

  handedOver(direction: 'drained' | 'adopted'): void {
    this.handovers.inc({ shard: this.shard, direction });
  }
}
