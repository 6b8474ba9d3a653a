import type { KubeConfig } from '@kubernetes/client-node';
import { IncomingMessage, request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';
import { ENGINE_NAME } from '../core/install/identity';
import { projectVersion } from '../core/install/version';
import { clientNodeConnection, isClientNodeConfig, KubeConnection } from './connection';

/**
 * Unstructured access to the API server: our JSON goes on the wire exactly as rendered.
 *
 * Why not `KubernetesObjectApi`: it serializes every kind it knows through the client's
 * typed models, whose property names differ from the wire names (`_enum`, `xKubernetesValidations`),
 * so a CRD applied from YAML silently loses its `enum`, `default` and CEL rules (seen with
 * client-node 2.0.1 against kube-apiserver 1.36).
 */
export class KubeRest {
  readonly connection: KubeConnection;
  /** Where requests go, parsed from the server URL once rather than a URL object per request. */
  private target?: RequestTarget;
  /**
   * How the API server's audit log tells our requests from anyone else's; its name is the
   * field manager of every write that names none (a Lease's, a merge patch's).
   */
  private readonly userAgent: string;

  constructor(
    /** See loadKubeConnection; a client-node KubeConfig is taken too (tests and tools hold one). */
    source: KubeConnection | KubeConfig,
    /** Told of every request before it is sent (metrics count them). */
    private readonly onRequest?: (method: string) => void,
    /** Told how each request ended: its HTTP status code, or `<error>` when none came (client-go's convention). */
    private readonly onResponse?: (method: string, code: string, host: string) => void,
    /** The client's name in its User-Agent: the operator's (OperatorIdentity.name), else the engine's. */
    client: string = ENGINE_NAME,
  ) {
    this.userAgent = `${client}/${projectVersion()}`;
    this.connection = isClientNodeConfig(source) ? clientNodeConnection(source) : source;
  }

  async request<T = unknown>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    // A plain timer, cleared at the end, rather than AbortSignal.timeout: that one's timer is left
    // to the garbage collector, a cost per request that showed in profiles.
    const deadline = new AbortController();
    const timeoutMs = options.timeoutMs ?? 30_000;
    const timer = setTimeout(() => deadline.abort(new DOMException(`${method} ${path}: no answer within ${timeoutMs} ms`, 'TimeoutError')), timeoutMs);
    try {
      const response = await this.send(method, path, { ...options, signal: deadline.signal });
      if (!response) return undefined as T;
      const text = await readText(response);
      return (text ? JSON.parse(text) : undefined) as T;
    } finally {
      clearTimeout(timer);
    }
  }

  /** A GET whose body is read as it arrives (a watch); fails like `request` on an error status. */
  async stream(path: string, query: Record<string, string | undefined>, signal: AbortSignal, accept?: string): Promise<AsyncIterable<Uint8Array>> {
    return (await this.send('GET', path, { query, signal, accept }))!;
  }

  /**
   * node:http(s), not fetch() nor undici: fetch's WHATWG objects were most of the controller's
   * own CPU, and undici's WebAssembly HTTP parser holds about 30 MiB more after a few thousand
   * requests than node's built-in one, for the same CPU (measured side by side).
   */
  private async send(method: string, path: string, options: RequestOptions & { signal: AbortSignal }): Promise<IncomingMessage | undefined> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.sendOnce(method, path, options);
      } catch (err) {
        const wait = err instanceof KubeError ? err.retryAfterMs : undefined;
        if (wait === undefined || attempt >= MAX_RETRY_AFTER_ATTEMPTS || options.signal.aborted) throw err;
        // Woken early by the request's own deadline, which then fails the next attempt.
        await sleep(wait, undefined, { signal: options.signal }).catch(() => undefined);
      }
    }
  }

  private async sendOnce(method: string, path: string, options: RequestOptions & { signal: AbortSignal }): Promise<IncomingMessage | undefined> {
    this.onRequest?.(method);
    const target = (this.target ??= requestTarget(this.connection.server));
    const query = new URLSearchParams();
    for (const [key, value] of Object.entries(options.query ?? {})) if (value !== undefined) query.set(key, value);
    const search = query.size ? `?${query}` : '';
    const { headers: credentials, agent } = await this.connection.prepare();
    const body = options.body === undefined ? undefined : JSON.stringify(options.body);
    const headers: Record<string, string | string[] | number> = { ...credentials, accept: options.accept ?? 'application/json', 'user-agent': this.userAgent };
    if (body !== undefined) {
      headers['content-type'] = options.contentType ?? 'application/json';
      headers['content-length'] = Buffer.byteLength(body);
    }
    const send = target.protocol === 'http:' ? httpRequest : httpsRequest;
    // No socket timeout: a watch may be quiet for minutes; the signal bounds every request instead.
    const response = await new Promise<IncomingMessage>((resolve, reject) => {
      const { protocol, hostname, port } = target;
      send({ protocol, hostname, port, path: `${target.path}${path}${search}`, method, headers, agent, signal: options.signal }, resolve)
        .once('error', reject)
        .end(body);
    }).catch((err: unknown) => {
      this.onResponse?.(method, '<error>', target.host);
      throw err;
    });
    this.onResponse?.(method, String(response.statusCode), target.host);
    if (response.statusCode === 404 && options.notFoundAsUndefined) {
      response.resume();
      return undefined;
    }
    if (response.statusCode! >= 300) throw new KubeError(method, `${target.path}${path}`, response.statusCode!, await readText(response), retryAfter(response));
    return response;
  }
}

/**
 * As client-go: a 429 or 5xx that carries Retry-After is sent again after that many seconds,
 * whatever the verb (the server asked for it: an API server shutting down, a CRD's storage
 * being replaced after the CRD changed, priority and fairness), at most this many times.
 */
const MAX_RETRY_AFTER_ATTEMPTS = 10;

function retryAfter(response: IncomingMessage): number | undefined {
  const code = response.statusCode!;
  const header = response.headers['retry-after'];
  if ((code !== 429 && code < 500) || header === undefined) return undefined;
  const seconds = Number(header);
  return Number.isInteger(seconds) && seconds >= 0 ? Math.min(seconds, 10) * 1000 : undefined;
}

interface RequestTarget {
  readonly protocol: string;
  /** Without an IPv6 address's brackets, as node:http expects. */
  readonly hostname: string;
  readonly port: string;
  /** A path prefix of the server URL (e.g. a proxy's), without a trailing slash. */
  readonly path: string;
  /** host[:port] as the server URL says it, for metrics. */
  readonly host: string;
}

function requestTarget(server: string): RequestTarget {
  const url = new URL(server);
  return { protocol: url.protocol, hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'), port: url.port, path: url.pathname.replace(/\/+$/, ''), host: url.host };
}

/** A whole response body as text; events rather than async iteration, which costs more per response. */
function readText(response: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    response
      .on('data', (chunk: Buffer) => chunks.push(chunk))
      .once('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
      .once('error', reject)
      // Closed without an end and without an error (the request was destroyed): fail rather than hang.
      .once('close', () => {
        if (!response.complete) reject(new Error('the connection closed before the whole answer arrived'));
      });
  });
}

export interface RequestOptions {
  readonly body?: unknown;
  readonly contentType?: string;
  readonly query?: Record<string, string | undefined>;
  readonly timeoutMs?: number;
  /** The Accept header, e.g. to ask for metadata only; JSON by default. */
  readonly accept?: string;
  /** Answer a 404 with undefined rather than a KubeError: cheaper where absence is expected. */
  readonly notFoundAsUndefined?: boolean;
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
    /** How long the server asked us to wait before sending it again (Retry-After), if it did. */
    readonly retryAfterMs?: number,
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
