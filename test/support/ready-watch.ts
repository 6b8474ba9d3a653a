import { KubeObject, objectKey } from '../../src/kube/objects';
import { KubeRest } from '../../src/kube/rest';
import { Informer } from '../../src/runtime/informer';
import { createLogger } from '../../src/runtime/log';

type Condition = { type: string; status: string; reason?: string; message?: string };
type Watched = KubeObject & { status?: { conditions?: Condition[] } };

/** One status seen of one object: its Ready condition's status ('absent' when it has none), or its deletion. */
export interface SeenStatus {
  readonly at: number;
  readonly resourceVersion?: string;
  readonly ready: string;
  readonly reason?: string;
}

/**
 * Watches collections (list+watch, started over after any error as the controller's own
 * informer is) and records every status of every object seen, from its first one on: the
 * witness that objects stay Ready while something else happens (an upgrade, a fault).
 */
export class ReadyWatch {
  /** Per object (`<collection path> <namespace>/<name>`), every Ready status in the order seen. */
  readonly seen = new Map<string, SeenStatus[]>();
  /** How often a list+watch failed and started over (e.g. while a conversion webhook was down). */
  restarts = 0;
  private readonly informers: Informer<Watched>[];

  constructor(rest: KubeRest, paths: readonly string[]) {
    const log = createLogger({ level: 'error' });
    this.informers = paths.map((path) => {
      // Short watches: a watch the API server closes (a CRD changed) is renewed at once anyway.
      const informer = new Informer<Watched>(rest, { path, watchSeconds: 60, onRestart: () => this.restarts++ }, log);
      informer.on((type, object) => this.record(`${path} ${objectKey(object)}`, type === 'deleted' ? { at: Date.now(), ready: 'deleted' } : statusOf(object)));
      return informer;
    });
  }

  async start(timeoutMs = 30_000): Promise<void> {
    for (const informer of this.informers) informer.start();
    await Promise.all(this.informers.map((informer) => informer.waitForSync(timeoutMs)));
  }

  stop(): void {
    for (const informer of this.informers) informer.stop();
  }

  /** The objects whose last status seen is Ready=True. */
  readyNow(): string[] {
    return [...this.seen].filter(([, statuses]) => statuses.at(-1)?.ready === 'True').map(([key]) => key);
  }

  /** Every status not Ready=True seen after the object's first Ready=True, named: what must stay empty. */
  lapses(): string[] {
    const found: string[] = [];
    for (const [key, statuses] of this.seen) {
      const first = statuses.findIndex((s) => s.ready === 'True');
      if (first < 0) continue;
      for (const s of statuses.slice(first + 1)) {
        if (s.ready !== 'True') found.push(`${key} at ${new Date(s.at).toISOString()} (resourceVersion ${s.resourceVersion}): Ready ${s.ready}${s.reason ? ` (${s.reason})` : ''}`);
      }
    }
    return found;
  }

  private record(key: string, status: SeenStatus): void {
    const statuses = this.seen.get(key) ?? [];
    statuses.push(status);
    this.seen.set(key, statuses);
  }
}

function statusOf(object: Watched): SeenStatus {
  const ready = object.status?.conditions?.find((c) => c.type === 'Ready');
  return { at: Date.now(), resourceVersion: object.metadata.resourceVersion, ready: ready?.status ?? 'absent', reason: ready?.reason };
}
