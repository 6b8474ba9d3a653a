import { KubeObject } from '../src/kube/objects';
import { KubeRest } from '../src/kube/rest';
import { Informer } from '../src/runtime/informer';
import { createLogger } from '../src/runtime/log';

/**
 * The objects of one collection for which a condition holds, kept current by a watch: the
 * benchmark must not load the API server it measures with LISTs of thousands of objects.
 */
export class Watched<T extends KubeObject> {
  private readonly informer: Informer<T>;
  private readonly matching = new Set<string>();
  private notify?: () => void;

  constructor(rest: KubeRest, path: string, holds: (object: T) => boolean, labelSelector?: string) {
    this.informer = new Informer<T>(rest, { path, labelSelector }, createLogger({ level: 'error', write: (line) => void process.stderr.write(`${line}\n`) }));
    this.informer.on((type, object) => {
      if (type !== 'deleted' && holds(object)) this.matching.add(object.metadata.name);
      else this.matching.delete(object.metadata.name);
      this.notify?.();
    });
  }

  async start(): Promise<void> {
    this.informer.start();
    await this.informer.waitForSync(60_000);
  }

  stop(): void {
    this.informer.stop();
  }

  /** The objects as last seen. */
  items(): T[] {
    return [...this.informer.cache.values()];
  }

  /** How many exist, and for how many the condition holds. */
  get counts(): { exist: number; matching: number } {
    return { exist: this.informer.cache.size, matching: this.matching.size };
  }

  /**
   * Resolves the moment exactly `count` objects exist and the condition holds for all of them.
   * `check` runs every second (it may throw to give up, e.g. when the controller died).
   */
  async until(what: string, count: number, timeoutMs: number, check: () => void): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    let timer: NodeJS.Timeout | undefined;
    try {
      await new Promise<void>((resolve, reject) => {
        this.notify = () => {
          if (this.matching.size === count && this.informer.cache.size === count) resolve();
        };
        timer = setInterval(() => {
          try {
            check();
            if (performance.now() > deadline) throw new Error(`timed out after ${Math.round(timeoutMs / 1000)} s waiting for ${what}`);
          } catch (err) {
            reject(err as Error);
          }
        }, 1000);
        this.notify();
      });
    } finally {
      clearInterval(timer);
      this.notify = undefined;
    }
  }
}
