import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { Metrics } from './metrics';

export interface HealthServerOptions {
  /** The port to listen on; 0 picks any free port (start() says which). */
  readonly port: number;
  /** The address to listen on. Default: 0.0.0.0, so the kubelet and Prometheus reach it on the pod IP. */
  readonly host?: string;
  /** What GET /metrics renders. */
  readonly metrics: Metrics;
  /** Whether the controller is ready to work (e.g. its caches synced): GET /readyz. */
  readonly ready: () => boolean;
  /** Whether the process is healthy; false makes the kubelet restart it: GET /healthz. Default: always true. */
  readonly live?: () => boolean;
  /** More exposition text after `metrics`: the process and runtime metrics (see processMetrics). */
  readonly processMetrics?: () => Promise<string>;
}

const TEXT = 'text/plain; charset=utf-8';
const EXPOSITION = 'text/plain; version=0.0.4; charset=utf-8';

/**
 * The kubelet's probes and Prometheus' scrapes. It logs nothing: probes arrive every few
 * seconds, and request headers may carry credentials.
 */
export class HealthServer {
  private server?: Server;

  constructor(private readonly options: HealthServerOptions) {}

  /** Listens; resolves with the bound port. */
  start(): Promise<number> {
    if (this.server) return Promise.reject(new Error('the health server is already started'));
    const server = createServer((req, res) => this.handle(req, res));
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once('error', (err) => {
        this.server = undefined;
        reject(new Error(`the health server cannot listen on ${this.options.host ?? '0.0.0.0'}:${this.options.port}: ${err.message}`));
      });
      server.listen(this.options.port, this.options.host ?? '0.0.0.0', () => resolve((server.address() as AddressInfo).port));
    });
  }

  /** Stops listening and closes open connections, so a keep-alive scraper cannot hold shutdown up. */
  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    const route = ROUTES[path];
    if (!route) return send(res, 404, TEXT, 'not found');
    // HEAD is GET without a body (node drops the body itself); probes and scrapes only ever GET.
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, TEXT, 'method not allowed', { allow: 'GET, HEAD' });
    try {
      route(this.options, res);
    } catch (err) {
      // A throwing check or render answers as "unhealthy" rather than taking the process down.
      send(res, path === '/metrics' ? 500 : 503, TEXT, `${path} failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
}

const ROUTES: Record<string, (options: HealthServerOptions, res: ServerResponse) => void> = {
  '/healthz': (o, res) => ((o.live?.() ?? true) ? send(res, 200, TEXT, 'ok') : send(res, 503, TEXT, 'not live')),
  '/readyz': (o, res) => (o.ready() ? send(res, 200, TEXT, 'ok') : send(res, 503, TEXT, 'not ready')),
  '/metrics': (o, res) => {
    const own = o.metrics.render();
    if (!o.processMetrics) return send(res, 200, EXPOSITION, own);
    o.processMetrics().then(
      (process) => send(res, 200, EXPOSITION, own + process),
      (err: Error) => send(res, 500, TEXT, `/metrics failed: ${err.message}`),
    );
  },
};

function send(res: ServerResponse, status: number, contentType: string, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': contentType, 'cache-control': 'no-store', ...headers });
  res.end(body);
}
