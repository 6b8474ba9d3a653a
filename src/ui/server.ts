import fastifyCookie from '@fastify/cookie';
import fastifyCsrf from '@fastify/csrf-protection';
import fastifyFormbody from '@fastify/formbody';
import fastifyHelmet from '@fastify/helmet';
import Fastify, { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ServerResponse } from 'node:http';
import { Logger } from '../engine/client';
import { Identities } from './acting-as';
import { APP_JS, STYLE_CSS } from './assets';
import { Actor, Authenticator, isUnauthenticated, LoginRequired, TOKEN_COOKIE, TOKEN_PATTERN, UiAuth, whoAmI } from './auth';
import { HttpError, toUiError, UiError } from './errors';
import { GuitarApi } from './guitars';
import { GuitarFeed, streamRows } from './live';
import { confirmDeletePage, EMPTY_FORM, errorPage, FormState, listPage, loginPage } from './page';
import { StreamLimits } from './stream-limits';

export interface UiServerOptions {
  /** Namespaces the UI shows and writes to; empty means all. */
  readonly namespaces: readonly string[];
  /** With whose rights each request runs. */
  readonly auth: UiAuth;
  /** Believe X-Forwarded-Proto and -Host from a proxy in front: the cookie gets Secure behind TLS, and the same-origin check compares with the public host. */
  readonly trustProxy?: boolean;
  /** How often an open page gets its rows again although nothing changed (ages move on; proxies see traffic). */
  readonly heartbeatMs?: number;
  /** Open live-update streams: in all, and per user. @default 200 and 5 */
  readonly maxStreams?: number;
  readonly maxStreamsPerUser?: number;
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const NOTICE_SUBJECT = /^[a-z0-9-]{1,63}\/[a-z0-9.-]{1,253}$/;
const CSP = {
  defaultSrc: ["'none'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'"],
  imgSrc: ["'self'"],
  connectSrc: ["'self'"],
  formAction: ["'self'"],
  frameAncestors: ["'none'"],
  baseUri: ["'none'"],
};

/** How long the login cookie lasts: a working day; the token itself may expire sooner. */
const TOKEN_COOKIE_SECONDS = 8 * 3600;

/**
 * The guitar web UI: the list (live over server-sent events), the add form and the delete
 * confirmation, acting with each user's own token (the default), as a user a verified proxy
 * names, or with the UI's own ServiceAccount (see auth.ts).
 */
export async function buildUiServer(identities: Identities, options: UiServerOptions, log: Logger): Promise<{ app: FastifyInstance; ready: () => boolean }> {
  // Open pages hold keep-alive and event-stream connections: a shutdown closes them rather than waiting.
  const app = Fastify({ logger: false, bodyLimit: 16 * 1024, forceCloseConnections: true, trustProxy: options.trustProxy ?? false });
  const streams = new Set<ServerResponse>();
  const limits = new StreamLimits(options.maxStreams ?? 200, options.maxStreamsPerUser ?? 5);
  const authenticator = new Authenticator(options.auth, identities);
  // With its own identity the UI needs one watch for every open page; a user's page watches as that user.
  const sharedFeed = options.auth.mode === 'service-account' ? new GuitarFeed(identities.restFor(undefined), options.namespaces, log.child({ component: 'feed' })).start() : undefined;

  await app.register(fastifyCookie);
  await app.register(fastifyFormbody);
  await app.register(fastifyHelmet, { contentSecurityPolicy: { useDefaults: false, directives: CSP }, referrerPolicy: { policy: 'same-origin' } });
  await app.register(fastifyCsrf, { cookieKey: 'guitar-ui-csrf', cookieOpts: { path: '/', sameSite: 'strict', httpOnly: true, secure: 'auto' } });

  app.addHook('onClose', async () => {
    sharedFeed?.stop();
    for (const stream of streams) stream.end();
  });

  const actorOf = (req: FastifyRequest): Actor => authenticator.actorFor(req);
  const apiFor = (req: FastifyRequest) => new GuitarApi(actorOf(req).rest);
  const checkNamespace = (ns: string) => {
    if (options.namespaces.length && !options.namespaces.includes(ns)) throw new HttpError(403, `This UI manages guitars in ${options.namespaces.join(', ')} only, not in ${ns}.`);
  };

  // A cross-site form post carries a foreign (or no) Origin: refuse it before anything else, on top of the CSRF token.
  const sameOrigin = async (req: FastifyRequest) => {
    const site = req.headers['sec-fetch-site'];
    if (site !== undefined && site !== 'same-origin') throw new HttpError(403, 'A change must be sent from this UI\u2019s own page (the browser says it came from another site).');
    const source = req.headers.origin ?? req.headers.referer;
    let host: string | undefined;
    try {
      host = source && source !== 'null' ? new URL(source).host : undefined;
    } catch {
      host = undefined;
    }
    if (!host || host !== req.host) throw new HttpError(403, 'A change must be sent from this UI\u2019s own page (its Origin header is missing or names another site).');
  };
  const guarded = { preHandler: [sameOrigin, app.csrfProtection] };

  // No token, or one the API server no longer accepts: the login page, and a stale cookie is dropped.
  const sendLogin = (reply: FastifyReply, status: number, message: string, error?: string) => {
    if (status === 401 && options.auth.mode === 'token') void reply.clearCookie(TOKEN_COOKIE, { path: '/' });
    return reply.code(status).type('text/html; charset=utf-8').header('cache-control', 'no-store').send(loginPage(reply.generateCsrf(), message, error));
  };
  const sendUiError = (reply: FastifyReply, err: unknown) => {
    if (options.auth.mode === 'token' && isUnauthenticated(err)) return sendLogin(reply, 401, 'The API server did not accept your token (it may have expired). Sign in again.');
    const error: UiError = toUiError(err);
    return reply.code(error.status).type('text/html; charset=utf-8').send(errorPage(error.status, error.message));
  };

  app.setErrorHandler((err: Error & { statusCode?: number; code?: string }, req, reply) => {
    if (err instanceof LoginRequired) {
      if (req.url.startsWith('/events')) return void reply.code(401).type('text/plain; charset=utf-8').send(err.message);
      return void sendLogin(reply, 401, err.message);
    }
    let status = err.statusCode ?? 500;
    let message = err.message;
    if (err.code?.startsWith('FST_CSRF_')) message = 'The form had no valid security token (it may be from an old page or another site). Reload the page and try again.';
    else if (status >= 500) {
      log.error('request failed', { method: req.method, url: req.routeOptions.url, error: err });
      status = 500;
      message = 'Something went wrong in the UI. The error has been logged.';
    }
    void reply.code(status).type('text/html; charset=utf-8').send(errorPage(status, message));
  });
  app.setNotFoundHandler((_req, reply) => void reply.code(404).type('text/html; charset=utf-8').send(errorPage(404, 'There is no such page.')));

  app.get('/healthz', async () => 'ok');
  app.get('/readyz', async (_req, reply) => (ready() ? 'ok' : reply.code(503).send('not ready')));
  app.get('/static/style.css', async (_req, reply) => reply.type('text/css; charset=utf-8').header('cache-control', 'no-cache').send(STYLE_CSS));
  app.get('/static/app.js', async (_req, reply) => reply.type('text/javascript; charset=utf-8').header('cache-control', 'no-cache').send(APP_JS));

  const renderList = async (req: FastifyRequest, reply: FastifyReply, status: number, form: FormState, notice?: { kind: 'info' | 'error'; text: string }) => {
    const actor = actorOf(req);
    let listing;
    let user = actor.user;
    try {
      // A token names no one until the API server says whose it is.
      // The name is a courtesy: only a refused token stops the page.
      const name = actor.token ? whoAmI(actor.rest).catch((err: unknown) => (isUnauthenticated(err) ? Promise.reject(err) : undefined)) : user;
      [listing, user] = await Promise.all([new GuitarApi(actor.rest).list(options.namespaces), name]);
    } catch (err) {
      return sendUiError(reply, err);
    }
    const page = listPage({ ...listing, namespaces: options.namespaces, csrfToken: reply.generateCsrf(), form, notice, user, signOut: actor.token === 'cookie' });
    return reply.code(status).type('text/html; charset=utf-8').header('cache-control', 'no-store').send(page);
  };

  app.get('/', async (req, reply) => {
    const query = req.query as Record<string, unknown>;
    const subject = (key: string) => (typeof query[key] === 'string' && NOTICE_SUBJECT.test(query[key]) ? query[key] : undefined);
    const created = subject('created');
    const deleted = subject('deleted');
    const notice = created ? `Guitar ${created} added; its review follows shortly.` : deleted ? `Guitar ${deleted} deleted.` : undefined;
    return renderList(req, reply, 200, EMPTY_FORM, notice ? { kind: 'info', text: notice } : undefined);
  });

  app.post('/guitars', guarded, async (req, reply) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const text = (key: string) => (typeof body[key] === 'string' ? body[key] : '');
    const form: FormState = { name: text('name').trim(), namespace: text('namespace').trim(), brand: text('brand'), errors: {} };
    const refuse = (error: UiError) => renderList(req, reply, error.status, { ...form, errors: error.fields }, { kind: 'error', text: error.message });
    if (options.namespaces.length && !options.namespaces.includes(form.namespace)) {
      return refuse({ status: 400, message: 'Choose a namespace from the list.', fields: { namespace: `namespace: expected one of ${options.namespaces.join(', ')}` } });
    }
    if (!DNS_LABEL.test(form.namespace)) {
      return refuse({ status: 400, message: 'The namespace is not valid.', fields: { namespace: 'namespace: expected a namespace name (lowercase letters, digits and -, at most 63 characters)' } });
    }
    const api = apiFor(req);
    try {
      await api.create(form.namespace, form.name, form.brand);
    } catch (err) {
      if (options.auth.mode === 'token' && isUnauthenticated(err)) return sendUiError(reply, err);
      const error = toUiError(err);
      log.info('a guitar was refused', { namespace: form.namespace, name: form.name, status: error.status });
      return refuse(error);
    }
    log.info('guitar created', { namespace: form.namespace, name: form.name, user: actorOf(req).user });
    return reply.redirect(`/?created=${encodeURIComponent(`${form.namespace}/${form.name}`)}`, 303);
  });

  app.get('/guitars/:namespace/:name/delete', async (req, reply) => {
    const { namespace, name } = req.params as { namespace: string; name: string };
    checkNamespace(namespace);
    const api = apiFor(req);
    try {
      const guitar = await api.get(namespace, name);
      return reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(confirmDeletePage(guitar, reply.generateCsrf()));
    } catch (err) {
      return sendUiError(reply, err);
    }
  });

  app.post('/guitars/:namespace/:name/delete', guarded, async (req, reply) => {
    const { namespace, name } = req.params as { namespace: string; name: string };
    checkNamespace(namespace);
    const api = apiFor(req);
    try {
      await api.delete(namespace, name);
    } catch (err) {
      return sendUiError(reply, err);
    }
    log.info('guitar deleted', { namespace, name, user: actorOf(req).user });
    return reply.redirect(`/?deleted=${encodeURIComponent(`${namespace}/${name}`)}`, 303);
  });

  app.get('/events', async (req, reply) => {
    const actor = actorOf(req);
    const place = limits.acquire(actor.key);
    if ('refused' in place) {
      log.info('a live page was refused', { user: actor.user, open: streams.size });
      return reply.code(429).header('retry-after', '30').type('text/plain; charset=utf-8').send(place.refused);
    }
    let feed = sharedFeed;
    if (!feed) {
      // Watch only where the user may list, so a forbidden namespace is not retried forever.
      let listing;
      try {
        listing = await new GuitarApi(actor.rest).list(options.namespaces);
      } catch (err) {
        place.release();
        return sendUiError(reply, err);
      }
      const readable = options.namespaces.filter((ns) => !listing.forbidden.includes(ns));
      // (No namespace at all would mean a watch of every namespace.)
      if (options.namespaces.length && !readable.length) {
        place.release();
        return reply.code(403).type('text/plain; charset=utf-8').send(`You may not list guitars in ${options.namespaces.join(', ')}.`);
      }
      feed = new GuitarFeed(actor.rest, readable, log.child({ component: 'feed', user: actor.user })).start();
    }
    const own = feed !== sharedFeed;
    streamRows(req, reply, feed, {
      heartbeatMs: options.heartbeatMs ?? 30_000,
      open: streams,
      onClose: () => {
        place.release();
        if (own) feed.stop();
      },
    });
  });

  const tokenMode = async () => {
    if (options.auth.mode !== 'token') throw new HttpError(404, 'This UI signs in through its authenticating proxy, or not at all.');
  };
  app.get('/login', { preHandler: tokenMode }, async (_req, reply) => sendLogin(reply, 200, 'Sign in with a Kubernetes bearer token to see and change guitars.'));

  app.post('/login', { preHandler: [tokenMode, ...guarded.preHandler] }, async (req, reply) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const token = typeof body.token === 'string' ? body.token.trim() : '';
    if (!TOKEN_PATTERN.test(token)) return sendLogin(reply, 400, 'The token is not valid.', 'token: expected a bearer token (printable characters without spaces, at most 4096)');
    let user;
    try {
      user = await whoAmI(identities.restWithToken(token));
    } catch (err) {
      if (isUnauthenticated(err)) return sendLogin(reply, 401, 'The API server did not accept this token.', 'token: not accepted by the Kubernetes API server (unknown or expired)');
      return sendUiError(reply, err);
    }
    log.info('signed in', { user });
    void reply.setCookie(TOKEN_COOKIE, token, { path: '/', httpOnly: true, secure: true, sameSite: 'strict', maxAge: TOKEN_COOKIE_SECONDS });
    return reply.redirect('/', 303);
  });

  app.post('/logout', guarded, async (_req, reply) => {
    void reply.clearCookie(TOKEN_COOKIE, { path: '/' });
    return reply.redirect('/login', 303);
  });

  const ready = () => sharedFeed?.synced ?? true;
  return { app, ready };
}
