import * as k8s from '@kubernetes/client-node';
import { fetch } from 'undici';
import { projectVersion } from '../bundle/version';

/**
 * Unstructured access to the API server: our JSON goes on the wire exactly as rendered.
 *
 * Why not `KubernetesObjectApi`: it serializes every kind it knows through the client's
 * typed models, whose property names differ from the wire names (`_enum`, `xKubernetesValidations`),
 * so a CRD applied from YAML silently loses its `enum`, `default` and CEL rules (seen with
 * client-node 2.0.1 against kube-apiserver 1.36).
 */
export class KubeRest {
  private readonly server: string;
  /**
   * The client builds a new connection pool on every applySecurityAuthentication, which
   * would open a new TLS connection per request (measured: 139 creates/s instead of 531).
   * The TLS settings come from the kubeconfig and do not change, so the first pool serves all.
   */
  private dispatcher?: unknown;
  /** How the API server's audit log tells our requests from anyone else's (undici's own otherwise). */
  private readonly userAgent = `cdk8s-operators/${projectVersion()}`;

  constructor(
    private readonly kc: k8s.KubeConfig,
    /** Told of every request before it is sent (metrics count them). */
    private readonly onRequest?: (method: string) => void,
  ) {
    const cluster = kc.getCurrentCluster();
    if (!cluster) throw new Error('the kubeconfig has no current cluster');
    this.server = cluster.server.replace(/\/$/, '');
  }

  async request<T = unknown>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const response = await this.send(method, path, { ...options, signal: AbortSignal.timeout(options.timeoutMs ?? 30_000) });
    const text = await response.text();
    return (text ? JSON.parse(text) : undefined) as T;
  }

  /** A GET whose body is read as it arrives (a watch); fails like `request` on an error status. */
  async stream(path: string, query: Record<string, string | undefined>, signal: AbortSignal, accept?: string): Promise<AsyncIterable<Uint8Array>> {
    const response = await this.send('GET', path, { query, signal, accept });
    if (!response.body) throw new KubeError('GET', path, response.status, 'no body');
    return response.body;
  }

  private async send(method: string, path: string, options: RequestOptions & { signal: AbortSignal }) {
    this.onRequest?.(method);
    const url = new URL(this.server + path);
    for (const [key, value] of Object.entries(options.query ?? {})) if (value !== undefined) url.searchParams.set(key, value);
    const ctx = new k8s.RequestContext(url.toString(), method as k8s.HttpMethod);
    await this.kc.applySecurityAuthentication(ctx);
    const headers: Record<string, string> = { ...ctx.getHeaders(), accept: options.accept ?? 'application/json', 'user-agent': this.userAgent };
    if (options.body !== undefined) headers['content-type'] = options.contentType ?? 'application/json';
    const response = await fetch(url, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      dispatcher: (this.dispatcher ??= ctx.getDispatcher()) as never,
      signal: options.signal,
    });
    if (!response.ok) throw new KubeError(method, url.pathname, response.status, await response.text());
    return response;
  }
}

export interface RequestOptions {
  readonly body?: unknown;
  readonly contentType?: string;
  readonly query?: Record<string, string | undefined>;
  readonly timeoutMs?: number;
  /** The Accept header, e.g. to ask for metadata only; JSON by default. */
  readonly accept?: string;
}

/** A failed request, with the API server's own Status message when it sent one. */
export class KubeError extends Error {
  readonly reason?: string;
  readonly status?: { message?: string; reason?: string; details?: unknown };

  constructor(
    readonly method: string,
    readonly path: string,
    readonly code: number,
    readonly body: string,
  ) {
    let status: KubeError['status'];
    try {
      status = JSON.parse(body);
    } catch {
      status = undefined;
    }
    super(`${method} ${path}: HTTP ${code}: ${status?.message ?? body.slice(0, 200)}`);
    this.status = status;
    this.reason = status?.reason;
  }
}

export function isNotFound(err: unknown): boolean {
  return err instanceof KubeError && err.code === 404;
}
