import type { KubeJson } from '../../core/contract/kube-json';
import { collectionPath } from '../../kube/discovery';
import { isNotFound, KubeRest } from '../../kube/rest';
import { METADATA_LIST } from '../informer';
import { mapLimited } from '../limit';
import { controlledByAnother } from '../ownership';
import type { ChildCollection } from '../watches';
import { labelsOf, RELABEL_WRITES_IN_FLIGHT, SHARD_LABEL } from './labels';

/** Children per page of the LIST, so a replica never holds every other shard's children at once. */
const PAGE = 1000;

interface Waiting {
  readonly item: string;
  readonly owner: KubeJson;
  readonly ownerLabels: Readonly<Record<string, string>>;
  resolve(): void;
  reject(err: unknown): void;
}

/**
 * Owners that moved to this shard get their children back: those still carrying another
 * shard's label (or none, from before sharding) are relabelled for this one, so they enter
 * this replica's caches and are pruned as usual.
 *
 * One LIST per child collection serves every owner waiting when it starts, rather than one per
 * owner: the API server answers a label-selected LIST by scanning the whole collection, so a
 * replica taking over thousands of owners at once (another one killed) would scan it thousands
 * of times. Each LIST starts after the owners it serves were labelled for this shard, and the
 * replica that served them before had stopped by then (it drained them, or its Lease expired),
 * so the LIST sees every child that replica wrote.
 */
export class Takeover {
  /** By the kind's child collections (one array per kind): owners waiting for the next LIST, and whether one runs. */
  private readonly batches = new Map<readonly ChildCollection[], { next: Waiting[]; running: boolean }>();

  constructor(
    private readonly rest: KubeRest,
    private readonly shard: string,
    /** Told of each owner some of whose children were relabelled, and how many. */
    private readonly onMoved: (item: string, owner: KubeJson, children: number) => void,
  ) {}

  /** Resolves once the owner's children are labelled for this shard; rejects when the LIST or a relabelling failed. */
  take(children: readonly ChildCollection[], item: string, owner: KubeJson, ownerLabels: Readonly<Record<string, string>>): Promise<void> {
    return new Promise((resolve, reject) => {
      let batch = this.batches.get(children);
      if (!batch) this.batches.set(children, (batch = { next: [], running: false }));
      batch.next.push({ item, owner, ownerLabels, resolve, reject });
      if (!batch.running) void this.run(children, batch);
    });
  }

  private async run(children: readonly ChildCollection[], batch: { next: Waiting[]; running: boolean }): Promise<void> {
    batch.running = true;
    // Owners that come while a LIST runs wait for the next one, which starts after them.
    while (batch.next.length) {
      const owners = batch.next;
      batch.next = [];
      try {
        await this.relabel(children, owners);
        for (const owner of owners) owner.resolve();
      } catch (err) {
        for (const owner of owners) owner.reject(err);
      }
    }
    batch.running = false;
  }

  private async relabel(children: readonly ChildCollection[], owners: Waiting[]): Promise<void> {
    // Every owner of a kind has children labelled with the same keys; their values tell the owners apart.
    const keys = Object.keys(owners[0].ownerLabels).sort();
    const ownerKey = (labels: Readonly<Record<string, string>>) => keys.map((k) => labels[k] ?? '').join('\n');
    const byOwner = new Map(owners.map((o) => [ownerKey(o.ownerLabels), o]));
    const moved = new Map<Waiting, number>();
    for (const { path, collection, selector } of children) {
      const labelSelector = this.othersOf(selector);
      let next: string | undefined;
      do {
        const page: { items: KubeJson[] | null; metadata: { continue?: string } } = await this.rest.request('GET', path, {
          query: { labelSelector, limit: String(PAGE), continue: next },
          accept: METADATA_LIST,
        });
        const ours = (page.items ?? []).flatMap((child) => {
          const waiting = byOwner.get(ownerKey(labelsOf(child)));
          // What another controller made from our template (a CronJob's Job) is not ours to relabel.
          return waiting && !controlledByAnother(waiting.owner.metadata.uid, child) ? [{ child, waiting }] : [];
        });
        await mapLimited(ours, RELABEL_WRITES_IN_FLIGHT, async ({ child, waiting }) => {
          const childPath = collectionPath(collection, child.metadata.namespace, child.metadata.name);
          try {
            await this.rest.request('PATCH', childPath, { body: { metadata: { labels: { [SHARD_LABEL]: this.shard } } }, contentType: 'application/merge-patch+json' });
            moved.set(waiting, (moved.get(waiting) ?? 0) + 1);
          } catch (err) {
            if (!isNotFound(err)) throw err; // Deleted meanwhile: nothing left to relabel.
          }
        });
        next = page.metadata.continue || undefined;
      } while (next);
    }
    for (const [waiting, count] of moved) this.onMoved(waiting.item, waiting.owner, count);
  }

  /** The kind's child selector with this shard's label negated: every child of the kind not labelled for this shard. */
  private othersOf(selector: string): string {
    const ours = `${SHARD_LABEL}=${this.shard}`;
    return [...selector.split(',').filter((term) => term !== ours), `${SHARD_LABEL}!=${this.shard}`].join(',');
  }
}
