import { Agent, createServer, request, Server } from 'node:https';
import { IncomingMessage, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';

/** How the proxy misbehaves now; `none` forwards everything as it is. */
export type ProxyFault =
  | { kind: 'none' }
  | { kind: 'slow'; delayMs: number }
  | { kind: 'throttle'; share: number }
  | { kind: 'error'; share: number }
  | { kind: 'gone' }
  /** New watches are held open and never answered: no event, no error, as through a partition that drops packets. */
  | { kind: 'stall' };

/** A fault for the requests whose path matches (all when `path` is left out); the first rule that matches applies. */
export interface ProxyRule {
  readonly path?: RegExp;
  readonly fault: ProxyFault;
}

/** One write the API server accepted, as the proxy saw it go by. */
export interface Write {
  readonly replica: string;
  readonly method: string;
  /** The object's path without the query (for a create, the collection's path plus the new name). */
  readonly object: string;
  /** When the request reached the proxy. */
  readonly at: number;
}

export interface FaultProxy {
  /** https://127.0.0.1:<port> of the listener a replica talks to: the listener tells the proxy who wrote. */
  url(replica: string): string;
  set(fault: ProxyFault | readonly ProxyRule[]): void;
  /** Cuts every watch mid-stream (the controller must list and watch again). */
  cutWatches(): number;
  readonly writes: Write[];
  readonly answered: Record<string, number>;
  close(): Promise<void>;
}

export interface ProxyOptions {
  readonly upstream: string;
  readonly upstreamCa: string;
  readonly cert: string;
  readonly key: string;
  readonly replicas: readonly string[];
  /** Deterministic per-request coin (from the soak's seed) for the share of requests a fault hits. */
  readonly coin: (share: number) => boolean;
}

const GONE = JSON.stringify({ type: 'ERROR', object: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'too old resource version (soak fault)', reason: 'Expired', code: 410 } });

const isWatch = (url: URL) => url.searchParams.get('watch') === 'true' || url.searchParams.get('watch') === '1';
const isWrite = (method: string) => method !== 'GET' && method !== 'HEAD' && method !== 'OPTIONS';

/**
 * A TLS-terminating proxy on loopback between controllers and the API server. It must end
 * TLS to answer with HTTP statuses of its own (429, 5xx, a 410 inside a watch); it forwards
 * everything else with the caller's own credentials, and logs each accepted write with the
 * replica that sent it (one listener per replica).
 */
export async function startFaultProxy(options: ProxyOptions): Promise<FaultProxy> {
  const upstream = new URL(options.upstream);
  const agent = new Agent({ keepAlive: true, ca: options.upstreamCa });
  let rules: readonly ProxyRule[] = [];
  const watches = new Set<ServerResponse>();
  const writes: Write[] = [];
  const answered: Record<string, number> = {};
  const count = (what: string) => void (answered[what] = (answered[what] ?? 0) + 1);

  const status = (res: ServerResponse, code: number, reason: string) => {
    count(String(code));
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (code === 429) headers['retry-after'] = '1';
    res.writeHead(code, headers).end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `soak fault: ${reason}`, reason, code }));
  };

  const forward = (replica: string, req: IncomingMessage, res: ServerResponse, body: Buffer, url: URL, arrived: number) => {
    const headers = { ...req.headers, host: upstream.host };
    const out = request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers, agent }, (answer) => {
      const code = answer.statusCode ?? 502;
      if (isWrite(req.method!) && code < 300) writes.push({ replica, method: req.method!, object: objectOf(req.method!, url.pathname, body), at: arrived });
      res.writeHead(code, answer.headers);
      answer.pipe(res);
      answer.on('error', () => res.destroy());
    });
    out.on('error', () => (res.headersSent ? res.destroy() : status(res, 503, 'ServiceUnavailable')));
    res.on('close', () => out.destroy());
    out.end(body);
  };

  const handle = (replica: string) => (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      // A write counts from when the replica sent it: a slowed request still belongs to the term it was sent in.
      const arrived = Date.now();
      const url = new URL(req.url ?? '/', 'https://proxy');
      const body = Buffer.concat(chunks);
      const watch = isWatch(url);
      if (watch) {
        watches.add(res);
        res.on('close', () => watches.delete(res));
      }
      const current = rules.find((r) => !r.path || r.path.test(url.pathname))?.fault ?? { kind: 'none' };
      if (current.kind === 'gone' && watch) {
        count('410');
        return void res.writeHead(200, { 'content-type': 'application/json' }).end(`${GONE}\n`);
      }
      if (current.kind === 'stall' && watch) return void count('stalled watch');
      if (current.kind === 'throttle' && options.coin(current.share)) return status(res, 429, 'TooManyRequests');
      if (current.kind === 'error' && options.coin(current.share)) return status(res, options.coin(0.5) ? 500 : 503, 'InternalError');
      if (current.kind === 'slow') return void setTimeout(() => forward(replica, req, res, body, url, arrived), current.delayMs);
      forward(replica, req, res, body, url, arrived);
    });
  };

  const servers = new Map<string, Server>();
  for (const replica of options.replicas) {
    const server = createServer({ cert: options.cert, key: options.key }, handle(replica));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', resolve);
    });
    servers.set(replica, server);
  }

  return {
    url: (replica) => `https://127.0.0.1:${(servers.get(replica)!.address() as AddressInfo).port}`,
    set: (next) => {
      rules = Array.isArray(next) ? next : [{ fault: next as ProxyFault }];
    },
    cutWatches: () => {
      const cut = watches.size;
      for (const res of watches) res.destroy();
      watches.clear();
      return cut;
    },
    writes,
    answered,
    close: async () => {
      for (const res of watches) res.destroy();
      agent.destroy();
      await Promise.all([...servers.values()].map((s) => new Promise<void>((resolve) => {
        s.close(() => resolve());
        s.closeAllConnections();
      })));
    },
  };
}

/** The object a write is about: a create names it in its body, every other write in its path. */
function objectOf(method: string, path: string, body: Buffer): string {
  if (method !== 'POST') return path;
  try {
    const name = (JSON.parse(body.toString('utf8')) as { metadata?: { name?: string } }).metadata?.name;
    return name ? `${path}/${name}` : path;
  } catch {
    return path;
  }
}
