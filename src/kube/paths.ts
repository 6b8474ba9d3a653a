/**
 * Where a resource lives in the API server's REST paths: every path to an object or a
 * collection is built here, so that the core group's `/api` and the encoding are decided once.
 */

/** A resource of one group version: `{ groupVersion: 'apps/v1', resource: 'deployments' }`. */
export interface ApiResourceName {
  /** `v1` (the core group), `apps/v1` */
  readonly groupVersion: string;
  /** The plural: `configmaps` */
  readonly resource: string;
}

/** Which part of a resource: one namespace's (none: cluster-scoped, or all namespaces), and one object of it (none: the collection). */
export interface ApiPathScope {
  readonly namespace?: string;
  readonly name?: string;
}

/** `/api/v1` for the core group's `v1`, `/apis/<group>/<version>` for any other. */
export function groupVersionPath(groupVersion: string): string {
  return groupVersion.includes('/') ? `/apis/${groupVersion}` : `/api/${groupVersion}`;
}

/**
 * `/api/v1/namespaces/ns/configmaps/name`, `/apis/group/version/plural`: one object's path with
 * a name, its collection's without; in one namespace with a namespace, else cluster-wide.
 */
export function resourcePath(resource: ApiResourceName, scope: ApiPathScope = {}): string {
  const namespace = scope.namespace ? `/namespaces/${encodeURIComponent(scope.namespace)}` : '';
  const name = scope.name ? `/${encodeURIComponent(scope.name)}` : '';
  return `${groupVersionPath(resource.groupVersion)}${namespace}/${resource.resource}${name}`;
}

/** Built-in resources the engine itself reads and writes. */
export const SECRETS: ApiResourceName = { groupVersion: 'v1', resource: 'secrets' };
export const LEASES: ApiResourceName = { groupVersion: 'coordination.k8s.io/v1', resource: 'leases' };
export const EVENTS: ApiResourceName = { groupVersion: 'events.k8s.io/v1', resource: 'events' };
