import { ObjectClient } from '../../src/kube/objects';
import { restartExited, restartProcess } from '../../src/testing/controlplane/controlplane';
import { FakeRateProvider } from '../../test/support/rate-provider';
import { FAIL_LABEL } from '../../src/testing/controlplane/kwok-stages';
import { NS } from './cluster';
import { History } from './history';
import { FaultProxy } from '../../test/support/fault-proxy-server';
import { Replicas } from './replicas';
import { Rng } from './rng';

export const FAULT_TYPES = [
  'controller-kill',
  'leader-kill',
  'apiserver-restart',
  'etcd-restart',
  'watch-cut',
  'watch-gone',
  'api-slow',
  'api-429',
  'api-5xx',
  'rate-down',
  'rate-slow',
  'rate-garbage',
  'database-pods-fail',
  'database-jobs-fail',
] as const;
export type FaultType = (typeof FAULT_TYPES)[number];

/** Faults that act on one thing (the control plane, the replicas, the proxy, the provider, the pods) never overlap each other; the rest combine freely. */
const GROUP: Record<FaultType, string> = {
  'controller-kill': 'replicas',
  'leader-kill': 'replicas',
  'apiserver-restart': 'plane',
  'etcd-restart': 'plane',
  'watch-cut': 'cut',
  'watch-gone': 'proxy',
  'api-slow': 'proxy',
  'api-429': 'proxy',
  'api-5xx': 'proxy',
  'rate-down': 'provider',
  'rate-slow': 'provider',
  'rate-garbage': 'provider',
  'database-pods-fail': 'pods',
  'database-jobs-fail': 'jobs',
};

export interface FaultRecord {
  readonly type: FaultType;
  readonly at: number;
  seconds?: number;
  detail: string;
  skipped?: boolean;
}

export interface FaultContext {
  readonly dir: string;
  readonly objects: ObjectClient;
  readonly provider: FakeRateProvider;
  readonly proxy: FaultProxy;
  readonly replicas: Replicas;
  readonly failStage: boolean;
  readonly leaseName: string;
}

type Pod = { metadata: { name: string; labels?: Record<string, string>; ownerReferences?: { kind: string; name: string }[] }; status?: { phase?: string } };
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Injects faults at random times and in random combinations, each recorded with its time and how long it lasted. */
export class Faults {
  readonly records: FaultRecord[] = [];
  private readonly busy = new Set<string>();
  private readonly running = new Set<Promise<void>>();

  constructor(
    private readonly ctx: FaultContext,
    private readonly rng: Rng,
    private readonly history: History,
  ) {}

  /** Whether the API server or etcd is stopped now (or being started again). */
  get planeDown(): boolean {
    return this.busy.has('plane');
  }

  /** Starts one random fault (unless its group is busy) and returns at once; it heals itself. */
  inject(): void {
    const type = this.rng.pick(FAULT_TYPES);
    if (this.busy.has(GROUP[type])) return;
    const record: FaultRecord = { type, at: this.history.seconds(), detail: '' };
    this.records.push(record);
    this.busy.add(GROUP[type]);
    const started = Date.now();
    const run = this.run(type, record)
      .catch((err: Error) => void (record.detail += ` (failed: ${err.message.split('\n')[0].slice(0, 200)})`))
      .finally(() => {
        record.seconds = Math.round((Date.now() - started) / 100) / 10;
        this.busy.delete(GROUP[type]);
        this.running.delete(run);
        this.history.add('fault', `${type} over after ${record.seconds} s${record.detail ? `: ${record.detail}` : ''}`);
      });
    this.running.add(run);
  }

  /** Waits for the faults under way to heal, then makes sure everything is healthy again. */
  async healAll(): Promise<void> {
    await Promise.all([...this.running]);
    this.ctx.proxy.set({ kind: 'none' });
    this.ctx.provider.setMode('ok');
    this.ctx.replicas.startAll();
  }

  /**
   * Starts again the control-plane processes that exited on their own (never one a fault has
   * down now), as the node's supervisor would: one dead for good (the scheduler, in the first
   * hour-long run) would stop every new Pod and fail the soak for a reason of the rig's.
   */
  superviseControlPlane(): { name: string; logTail: string }[] {
    return this.busy.has(GROUP['apiserver-restart']) ? [] : restartExited(this.ctx.dir);
  }

  private async run(type: FaultType, record: FaultRecord): Promise<void> {
    const { proxy, provider, replicas } = this.ctx;
    const seconds = (min: number, max: number) => this.rng.int(min, max) * 1000;
    const begin = (detail: string) => {
      record.detail = detail;
      this.history.add('fault', `${type} begins: ${detail}`);
    };
    switch (type) {
      case 'controller-kill': {
        const name = this.rng.pick(replicas.names);
        const down = seconds(1, 10);
        begin(`SIGKILL ${name}, restarted after ${down / 1000} s`);
        await replicas.kill(name);
        await sleep(down);
        return replicas.start(name);
      }
      case 'leader-kill': {
        const leader = await this.leader();
        if (!leader || !replicas.isRunning(leader)) return void begin(`no running leader to kill (lease holder: ${leader ?? 'none'})`);
        const down = seconds(5, 25);
        begin(`SIGKILL the leader ${leader}, restarted after ${down / 1000} s`);
        await replicas.kill(leader);
        await sleep(down);
        return replicas.start(leader);
      }
      case 'apiserver-restart':
      case 'etcd-restart': {
        const name = type === 'etcd-restart' ? 'etcd' : 'kube-apiserver';
        const down = seconds(1, 5);
        begin(`${name} stopped for ${down / 1000} s, then started again`);
        return restartProcess(this.ctx.dir, name, () => sleep(down));
      }
      case 'watch-cut':
        return void begin(`cut ${proxy.cutWatches()} watches mid-stream`);
      case 'watch-gone': {
        const long = seconds(3, 10);
        begin(`every watch answered 410 Gone for ${long / 1000} s`);
        proxy.set({ kind: 'gone' });
        proxy.cutWatches();
        return this.hold(long, () => proxy.set({ kind: 'none' }));
      }
      case 'api-slow': {
        const delayMs = this.rng.int(200, 2000);
        const long = seconds(10, 40);
        begin(`every request ${delayMs} ms slower for ${long / 1000} s`);
        proxy.set({ kind: 'slow', delayMs });
        return this.hold(long, () => proxy.set({ kind: 'none' }));
      }
      case 'api-429':
      case 'api-5xx': {
        const share = this.rng.int(20, 80) / 100;
        const long = seconds(10, 40);
        begin(`${Math.round(share * 100)} % of requests answered ${type === 'api-429' ? '429' : '500/503'} for ${long / 1000} s`);
        proxy.set(type === 'api-429' ? { kind: 'throttle', share } : { kind: 'error', share });
        return this.hold(long, () => proxy.set({ kind: 'none' }));
      }
      case 'rate-down':
      case 'rate-slow':
      case 'rate-garbage': {
        const long = seconds(10, 60);
        const mode = type === 'rate-down' ? 'error500' : type === 'rate-slow' ? 'slow' : 'garbage';
        begin(`the rate provider ${mode} for ${long / 1000} s`);
        provider.setMode(mode, { delayMs: 5000 });
        return this.hold(long, () => provider.setMode('ok'));
      }
      case 'database-pods-fail':
        if (!this.ctx.failStage) return this.skip(record, 'the control plane\u2019s kwok has no stage failing pods by label');
        return void begin(`failed ${await this.failPods((p) => p.metadata.ownerReferences?.some((o) => o.kind === 'StatefulSet') ?? false)} Database server pods`);
      case 'database-jobs-fail': {
        if (!this.ctx.failStage) return this.skip(record, 'the control plane\u2019s kwok has no stage failing pods by label');
        const long = seconds(20, 90);
        begin(`every Database Job pod failed as it appears, for ${long / 1000} s`);
        const until = Date.now() + long;
        let failed = 0;
        while (Date.now() < until) {
          failed += await this.failPods((p) => p.metadata.ownerReferences?.some((o) => o.kind === 'Job') ?? false).catch(() => 0);
          await sleep(500);
        }
        record.detail += ` (${failed} pods failed)`;
        return;
      }
    }
  }

  private async hold(ms: number, heal: () => void): Promise<void> {
    await sleep(ms);
    heal();
  }

  private skip(record: FaultRecord, why: string): void {
    record.skipped = true;
    record.detail = `skipped: ${why}`;
  }

  private async leader(): Promise<string | undefined> {
    const path = `/apis/coordination.k8s.io/v1/namespaces/${NS.controller}/leases/${this.ctx.leaseName}`;
    const lease = await this.ctx.objects.rest.request<{ spec?: { holderIdentity?: string } }>('GET', path).catch(() => undefined);
    return lease?.spec?.holderIdentity;
  }

  /** Labels the Database namespace's running pods that `which` picks with FAIL_LABEL: kwok's stage turns them Failed. */
  private async failPods(which: (p: Pod) => boolean): Promise<number> {
    const path = `/api/v1/namespaces/${NS.databases}/pods`;
    const pods = (await this.ctx.objects.rest.request<{ items: Pod[] }>('GET', path)).items;
    const targets = pods.filter((p) => which(p) && p.metadata.labels?.[FAIL_LABEL] !== 'true' && p.status?.phase !== 'Failed' && p.status?.phase !== 'Succeeded');
    for (const pod of targets) {
      await this.ctx.objects.rest.request('PATCH', `${path}/${pod.metadata.name}`, { body: { metadata: { labels: { [FAIL_LABEL]: 'true' } } }, contentType: 'application/merge-patch+json' });
    }
    return targets.length;
  }
}
