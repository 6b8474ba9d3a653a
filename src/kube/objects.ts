import type { KubeJson } from '../core/contract/kube-json';
import { Discovery } from './discovery';
import { KubeError, KubeRest } from './rest';

/** Any Kubernetes object, as JSON (the one shape, under the name the client's callers know). */
export type KubeObject = KubeJson;

/** `namespace/name`, or `name` for a cluster-scoped object: how caches and the work queue name objects. */
export function objectKey(o: { metadata: { name: string; namespace?: string } }): string {
  return o.metadata.namespace ? `${o.metadata.namespace}/${o.metadata.name}` : o.metadata.name;
}

export interface WriteOptions {
  /** Validate and admit only; persist nothing. */
  readonly dryRun?: boolean;
}

/** Reads and writes whole objects of any kind. */
export class ObjectClient {
  /** Turns an object's apiVersion and kind into its REST path. */
  readonly discovery: Discovery;

  constructor(
    readonly rest: KubeRest,
    /** Who owns the fields this client applies. */
    readonly fieldManager: string,
  ) {
    this.discovery = new Discovery(rest);
  }

  /** Server-side apply: we own exactly the fields we send; `force` takes them over from other managers. */
  async apply<T extends KubeObject>(object: KubeObject, options: WriteOptions & { force?: boolean } = {}): Promise<T> {
    return this.rest.request<T>('PATCH', await this.discovery.objectPath(object), {
      body: object,
      contentType: 'application/apply-patch+yaml',
      query: { fieldManager: this.fieldManager, force: String(options.force ?? true), dryRun: options.dryRun ? 'All' : undefined },
    });
  }

  /**
   * Server-side apply to the object with this uid only: never creates one. A uid in the body
   * makes the API server refuse an apply that finds no object (409), where an apply alone would
   * make it anew, or another one of that name (422, thrown). Undefined when it is gone.
   */
  async applyToExisting<T extends KubeObject>(object: KubeObject, uid: string): Promise<T | undefined> {
    try {
      return await this.apply<T>({ ...object, metadata: { ...object.metadata, uid } });
    } catch (err) {
      if (err instanceof KubeError && err.code === 409 && !(await this.find(object))) return undefined;
      throw err;
    }
  }

  /** A POST: fails (409 AlreadyExists) when an object of that name exists. */
  async create<T extends KubeObject>(object: KubeObject, options: WriteOptions & { fieldManager?: string } = {}): Promise<T> {
    return this.rest.request<T>('POST', await this.discovery.objectPath(object, false), {
      body: object,
      query: { fieldManager: options.fieldManager ?? this.fieldManager, dryRun: options.dryRun ? 'All' : undefined },
    });
  }

  async get<T extends KubeObject>(object: Pick<KubeObject, 'apiVersion' | 'kind' | 'metadata'>): Promise<T> {
    return this.rest.request<T>('GET', await this.discovery.objectPath(object));
  }

  /** The live object, or undefined when there is none. */
  async find<T extends KubeObject>(object: Pick<KubeObject, 'apiVersion' | 'kind' | 'metadata'>): Promise<T | undefined> {
    return this.rest.request<T | undefined>('GET', await this.discovery.objectPath(object), { notFoundAsUndefined: true });
  }

  /**
   * A JSON merge patch of the object's metadata (e.g. its finalizers). The object's
   * resourceVersion goes with it, so the patch fails (409) rather than overwrite a list someone
   * changed meanwhile.
   */
  async patchMetadata<T extends KubeObject>(object: KubeObject, metadata: Record<string, unknown>, options: { fieldManager?: string } = {}): Promise<T> {
    return this.mergePatch<T>(await this.discovery.objectPath(object), { metadata: { ...metadata, resourceVersion: object.metadata.resourceVersion } }, options.fieldManager);
  }

  /** A JSON merge patch of the object's status subresource: only the fields given change. */
  async patchStatus<T extends KubeObject>(object: KubeObject, status: Record<string, unknown>, options: { fieldManager?: string } = {}): Promise<T> {
    return this.mergePatch<T>(`${await this.discovery.objectPath(object)}/status`, { status }, options.fieldManager);
  }

  private mergePatch<T>(path: string, body: object, fieldManager: string | undefined): Promise<T> {
    return this.rest.request<T>('PATCH', path, { body, contentType: 'application/merge-patch+json', query: { fieldManager: fieldManager ?? this.fieldManager } });
  }

  async delete(object: Pick<KubeObject, 'apiVersion' | 'kind' | 'metadata'>): Promise<void> {
    await this.rest.request('DELETE', await this.discovery.objectPath(object), { body: { propagationPolicy: 'Background' } });
  }
}
