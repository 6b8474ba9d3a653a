import { Collection } from '../core/contract/kind';
import { ResolvedCollection } from '../kube/discovery';

/** How the watches name a collection: `apiGroup/resource`. */
export const collectionKey = (c: Collection) => `${c.apiGroup}/${c.resource}`;

/** The same name for a collection discovery resolved. */
export const resolvedKey = (c: ResolvedCollection) => collectionKey({ apiGroup: apiGroupOf(c), resource: c.resource });

/** The group of a resolved collection (`''` for the core group). */
export function apiGroupOf(collection: ResolvedCollection): string {
  return collection.groupVersion.includes('/') ? collection.groupVersion.split('/')[0] : '';
}

/** `resource.group` (`resource` for the core group), the label watch restarts are counted by. */
export function resourceLabel(resource: string, apiGroup: string): string {
  return apiGroup ? `${resource}.${apiGroup}` : resource;
}
