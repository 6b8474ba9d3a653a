import type { KubeJson } from '../core/kube-json';
import { KubeRest } from './rest';

/** Any Kubernetes object, as JSON (the one shape, under the name the client's callers know). */
export type KubeObject = KubeJson;

/** `namespace/name`, or `name` for a cluster-scoped object: how caches and the work queue name objects. */
export function objectKey(o: { metadata: { name: string; namespace?: string } }): string {
  return o.metadata.namespace ? `${o.metadata.namespace}/${o.metadata.name}` : o.metadata.name;
}

interface ApiResource {
  readonly name: string;
  readonly namespaced: boolean;
}

/** Turns apiVersion and kind into REST paths, asking the API server's discovery once per group version. */
export class ObjectPaths {
  private readonly groupVersions = new Map<string, Promise<Map<string, ApiResource>>>();

  constructor(private readonly rest: KubeRest) {}

  async resource(apiVersion: string, kind: string): Promise<ApiResource> {
    let resources = this.groupVersions.get(apiVersion);
    if (!resources) {
      resources = this.discover(apiVersion);
      this.groupVersions.set(apiVersion, resources);
      // A failed lookup (say, a CRD not yet installed) is asked again next time.
      resources.catch(() => this.groupVersions.delete(apiVersion));
    }
    const resource = (await resources).get(kind);
    if (!resource) {
      this.groupVersions.delete(apiVersion);
      throw new Error(`the API server does not serve kind ${kind} in ${apiVersion}`);
    }
    return resource;
  }

  /** `/api/v1/namespaces/ns/configmaps[/name]`, `/apis/group/version/plural[/name]`. */
  async path(object: Pick<KubeObject, 'apiVersion' | 'kind'> & { metadata: { name?: string; namespace?: string } }, withName = true): Promise<string> {
    const resource = await this.resource(object.apiVersion, object.kind);
    const base = object.apiVersion.includes('/') ? `/apis/${object.apiVersion}` : `/api/${object.apiVersion}`;
    const namespace = resource.namespaced ? `/namespaces/${object.metadata.namespace ?? 'default'}` : '';
    const name = withName && object.metadata.name ? `/${encodeURIComponent(object.metadata.name)}` : '';
    return `${base}${namespace}/${resource.name}${name}`;
  }

  private async discover(apiVersion: string): Promise<Map<string, ApiResource>> {
    const path = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
    const list = await this.rest.request<{ resources: { name: string; kind: string; namespaced: boolean }[] }>('GET', path);
    return new Map(list.resources.filter((r) => !r.name.includes('/')).map((r) => [r.kind, { name: r.name, namespaced: r.namespaced }]));
  }
}

export interface WriteOptions {
  /** Validate and admit only; persist nothing. */
  readonly dryRun?: boolean;
}

/** Reads and writes whole objects of any kind. */
export class ObjectClient {
  readonly paths: ObjectPaths;

  constructor(
    readonly rest: KubeRest,
    /** Who owns the fields this client applies. */
    readonly fieldManager: string,
  ) {
    this.paths = new ObjectPaths(rest);
  }

  /** Server-side apply: we own exactly the fields we send; `force` takes them over from other managers. */
  async apply<T extends KubeObject>(object: KubeObject, options: WriteOptions & { force?: boolean } = {}): Promise<T> {
    return this.rest.request<T>('PATCH', await this.paths.path(object), {
      body: object,
      contentType: 'application/apply-patch+yaml',
      query: { fieldManager: this.fieldManager, force: String(options.force ?? true), dryRun: options.dryRun ? 'All' : undefined },
    });
  }

  async create<T extends KubeObject>(object: KubeObject, options: WriteOptions = {}): Promise<T> {
    return this.rest.request<T>('POST', await this.paths.path(object, false), {
      body: object,
      query: { fieldManager: this.fieldManager, dryRun: options.dryRun ? 'All' : undefined },
    });
  }

  async get<T extends KubeObject>(object: Pick<KubeObject, 'apiVersion' | 'kind' | 'metadata'>): Promise<T> {
    return this.rest.request<T>('GET', await this.paths.path(object));
  }

  /** The live object, or undefined when there is none. */
  async find<T extends KubeObject>(object: Pick<KubeObject, 'apiVersion' | 'kind' | 'metadata'>): Promise<T | undefined> {
    return this.rest.request<T | undefined>('GET', await this.paths.path(object), { notFoundAsUndefined: true });
  }

  async delete(object: Pick<KubeObject, 'apiVersion' | 'kind' | 'metadata'>): Promise<void> {
    await this.rest.request('DELETE', await this.paths.path(object), { body: { propagationPolicy: 'Background' } });
  }
}
