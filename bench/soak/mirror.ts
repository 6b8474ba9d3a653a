import * as k8s from '@kubernetes/client-node';
import { KubeObject } from '../../src/kube/objects';
import { KubeRest } from '../../src/kube/rest';

export type Json = KubeObject & { metadata: KubeObject['metadata'] & { resourceVersion?: string; uid?: string; generation?: number; deletionTimestamp?: string; labels?: Record<string, string>; annotations?: Record<string, string>; ownerReferences?: { uid: string; kind: string; name: string }[] }; spec?: any; status?: any; data?: Record<string, string>; message?: string; note?: string }; // eslint-disable-line @typescript-eslint/no-explicit-any
export type Change = 'ADDED' | 'MODIFIED' | 'DELETED';

export const keyOf = (o: Json) => `${o.metadata.namespace ?? ''}/${o.metadata.name}`;

/**
 * The checker's own copy of one resource (list, then watch from the list's version; list
 * again after any break, telling what changed meanwhile): client-node's watch, not the
 * controller's informer, so a bug of the product's cannot hide itself from the soak.
 */
export class Mirror {
  readonly items = new Map<string, Json>();
  private abort?: AbortController;
  private stopped = false;
  /** Lists so far: 1 after the first, more after each break. */
  lists = 0;

  constructor(
    private readonly kc: k8s.KubeConfig,
    private readonly rest: KubeRest,
    readonly path: string,
    private readonly onChange: (change: Change, now: Json, before?: Json) => void,
    private readonly labelSelector?: string,
  ) {}

  async start(): Promise<void> {
    await this.relist();
  }

  stop(): void {
    this.stopped = true;
    this.abort?.abort();
  }

  private async relist(): Promise<void> {
    while (!this.stopped) {
      try {
        const query = this.labelSelector ? `?labelSelector=${encodeURIComponent(this.labelSelector)}` : '';
        const list = await this.rest.request<{ apiVersion: string; kind: string; metadata: { resourceVersion: string }; items: Json[] }>('GET', `${this.path}${query}`, { timeoutMs: 10_000 });
        // A list's items carry no kind of their own: the list's says it.
        const kind = list.kind.replace(/List$/, '');
        this.replace(list.items.map((item) => ({ ...item, apiVersion: list.apiVersion, kind })));
        this.lists++;
        await this.watch(list.metadata.resourceVersion);
        return;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
  }

  private replace(items: Json[]): void {
    const seen = new Set<string>();
    for (const item of items) {
      const key = keyOf(item);
      seen.add(key);
      const before = this.items.get(key);
      this.items.set(key, item);
      if (!before) this.onChange('ADDED', item);
      else if (before.metadata.resourceVersion !== item.metadata.resourceVersion) this.onChange('MODIFIED', item, before);
    }
    for (const [key, before] of [...this.items]) {
      if (seen.has(key)) continue;
      this.items.delete(key);
      this.onChange('DELETED', before, before);
    }
  }

  private async watch(resourceVersion: string): Promise<void> {
    const query: Record<string, string | boolean> = { resourceVersion, allowWatchBookmarks: true };
    if (this.labelSelector) query.labelSelector = this.labelSelector;
    this.abort = await new k8s.Watch(this.kc).watch(
      this.path,
      query,
      (type: string, object: Json) => {
        if (type === 'ERROR' || type === 'BOOKMARK') return;
        const key = keyOf(object);
        const before = this.items.get(key);
        if (type === 'DELETED') this.items.delete(key);
        else this.items.set(key, object);
        this.onChange(type as Change, object, before);
      },
      () => {
        if (!this.stopped) setTimeout(() => void this.relist(), 500);
      },
    );
  }
}
