import { KubeRest } from './rest';

/** Where a collection lives in the API, as discovery tells. */
export interface ResolvedCollection {
  /** `v1`, `apps/v1` */
  readonly groupVersion: string;
  /** `/api/v1`, `/apis/apps/v1` */
  readonly base: string;
  readonly resource: string;
  readonly kind: string;
  readonly namespaced: boolean;
}

/** Resolves `apiGroup` + plural resource names through discovery, asking once per group. */
export class Discovery {
  private readonly groups = new Map<string, Promise<{ groupVersion: string; resources: { name: string; kind: string; namespaced: boolean }[] }>>();

  constructor(private readonly rest: KubeRest) {}

  /** The collection, or undefined when the API server does not serve it. */
  async resolve(apiGroup: string, resource: string): Promise<ResolvedCollection | undefined> {
    let group = this.groups.get(apiGroup);
    if (!group) {
      group = this.discover(apiGroup);
      this.groups.set(apiGroup, group);
      group.catch(() => this.groups.delete(apiGroup));
    }
    const { groupVersion, resources } = await group;
    const found = resources.find((r) => r.name === resource);
    if (!found) return undefined;
    return { groupVersion, base: apiGroup ? `/apis/${groupVersion}` : '/api/v1', resource, kind: found.kind, namespaced: found.namespaced };
  }

  private async discover(apiGroup: string) {
    const groupVersion = apiGroup ? (await this.rest.request<{ preferredVersion: { groupVersion: string } }>('GET', `/apis/${apiGroup}`)).preferredVersion.groupVersion : 'v1';
    const base = apiGroup ? `/apis/${groupVersion}` : '/api/v1';
    const { resources } = await this.rest.request<{ resources: { name: string; kind: string; namespaced: boolean }[] }>('GET', base);
    return { groupVersion, resources };
  }
}

/** `/api/v1/namespaces/ns/configmaps`, or the cluster-wide `/api/v1/configmaps` without a namespace. */
export function collectionPath(collection: ResolvedCollection, namespace?: string): string {
  return collection.namespaced && namespace ? `${collection.base}/namespaces/${namespace}/${collection.resource}` : `${collection.base}/${collection.resource}`;
}

/** `a=1,b=2`, sorted, so equal selectors share one watch. */
export function labelSelector(labels: Readonly<Record<string, string>> | undefined): string | undefined {
  const entries = Object.entries(labels ?? {}).sort(([a], [b]) => a.localeCompare(b));
  return entries.length ? entries.map(([k, v]) => `${k}=${v}`).join(',') : undefined;
}
