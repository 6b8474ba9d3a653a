import type { CustomResource } from '../engine/kind';
import { guitarKind, GuitarSpec, GuitarStatus } from '../kinds/guitar';
import { KubeError, KubeRest, resourcePath } from '../engine/client';

/** A Guitar as the API server returns it. */
export type GuitarObject = CustomResource<GuitarSpec, GuitarStatus> & { metadata: { creationTimestamp?: string } };

export const API_VERSION = `${guitarKind.group}/${guitarKind.version}`;
const GUITARS = { groupVersion: API_VERSION, resource: guitarKind.plural };

/** The collection path (one namespace, or all of them), or with a name one guitar's. */
export function guitarsPath(namespace?: string, name?: string): string {
  return resourcePath(GUITARS, { namespace, name });
}

/** What a listing of one scope gave: its guitars, or why it could not be read. */
export interface Listing {
  readonly guitars: GuitarObject[];
  /** Namespaces (or "" for all) the acting identity may not list. */
  readonly forbidden: string[];
}

/** The guitar operations the UI performs, each with the acting identity's own rights. */
export class GuitarApi {
  constructor(private readonly rest: KubeRest) {}

  /**
   * Every guitar in `namespaces` (all namespaces when empty). A namespace the identity may
   * not read is reported, not fatal, when several are listed.
   */
  async list(namespaces: readonly string[]): Promise<Listing> {
    const scopes = namespaces.length ? namespaces : [''];
    const results = await Promise.all(
      scopes.map((ns) =>
        this.rest.request<{ items: GuitarObject[] }>('GET', guitarsPath(ns || undefined)).then(
          (list) => ({ ns, items: list.items }),
          (err: unknown) => {
            if (err instanceof KubeError && err.code === 403 && scopes.length > 1) return { ns, items: undefined };
            throw err;
          },
        ),
      ),
    );
    const guitars = results.flatMap((r) => r.items ?? []);
    return { guitars: sortGuitars(guitars), forbidden: results.filter((r) => !r.items).map((r) => r.ns) };
  }

  async get(namespace: string, name: string): Promise<GuitarObject> {
    return this.rest.request<GuitarObject>('GET', guitarsPath(namespace, name));
  }

  async create(namespace: string, name: string, brand: string): Promise<GuitarObject> {
    const body = { apiVersion: API_VERSION, kind: guitarKind.kind, metadata: { name, namespace }, spec: { brand } };
    return this.rest.request<GuitarObject>('POST', guitarsPath(namespace), { body, query: { fieldManager: 'cdk8s-operators-ui' } });
  }

  async delete(namespace: string, name: string): Promise<void> {
    await this.rest.request('DELETE', guitarsPath(namespace, name));
  }
}

/** Namespace, then name: the order `kubectl get -A` shows. */
export function sortGuitars(guitars: GuitarObject[]): GuitarObject[] {
  return [...guitars].sort((a, b) => (a.metadata.namespace ?? '').localeCompare(b.metadata.namespace ?? '') || a.metadata.name.localeCompare(b.metadata.name));
}
