import type { KubeJson } from '../core/contract/kube-json';
import { isLabelKey, isLabelValue } from '../schema/labels';
import { groupVersionPath, resourcePath } from './paths';
import { KubeRest } from './rest';

/** Where a collection lives in the API, as discovery tells. */
export interface ResolvedCollection {
  /** `v1`, `apps/v1` */
  readonly groupVersion: string;
  readonly resource: string;
  readonly kind: string;
  readonly namespaced: boolean;
}

interface ApiResource {
  readonly name: string;
  readonly kind: string;
  readonly namespaced: boolean;
}

interface GroupVersionResources {
  /** Every resource, subresources (`pods/log`) included, as the API server lists them. */
  readonly all: readonly ApiResource[];
  /** The top-level resources by kind. */
  readonly byKind: ReadonlyMap<string, ApiResource>;
}

/** The CustomResourceDefinitions' collection. */
export const CRDS_PATH = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

/**
 * The API server's discovery, asked once per group and group version and shared by every
 * question: which collection serves an apiGroup's plural resource (the controller's watches),
 * and which serves an apiVersion and kind (the path of an object to read or write).
 * A failed request is asked again next time (say, a CRD not yet installed).
 */
export class Discovery {
  private readonly preferredVersions = new Map<string, Promise<string>>();
  private readonly groupVersions = new Map<string, Promise<GroupVersionResources>>();

  constructor(private readonly rest: KubeRest) {}

  /** The collection, or undefined when the API server does not serve it. */
  async resolve(apiGroup: string, resource: string): Promise<ResolvedCollection | undefined> {
    const groupVersion = await this.preferredVersion(apiGroup);
    const found = (await this.resources(groupVersion)).all.find((r) => r.name === resource);
    if (!found) return undefined;
    return { groupVersion, resource, kind: found.kind, namespaced: found.namespaced };
  }

  /** The top-level resource that serves a kind; throws when the API server serves none. */
  async resource(apiVersion: string, kind: string): Promise<ApiResource> {
    const resource = (await this.resources(apiVersion)).byKind.get(kind);
    if (!resource) {
      // Its CRD may be installed by the next time it is asked for.
      this.groupVersions.delete(apiVersion);
      throw new Error(`the API server does not serve kind ${kind} in ${apiVersion}`);
    }
    return resource;
  }

  /** `/api/v1/namespaces/ns/configmaps[/name]`, `/apis/group/version/plural[/name]`. */
  async objectPath(object: Pick<KubeJson, 'apiVersion' | 'kind'> & { metadata: { name?: string; namespace?: string } }, withName = true): Promise<string> {
    const resource = await this.resource(object.apiVersion, object.kind);
    const namespace = resource.namespaced ? (object.metadata.namespace ?? 'default') : undefined;
    return resourcePath({ groupVersion: object.apiVersion, resource: resource.name }, { namespace, name: withName ? object.metadata.name : undefined });
  }

  private preferredVersion(apiGroup: string): Promise<string> {
    if (!apiGroup) return Promise.resolve('v1');
    return cached(this.preferredVersions, apiGroup, async () => (await this.rest.request<{ preferredVersion: { groupVersion: string } }>('GET', `/apis/${apiGroup}`)).preferredVersion.groupVersion);
  }

  private resources(groupVersion: string): Promise<GroupVersionResources> {
    return cached(this.groupVersions, groupVersion, async () => {
      const { resources } = await this.rest.request<{ resources: ApiResource[] }>('GET', groupVersionPath(groupVersion));
      const all = resources.map(({ name, kind, namespaced }) => ({ name, kind, namespaced }));
      return { all, byKind: new Map(all.filter((r) => !r.name.includes('/')).map((r) => [r.kind, r])) };
    });
  }
}

/** The map's promise for `key`, asked for once; a rejected one is dropped, so the next call asks again. */
function cached<T>(map: Map<string, Promise<T>>, key: string, ask: () => Promise<T>): Promise<T> {
  let value = map.get(key);
  if (!value) {
    value = ask();
    map.set(key, value);
    value.catch(() => map.delete(key));
  }
  return value;
}

/** `/api/v1/namespaces/ns/configmaps`, or the cluster-wide `/api/v1/configmaps` without a namespace (or for a cluster-scoped collection); with a name, that object's path. */
export function collectionPath(collection: ResolvedCollection, namespace?: string, name?: string): string {
  return resourcePath(collection, { namespace: collection.namespaced ? namespace : undefined, name });
}

/**
 * `a=1,b=2`, sorted, so equal selectors share one watch. Equality terms only: a key or value
 * outside the label grammar (which could spell `!=`, `in (...)` or a further term after `,`)
 * is refused, never sent.
 */
export function labelSelector(labels: Readonly<Record<string, string>> | undefined): string | undefined {
  const entries = Object.entries(labels ?? {}).sort(([a], [b]) => a.localeCompare(b));
  for (const [key, value] of entries) {
    if (!isLabelKey(key)) throw new Error(`label selector: ${JSON.stringify(key)} is no label key`);
    if (typeof value !== 'string' || !isLabelValue(value)) throw new Error(`label selector: the value of ${key} is no label value: ${JSON.stringify(value)}`);
  }
  return entries.length ? entries.map(([k, v]) => `${k}=${v}`).join(',') : undefined;
}

/** Whether an object's labels carry every key of `selector` with its value (what labelSelector asks the API server). */
export function matchesLabels(labels: Readonly<Record<string, string>> | undefined, selector: Readonly<Record<string, string>> | undefined): boolean {
  return Object.entries(selector ?? {}).every(([k, v]) => labels?.[k] === v);
}
