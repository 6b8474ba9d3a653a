import { ManagedFieldsEntry } from '../kube/create-then-apply';
import { KubeObject, objectKey } from '../kube/objects';
import { KubeError, KubeRest } from '../kube/rest';
import { Logger } from './log';
import { isSecretsPath, rememberSecret } from './secret-values';

export type ChangeType = 'added' | 'updated' | 'deleted';
export type ChangeHandler<T> = (type: ChangeType, object: T, previous?: T) => void;

export interface InformerOptions<T extends KubeObject = KubeObject> {
  /** The collection's path, e.g. `/apis/g/v1/plural` or `/api/v1/namespaces/ns/configmaps`. */
  readonly path: string;
  readonly labelSelector?: string;
  /** Objects per LIST page, so a large collection is not read in one response. */
  readonly pageSize?: number;
  /** The longest a watch may stay open, in seconds, before it is renewed from where it was. */
  readonly watchSeconds?: number;
  /** Cache only metadata (PartialObjectMetadata), e.g. to know which Secrets exist without holding their values. */
  readonly metadataOnly?: boolean;
  /** Told when the list+watch starts over other than by the server's routine timeout (see WatchRestart). */
  readonly onRestart?: (why: WatchRestart) => void;
  /**
   * What to keep of each listed or watched object before it is cached and handed on (as
   * client-go's SetTransform): a cache of many objects whose handlers read a few fields need
   * not hold the rest. It must keep metadata.name, namespace and resourceVersion.
   */
  readonly keep?: (object: T) => T;
  /** The managedFields entries to keep (e.g. the operator's own status writes); by default none is cached. */
  readonly keepManagedFields?: (entry: ManagedFieldsEntry) => boolean;
}

/** Why a watch started over: its version expired (410, a relist), it failed, or it went silent and was cut. */
export const WATCH_RESTARTS = ['expired', 'error', 'silent'] as const;
export type WatchRestart = (typeof WATCH_RESTARTS)[number];

/** What the API server answers for metadata only, in a LIST and in a WATCH. */
export const METADATA_LIST = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1';
const METADATA_OBJECT = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1';

interface WatchEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: KubeObject & { code?: number; message?: string };
}

/**
 * A cache of one collection kept current by list+watch, that survives what clusters do:
 * watches that time out or drop are renewed from the last resourceVersion (bookmarks keep
 * it fresh on quiet collections), 410 Gone relists, and any other error relists after a
 * growing delay. A 410 relists at once, but 410s and errors in a row (a proxy or an API server
 * answering every watch with 410) back off as client-go's reflector does, until a watch runs
 * normally again. It never stops by itself, and a failing handler never stops it either.
 */
export class Informer<T extends KubeObject = KubeObject> {
  readonly cache = new Map<string, T>();
  private readonly handlers: ChangeHandler<T>[] = [];
  private abort = new AbortController();
  private stopped = false;
  private synced = false;
  /** Restarts in a row with no watch that ran normally in between (see restartDelay). */
  private troubles = 0;
  /** Why the last LIST or WATCH failed, while the informer is retrying. */
  private lastError?: Error;
  private readonly syncWaiters: Array<() => void> = [];
  private readonly secrets: boolean;
  /** Ends the pause before a restart early, when the informer stops. */
  private wake?: () => void;

  constructor(
    private readonly rest: KubeRest,
    private readonly options: InformerOptions<T>,
    private readonly log: Logger,
  ) {
    this.secrets = isSecretsPath(options.path.split('?')[0]);
  }

  on(handler: ChangeHandler<T>): void {
    this.handlers.push(handler);
  }

  /** Whether the first LIST has filled the cache. */
  get hasSynced(): boolean {
    return this.synced;
  }

  start(): void {
    void this.run();
  }

  /**
   * Resolves once the first LIST has filled the cache; rejects after `timeoutMs` with the
   * last error (e.g. a 403 where RBAC does not grant the list), so a caller can report it.
   */
  async waitForSync(timeoutMs: number): Promise<void> {
    if (this.synced) return;
    let timer: NodeJS.Timeout | undefined;
    try {
      await new Promise<void>((resolve, reject) => {
        this.syncWaiters.push(resolve);
        timer = setTimeout(() => reject(new Error(`could not list ${this.options.path} within ${timeoutMs / 1000} s${this.lastError ? `: ${this.lastError.message}` : ''}`)), timeoutMs);
      });
    } finally {
      clearTimeout(timer);
    }
  }

  stop(): void {
    this.stopped = true;
    this.abort.abort();
    this.wake?.();
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      try {
        let resourceVersion = await this.list();
        // Renew the watch from where it ended until the API server says the version is gone.
        for (;;) {
          if (this.stopped) return;
          resourceVersion = await this.watch(resourceVersion);
        }
      } catch (err) {
        if (this.stopped) return;
        const expired = err instanceof KubeError && err.code === 410;
        this.options.onRestart?.(expired ? 'expired' : 'error');
        const delay = restartDelay(expired, this.troubles++);
        if (expired) {
          this.log.debug('watch expired, relisting', { path: this.options.path, retryInMs: delay });
        } else {
          this.lastError = err as Error;
          this.log.warn('list/watch failed, retrying', { path: this.options.path, error: err as Error, retryInMs: delay });
        }
        if (delay > 0) await this.pause(delay);
      }
    }
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  /** LIST page by page; replaces the cache and reports what changed since the last one. */
  private async list(): Promise<string> {
    const seen = new Map<string, T>();
    let continueToken: string | undefined;
    let resourceVersion = '';
    do {
      const page = await this.rest.request<{ apiVersion: string; kind: string; items: T[]; metadata: { resourceVersion: string; continue?: string } }>('GET', this.options.path, {
        query: { labelSelector: this.options.labelSelector, limit: String(this.options.pageSize ?? 500), continue: continueToken },
        timeoutMs: 60_000,
        accept: this.options.metadataOnly ? METADATA_LIST : undefined,
      });
      // Items of a LIST of built-in kinds carry no apiVersion or kind (watch events do): restore them from the list's own.
      const identity = { apiVersion: page.apiVersion, kind: page.kind.replace(/List$/, '') };
      // A metadata-only LIST of nothing says `items: null`.
      for (const item of page.items ?? []) seen.set(objectKey(item), this.kept({ ...identity, ...item }));
      continueToken = page.metadata.continue || undefined;
      resourceVersion = page.metadata.resourceVersion;
    } while (continueToken);
    for (const [key, old] of this.cache) if (!seen.has(key)) this.apply('deleted', old);
    for (const object of seen.values()) this.apply('added', object);
    this.synced = true;
    this.lastError = undefined;
    for (const resolve of this.syncWaiters.splice(0)) resolve();
    return resourceVersion;
  }

  /** One watch request; returns the resourceVersion to continue from. */
  private async watch(resourceVersion: string): Promise<string> {
    this.abort = new AbortController();
    const seconds = this.options.watchSeconds ?? 300 + Math.floor(Math.random() * 300);
    // A connection that goes silent (no event, no bookmark) past the server's own timeout is dead.
    const idle = setTimeout(() => this.abort.abort(), (seconds + 30) * 1000);
    let current = resourceVersion;
    try {
      const body = await this.rest.stream(
        this.options.path,
        { watch: '1', resourceVersion, allowWatchBookmarks: 'true', timeoutSeconds: String(seconds), labelSelector: this.options.labelSelector },
        this.abort.signal,
        this.options.metadataOnly ? METADATA_OBJECT : undefined,
      );
      for await (const event of lines<WatchEvent>(body)) {
        if (event.type === 'ERROR') {
          throw new KubeError('WATCH', this.options.path, event.object.code ?? 500, JSON.stringify(event.object));
        }
        current = event.object.metadata.resourceVersion ?? current;
        // The watch works: the next 410 or error starts the backoff over.
        this.troubles = 0;
        if (event.type === 'BOOKMARK') continue;
        const object = this.kept(event.object as unknown as T);
        this.apply(event.type === 'DELETED' ? 'deleted' : 'added', object);
      }
      // Ended by the server's own timeout: it ran normally too.
      this.troubles = 0;
    } catch (err) {
      if (!this.abort.signal.aborted || this.stopped) throw err;
      // Our own idle abort: renew the watch.
      this.options.onRestart?.('silent');
    } finally {
      clearTimeout(idle);
    }
    return current;
  }

  private kept(object: T): T {
    // What the log must never show: the values of every Secret read (list and watch items carry no kind).
    if (this.secrets) rememberSecret(object as { data?: unknown; stringData?: unknown });
    const stripped = strip(object, this.options.keepManagedFields);
    return this.options.keep ? this.options.keep(stripped) : stripped;
  }

  private apply(type: ChangeType, object: T): void {
    const key = objectKey(object);
    const previous = this.cache.get(key);
    if (type === 'deleted') {
      if (!previous) return;
      this.cache.delete(key);
    } else {
      if (previous?.metadata.resourceVersion === object.metadata.resourceVersion) return;
      this.cache.set(key, object);
      if (previous) type = 'updated';
    }
    for (const handler of this.handlers) {
      try {
        handler(type, object, previous);
      } catch (err) {
        this.log.error('an event handler failed', { path: this.options.path, object: key, error: err as Error });
      }
    }
  }
}

/**
 * How long to wait before the next LIST after `troubles` restarts in a row. The first 410
 * relists at once (no added latency when a version merely expired); the next 410s in a row
 * wait 0.8 s doubling, with up to as much again of jitter (client-go's reflector backs off so),
 * so that a server answering every watch with 410 is not listed in a loop. Errors wait 0.5 s
 * doubling. Never more than 30 s.
 */
export function restartDelay(expired: boolean, troubles: number): number {
  if (!expired) return Math.min(30_000, 500 * 2 ** troubles);
  if (troubles === 0) return 0;
  return Math.round(Math.min(30_000, 800 * 2 ** (troubles - 1) * (1 + Math.random())));
}

/** managedFields can be most of an object and the controller reads at most a few entries of them. */
export function strip<T extends KubeObject>(object: T, keepManagedFields?: (entry: ManagedFieldsEntry) => boolean): T {
  const entries = object.metadata.managedFields as ManagedFieldsEntry[] | undefined;
  if (!entries) return object;
  const kept = keepManagedFields ? entries.filter(keepManagedFields) : [];
  if (kept.length) object.metadata.managedFields = kept;
  else delete object.metadata.managedFields;
  return object;
}

/** Newline-delimited JSON from a byte stream. */
async function* lines<T>(body: AsyncIterable<Uint8Array>): AsyncGenerator<T> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    // One chunk may hold many events: walk it, and keep only the unfinished last line.
    let start = 0;
    let newline: number;
    while ((newline = buffer.indexOf('\n', start)) >= 0) {
      const line = buffer.slice(start, newline);
      start = newline + 1;
      if (line.trim()) yield JSON.parse(line) as T;
    }
    buffer = buffer.slice(start);
  }
}
