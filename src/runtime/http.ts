import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';

export interface HealthServerOptions {
  /** The port to listen on; 0 picks any free port (start() says which). */
  readonly port: number;
  /** The address to listen on. Default: 0.0.0.0, so the kubelet reaches it on the pod IP. */
  readonly host?: string;
  /** Whether the controller is ready to work (e.g. its caches synced): GET /readyz. */
  readonly ready: () => boolean;
  /** Whether the process is healthy; false makes the kubelet restart it: GET /healthz. Default: always true. */
  readonly live?: () => boolean;
}

export const TEXT = 'text/plain; charset=utf-8';

/**
 * A node HTTP(S) server that listens, says its port, and stops closing open connections, so that
 * a keep-alive client cannot hold shutdown up.
 */
export class Listener {
  private server?: Server;

  constructor(
    /** What it serves, for errors. */
    private readonly what: string,
    private readonly make: () => Server,
  ) {}

  /** Listens; resolves with the bound port. */
  start(port: number, host: string): Promise<number> {
    if (this.server) return Promise.reject(new Error(`the ${this.what} is already started`));
    const server = (this.server = this.make());
    return new Promise((resolve, reject) => {
      server.once('error', (err) => {
        this.server = undefined;
        reject(new Error(`the ${this.what} cannot listen on ${host}:${port}: ${err.message}`));
      });
      server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
    });
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }
}

/**
 * The kubelet's probes, on a port of their own and without data, so that plain HTTP is fine
 * (the metrics are served apart: metrics-server.ts). It logs nothing: probes arrive every few seconds.
 */
export class HealthServer {
  private readonly listener = new Listener('health server', () => createServer((req, res) => this.handle(req, res)));

  constructor(private readonly options: HealthServerOptions) {}

  start(): Promise<number> {
    return this.listener.start(this.options.port, this.options.host ?? '0.0.0.0');
  }

  stop(): Promise<void> {
    return this.listener.stop();
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const path = pathOf(req);
    const check = path === '/healthz' ? () => this.options.live?.() ?? true : path === '/readyz' ? this.options.ready : undefined;
    if (!check) return send(res, 404, TEXT, 'not found');
    if (!isRead(req, res)) return;
    try {
      if (check()) send(res, 200, TEXT, 'ok');
      else send(res, 503, TEXT, path === '/healthz' ? 'not live' : 'not ready');
    } catch (err) {
      // A throwing check answers as "unhealthy" rather than taking the process down.
      send(res, 503, TEXT, `${path} failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
}

/** The request's path, query string ignored. */
export function pathOf(req: IncomingMessage): string {
  return new URL(req.url ?? '/', 'http://localhost').pathname;
}

/** Whether it is a GET or HEAD (node drops HEAD's body itself); anything else is answered 405 here. */
export function isRead(req: IncomingMessage, res: ServerResponse): boolean {
  if (req.method === 'GET' || req.method === 'HEAD') return true;
  send(res, 405, TEXT, 'method not allowed', { allow: 'GET, HEAD' });
  return false;
}

export function send(res: ServerResponse, status: number, contentType: string, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': contentType, 'cache-control': 'no-store', ...headers });
  res.end(body);
}
