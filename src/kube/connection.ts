import type { KubeConfig } from '@kubernetes/client-node';
import type { Dispatcher } from 'undici';

/** How requests reach one API server: where, through which TLS pool, with which credentials. */
export interface KubeConnection {
  /** `https://host:port`, without a trailing slash. */
  readonly server: string;
  /** The headers that authenticate one request, and the connection pool to send it through. */
  prepare(): Promise<PreparedRequest>;
}

export interface PreparedRequest {
  readonly headers: Record<string, string>;
  readonly dispatcher: Dispatcher;
}

/** Anything with headers of its own on top of another connection's (e.g. `Impersonate-User`). */
export function withHeaders(base: KubeConnection, headers: Record<string, string>): KubeConnection {
  return {
    server: base.server,
    async prepare() {
      const prepared = await base.prepare();
      return { dispatcher: prepared.dispatcher, headers: { ...prepared.headers, ...headers } };
    },
  };
}

/**
 * A connection through @kubernetes/client-node's KubeConfig, for what our own loader leaves to
 * it (exec and auth-provider plugins, proxies) and for callers that already hold one (tests).
 * The client builds a new pool on every authentication, which would open a TLS connection per
 * request (measured: 139 creates/s instead of 531); the settings do not change, so the first serves all.
 */
export function clientNodeConnection(kc: KubeConfig): KubeConnection {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error('the kubeconfig has no current cluster');
  const server = cluster.server.replace(/\/$/, '');
  // Only reached with a KubeConfig in hand, so the module is loaded already.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { RequestContext } = require('@kubernetes/client-node') as typeof import('@kubernetes/client-node');
  let dispatcher: Dispatcher | undefined;
  return {
    server,
    async prepare() {
      const context = new RequestContext(server, 'GET' as never);
      await kc.applySecurityAuthentication(context);
      dispatcher ??= context.getDispatcher() as unknown as Dispatcher;
      return { headers: context.getHeaders(), dispatcher };
    },
  };
}

/** Duck-typed, so that telling the two apart does not load client-node. */
export function isClientNodeConfig(source: KubeConnection | KubeConfig): source is KubeConfig {
  return typeof (source as KubeConfig).applySecurityAuthentication === 'function';
}
