import type { KubeConfig } from '@kubernetes/client-node';
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent, RequestOptions } from 'node:https';

/** Header values; a list is sent as one header line per value (e.g. `Impersonate-Group`). */
export type Headers = Record<string, string | string[]>;

/** How requests reach one API server: where, through which connection pool, with which credentials. */
export interface KubeConnection {
  /** `https://host:port`, without a trailing slash. */
  readonly server: string;
  /** The headers that authenticate one request, and the connection pool to send it through. */
  prepare(): Promise<PreparedRequest>;
}

export interface PreparedRequest {
  readonly headers: Headers;
  /** node:http's pool: an https.Agent holding the TLS settings, or an http.Agent (or a proxy's agent). */
  readonly agent: HttpAgent;
}

/** Anything with headers of its own on top of another connection's (e.g. `Impersonate-User`). */
export function withHeaders(base: KubeConnection, headers: Headers): KubeConnection {
  return {
    server: base.server,
    async prepare() {
      const prepared = await base.prepare();
      return { agent: prepared.agent, headers: { ...prepared.headers, ...headers } };
    },
  };
}

/** TLS settings of one connection pool, as a kubeconfig gives them. */
export interface TlsOptions {
  ca?: Buffer | string;
  cert?: Buffer | string;
  key?: Buffer | string;
  pfx?: Buffer | string;
  passphrase?: string;
  rejectUnauthorized?: boolean;
  servername?: string;
}

/** One keep-alive pool per API server: TLS is negotiated once per connection, not per request. */
export function keepAlivePool(server: string, tls: TlsOptions): HttpAgent {
  if (server.startsWith('http:')) return new HttpAgent({ keepAlive: true });
  return new HttpsAgent({ keepAlive: true, ...Object.fromEntries(Object.entries(tls).filter(([, v]) => v !== undefined && v !== null)) });
}

/**
 * A connection through @kubernetes/client-node's KubeConfig, for what our own loader leaves to
 * it (exec and auth-provider plugins, proxies) and for callers that already hold one (tests).
 * The client's own agents do not keep connections alive (a TLS handshake per request), so
 * without a proxy the pool is ours, built again only when a plugin hands out a new certificate.
 */
export function clientNodeConnection(kc: KubeConfig): KubeConnection {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error('the kubeconfig has no current cluster');
  const server = cluster.server.replace(/\/$/, '');
  let pool: { agent: HttpAgent; identity: string } | undefined;
  return {
    server,
    async prepare() {
      const options: RequestOptions = {};
      await kc.applyToHTTPSOptions(options);
      const headers = { ...(options.headers as Record<string, string> | undefined) };
      if (options.auth) headers.authorization = `Basic ${Buffer.from(options.auth).toString('base64')}`;
      if (cluster.proxyUrl) return { headers, agent: options.agent as HttpAgent };
      const identity = `${String(options.cert ?? '')}\n${String(options.key ?? '')}`;
      if (pool?.identity !== identity) pool = { identity, agent: keepAlivePool(server, options as TlsOptions) };
      return { headers, agent: pool.agent };
    },
  };
}

/** Duck-typed, so that telling the two apart does not load client-node. */
export function isClientNodeConfig(source: KubeConnection | KubeConfig): source is KubeConfig {
  return typeof (source as KubeConfig).applySecurityAuthentication === 'function';
}
