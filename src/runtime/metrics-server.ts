import { createServer as createHttpServer, IncomingMessage, ServerResponse } from 'node:http';
import { createServer as createHttpsServer, Server as HttpsServer } from 'node:https';
import { METRICS_PATH } from '../core/install/metrics-endpoint';
import { isRead, Listener, pathOf, send, TEXT } from './http';
import { MetricsAuthorizer } from './metrics-auth';
import { Metrics } from './metrics';

export interface MetricsServerOptions {
  /** The port to listen on; 0 picks any free port (start() says which). */
  readonly port: number;
  /** @default 0.0.0.0, so Prometheus reaches it on the pod IP */
  readonly host?: string;
  /** What GET /metrics renders. */
  readonly metrics: Metrics;
  /** More exposition text after `metrics`: the process and runtime metrics (see processMetrics). */
  readonly processMetrics?: () => Promise<string>;
  /** HTTPS with this certificate, and every scrape authenticated and authorized; none serves plain HTTP to anyone (--metrics-secure=false, for local development). */
  readonly secure?: { readonly tls: { readonly cert: string; readonly key: string }; readonly authorizer: MetricsAuthorizer };
}

const EXPOSITION = 'text/plain; version=0.0.4; charset=utf-8';

/**
 * Prometheus' scrapes of GET /metrics, as kubebuilder's scaffold serves them: HTTPS on a port of
 * its own, each scrape's bearer token reviewed by the API server (401 without a valid one, 403
 * for a user the metrics-reader role is not bound to). It logs nothing: headers carry tokens.
 */
export class MetricsServer {
  private readonly listener: Listener;
  private https?: HttpsServer;

  constructor(private readonly options: MetricsServerOptions) {
    const handle = (req: IncomingMessage, res: ServerResponse) => void this.handle(req, res);
    const tls = options.secure?.tls;
    this.listener = new Listener('metrics server', () => {
      if (!tls) return createHttpServer(handle);
      return (this.https = createHttpsServer({ cert: tls.cert, key: tls.key, minVersion: 'TLSv1.2' }, handle));
    });
  }

  /** Serves another certificate (a renewed one) to new connections, without a restart. */
  use(tls: { readonly cert: string; readonly key: string }): void {
    if (!this.https) throw new Error('the metrics server serves HTTPS only once started with --metrics-secure');
    this.https.setSecureContext({ cert: tls.cert, key: tls.key, minVersion: 'TLSv1.2' });
  }

  start(): Promise<number> {
    return this.listener.start(this.options.port, this.options.host ?? '0.0.0.0');
  }

  stop(): Promise<void> {
    return this.listener.stop();
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (pathOf(req) !== METRICS_PATH) return send(res, 404, TEXT, 'not found');
    if (!isRead(req, res)) return;
    const authorizer = this.options.secure?.authorizer;
    if (authorizer) {
      const verdict = await authorizer.check(req.headers.authorization);
      if (verdict.status !== 200) return send(res, verdict.status, TEXT, verdict.message, verdict.status === 401 ? { 'www-authenticate': 'Bearer' } : {});
    }
    try {
      const own = this.options.metrics.render();
      send(res, 200, EXPOSITION, this.options.processMetrics ? own + (await this.options.processMetrics()) : own);
    } catch (err) {
      send(res, 500, TEXT, `${METRICS_PATH} failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
}
