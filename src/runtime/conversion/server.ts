import Fastify, { FastifyInstance } from 'fastify';
import type { Server as HttpsServer } from 'node:https';
import { AddressInfo, Socket } from 'node:net';
import { answerAdmissionReview } from '../../core/admission-review';
import { answerConversionReview } from '../../core/conversion-review';
import { AnyKind } from '../../core/contract/kind';
import { Logger } from '../log';
import { TlsMaterial } from './certificates';
import { VALIDATE_PATH, WEBHOOK_PATH } from '../../core/install/webhook';

export interface ConversionServerOptions {
  readonly kinds: readonly AnyKind[];
  /** 0 picks a free port (start() says which). */
  readonly port: number;
  readonly host: string;
  /** @default BODY_LIMIT */
  readonly bodyLimit?: number;
  /** @default MAX_IN_FLIGHT */
  readonly maxInFlight?: number;
}

/**
 * The largest review read, 8 MiB. One object is at most 1.5 MiB (etcd's request limit) and the
 * API server's own requests at most 3 MiB; a list is converted a page at a time in one review, and
 * 8 MiB holds a page of 500 (kubectl's default) objects of 16 KiB. Any peer may send a body, so
 * it is what bounds the memory: MAX_IN_FLIGHT times it, read and parsed, stays well under the
 * container's 512 MiB limit (docs/security.md#the-conversion-webhook).
 */
export const BODY_LIMIT = 8 * 1024 * 1024;
/** Reviews read or answered at once; more get 429 at once, before their body is read. A review takes milliseconds. */
export const MAX_IN_FLIGHT = 8;
/** A request whose body has not arrived by then is dropped: the API server gives a webhook 30 s at most. */
const REQUEST_TIMEOUT_MS = 30_000;

/**
 * The conversion webhook: HTTPS on fastify (the project's HTTP library, whose `https` option
 * gives a node:https server), POST /convert answers a ConversionReview, POST /validate an
 * AdmissionReview of a kind with a `validate` hook. A body that is not JSON
 * gets a ConversionReview-shaped failure with 400, never a crash. It logs no request: a body
 * holds users' objects.
 */
export class ConversionServer {
  private app?: FastifyInstance<HttpsServer>;
  private served?: TlsMaterial;
  private inFlight = 0;
  /** Every TCP connection, also those whose TLS handshake is not done (fastify's forced close knows only HTTP ones). */
  private readonly sockets = new Set<Socket>();

  constructor(
    private readonly options: ConversionServerOptions,
    private readonly log: Logger,
  ) {}

  /** Listens with this certificate; resolves with the bound port. */
  async start(tls: TlsMaterial): Promise<number> {
    if (this.app) throw new Error('the conversion webhook is already started');
    const bodyLimit = this.options.bodyLimit ?? BODY_LIMIT;
    const maxInFlight = this.options.maxInFlight ?? MAX_IN_FLIGHT;
    const app = Fastify({ https: { cert: tls.cert, key: tls.key, minVersion: 'TLSv1.2' }, logger: false, bodyLimit, requestTimeout: REQUEST_TIMEOUT_MS, forceCloseConnections: true });
    this.app = app;
    this.served = tls;
    // Counted from the request's arrival, before its body is read: a peer holding many slow bodies open is refused beyond the cap.
    app.addHook('onRequest', (request, reply, done) => {
      if (this.inFlight >= maxInFlight) {
        void reply.code(429).header('retry-after', '1').header('connection', 'close').send(failure(request.url, `too many reviews at once (${maxInFlight}); retry shortly`));
        return;
      }
      this.inFlight++;
      reply.raw.once('close', () => this.inFlight--);
      done();
    });
    // Fastify refuses a body over bodyLimit by its Content-Length before reading it, or stops reading at the limit: 413, in the review's words.
    app.setErrorHandler((err: { statusCode?: number; message: string }, request, reply) => {
      const status = err.statusCode ?? 500;
      void reply.code(status).send(failure(request.url, status === 413 ? `the body is larger than ${bodyLimit} bytes; a list converted in a version not stored must be read in smaller pages` : err.message));
    });
    // The bytes are parsed here, once, and dropped: neither they nor the text are held with the parsed review; bad JSON is answered in the review's own words.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => {
      try {
        done(null, { review: JSON.parse((body as Buffer).toString('utf8')) as unknown });
      } catch (err) {
        done(null, { invalid: `the body is not JSON (${(err as Error).message})` });
      }
    });
    // Conversion, and the kinds' validate hooks at admission: one server, one certificate, the same limits.
    const serve = (path: string, review: string, answer: (kinds: readonly AnyKind[], body: unknown) => unknown) =>
      app.post(path, async (request, reply) => {
        const body = (request.body ?? { invalid: 'the body is empty' }) as { review?: unknown; invalid?: string };
        if (body.invalid !== undefined) return reply.code(400).send(failure(path, `${body.invalid}; expected a${review.startsWith('A') ? 'n' : ''} ${review}`));
        try {
          return answer(this.options.kinds, body.review);
        } catch (err) {
          // The answers throw for nothing a request may hold; a bug must still not take the process down.
          this.log.error('review failed unexpectedly', { path, error: err as Error });
          return reply.code(500).send(failure(path, `the review failed unexpectedly: ${(err as Error).message}`));
        }
      });
    serve(WEBHOOK_PATH, 'ConversionReview of apiextensions.k8s.io/v1', answerConversionReview);
    serve(VALIDATE_PATH, 'AdmissionReview of admission.k8s.io/v1', answerAdmissionReview);
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

/** A failure in the words of the review the path answers: an AdmissionReview on /validate, a ConversionReview elsewhere. */
function failure(url: string, message: string) {
  if (url.split('?')[0] === VALIDATE_PATH) {
    return { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: '', allowed: false, status: { code: 400, reason: 'BadRequest', message } } };
  }
  return { apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', response: { uid: '', convertedObjects: [], result: { status: 'Failure', message } } };
}
