import Fastify, { FastifyInstance } from 'fastify';
import type { Server as HttpsServer } from 'node:https';
import { AddressInfo, Socket } from 'node:net';
import { answerConversionReview } from '../../core/conversion-review';
import { AnyKind } from '../../core/kind';
import { Logger } from '../log';
import { TlsMaterial } from './certificates';
import { WEBHOOK_PATH } from '../../core/webhook';

export interface ConversionServerOptions {
  readonly kinds: readonly AnyKind[];
  /** 0 picks a free port (start() says which). */
  readonly port: number;
  readonly host: string;
}

/** A body the API server sends for a list of many objects may be large; an object is at most 1.5 MiB in etcd. */
const BODY_LIMIT = 64 * 1024 * 1024;

/**
 * The conversion webhook: HTTPS on fastify (the project's HTTP library, whose `https` option
 * gives a node:https server), POST /convert answers a ConversionReview. A body that is not JSON
 * gets a ConversionReview-shaped failure with 400, never a crash. It logs no request: a body
 * holds users' objects.
 */
export class ConversionServer {
  private app?: FastifyInstance<HttpsServer>;
  private served?: TlsMaterial;
  /** Every TCP connection, also those whose TLS handshake is not done (fastify's forced close knows only HTTP ones). */
  private readonly sockets = new Set<Socket>();

  constructor(
    private readonly options: ConversionServerOptions,
    private readonly log: Logger,
  ) {}

  /** Listens with this certificate; resolves with the bound port. */
  async start(tls: TlsMaterial): Promise<number> {
    if (this.app) throw new Error('the conversion webhook is already started');
    const app = Fastify({ https: { cert: tls.cert, key: tls.key, minVersion: 'TLSv1.2' }, logger: false, bodyLimit: BODY_LIMIT, forceCloseConnections: true });
    this.app = app;
    this.served = tls;
    // The review is read as text and parsed here, so that bad JSON is answered in the review's own words.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));
    app.post(WEBHOOK_PATH, async (request, reply) => {
      let review: unknown;
      try {
        review = JSON.parse(String(request.body ?? ''));
      } catch (err) {
        return reply.code(400).send(failure(`the body is not JSON (${(err as Error).message}); expected a ConversionReview of apiextensions.k8s.io/v1`));
      }
      try {
        return answerConversionReview(this.options.kinds, review);
      } catch (err) {
        // answerConversionReview throws for nothing a request may hold; a bug must still not take the process down.
        this.log.error('conversion failed unexpectedly', { error: err as Error });
        return reply.code(500).send(failure(`the conversion failed unexpectedly: ${(err as Error).message}`));
      }
    });
    app.server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    try {
      await app.listen({ port: this.options.port, host: this.options.host });
    } catch (err) {
      this.app = undefined;
      throw new Error(`the conversion webhook cannot listen on ${this.options.host}:${this.options.port}: ${(err as Error).message}`);
    }
    return (app.server.address() as AddressInfo).port;
  }

  /** Serves a renewed certificate to new connections, without a restart (open ones keep theirs until they close). */
  use(tls: TlsMaterial): void {
    if (!this.app || (this.served?.cert === tls.cert && this.served.key === tls.key)) return;
    this.app.server.setSecureContext({ cert: tls.cert, key: tls.key, minVersion: 'TLSv1.2' });
    this.served = tls;
  }

  async stop(): Promise<void> {
    const app = this.app;
    this.app = undefined;
    const closed = app?.close();
    for (const socket of this.sockets) socket.destroy();
    await closed;
  }
}

function failure(message: string) {
  return { apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', response: { uid: '', convertedObjects: [], result: { status: 'Failure', message } } };
}
