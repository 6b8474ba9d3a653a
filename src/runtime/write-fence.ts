import { KubeConnection } from '../kube/connection';
import { KubeRest, RequestOptions } from '../kube/rest';

/**
 * The controller's client, which refuses to write while `mayWrite` says no (with leader election:
 * the replica does not hold the Lease). A reconcile still running when its replica lost the
 * Lease must not write beside the next leader; reads go on, so that it can finish or fail.
 */
export class FencedRest extends KubeRest {
  constructor(
    connection: KubeConnection,
    onRequest: (method: string) => void,
    onResponse: (method: string, code: string, host: string) => void,
    private readonly mayWrite: () => boolean,
    client?: string,
  ) {
    super(connection, onRequest, onResponse, client);
  }

  override request<T = unknown>(method: string, path: string, options?: RequestOptions): Promise<T> {
    if (method !== 'GET' && !this.mayWrite()) return Promise.reject(new Error(`${method} ${path} refused: this replica does not hold the leader Lease`));
    return super.request<T>(method, path, options);
  }
}
