import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { KubeError, KubeRest } from '../engine/client';
import { Identities } from './acting-as';
import { HttpError } from './errors';

/**
 * Who the UI acts as. token (the default, as Kubernetes Dashboard and Headlamp): each user's
 * own bearer token, checked by the API server. impersonate: the user an authenticating proxy
 * names, only for requests that prove they came through it and only for listed users.
 * service-account: the UI's own ServiceAccount for everyone who reaches it.
 */
export const AUTH_MODES = ['token', 'impersonate', 'service-account'] as const;
export type AuthMode = (typeof AUTH_MODES)[number];

export interface Impersonation {
  /** The header the proxy names the user in, e.g. X-Forwarded-User. */
  readonly userHeader: string;
  /** The only users the UI may act as (its RBAC grants `impersonate` on these names only). */
  readonly users: readonly string[];
  /** The header carrying the secret shared with the proxy. */
  readonly proxySecretHeader: string;
  /** The shared secret itself: a request without it did not come through the proxy. */
  readonly proxySecret: string;
}

export type UiAuth = { readonly mode: 'token' } | { readonly mode: 'service-account' } | ({ readonly mode: 'impersonate' } & Impersonation);

/** The HttpOnly cookie the login form stores a pasted token in. */
export const TOKEN_COOKIE = 'guitar-ui-token';
/** A bearer token as it may travel in a header or a cookie: printable, no spaces, bounded. */
export const TOKEN_PATTERN = /^[\x21-\x7e]{1,4096}$/;

/** Who one request acts as, and the key its live-update connections are counted under. */
export interface Actor {
  readonly rest: KubeRest;
  /** The user's name where the UI knows it before asking the API server. */
  readonly user?: string;
  /** Where the user's token came from (token mode); only a cookie can be signed out of. */
  readonly token?: 'header' | 'cookie';
  readonly key: string;
}

const digest = (text: string) => createHash('sha256').update(text).digest();

function header(req: FastifyRequest, name: string): string | undefined {
  const value = req.headers[name.toLowerCase()];
  return typeof value === 'string' && value.trim() ? value.trim() : undefined;
}

/** The user's bearer token: an authenticating proxy's Authorization header first (as Dashboard), else the login form's cookie. */
function bearerToken(req: FastifyRequest): { token: string; from: 'header' | 'cookie' } | undefined {
  const authorization = /^Bearer\s+(\S+)$/i.exec(header(req, 'authorization') ?? '');
  if (authorization && TOKEN_PATTERN.test(authorization[1])) return { token: authorization[1], from: 'header' };
  const cookie = req.cookies[TOKEN_COOKIE];
  return cookie && TOKEN_PATTERN.test(cookie) ? { token: cookie, from: 'cookie' } : undefined;
}

/** Thrown when a request carries no token: the login page answers it. */
export class LoginRequired extends HttpError {
  constructor(message = 'Sign in with a Kubernetes token to see and change guitars.') {
    super(401, message);
  }
}

/** Decides, for each request, with whose rights it runs; throws 401 or 403 when it may not run at all. */
export class Authenticator {
  private readonly secret?: Buffer;
  private readonly users?: ReadonlySet<string>;

  constructor(
    readonly auth: UiAuth,
    private readonly identities: Identities,
  ) {
    if (auth.mode === 'impersonate') {
      this.secret = digest(auth.proxySecret);
      this.users = new Set(auth.users);
    }
  }

  actorFor(req: FastifyRequest): Actor {
    const { auth } = this;
    switch (auth.mode) {
      case 'service-account':
        return { rest: this.identities.restFor(undefined), key: `address:${req.ip}` };
      case 'token': {
        const bearer = bearerToken(req);
        if (!bearer) throw new LoginRequired();
        return { rest: this.identities.restWithToken(bearer.token), token: bearer.from, key: `token:${digest(bearer.token).toString('hex')}` };
      }
      case 'impersonate': {
        // Whoever is not the proxy cannot name a user: its header is not even read.
        const presented = header(req, auth.proxySecretHeader);
        if (!presented || !timingSafeEqual(digest(presented), this.secret!)) {
          throw new HttpError(401, `This UI acts only for requests its authenticating proxy sends (with the proxy's secret in ${auth.proxySecretHeader}); this one did not come through it.`);
        }
        const user = header(req, auth.userHeader);
        if (!user) throw new HttpError(401, `The authenticating proxy named no user in the ${auth.userHeader} header.`);
        if (!this.users!.has(user)) throw new HttpError(403, `This UI may not act as ${user}: it acts only as the users it is configured for (--impersonate-users).`);
        return { rest: this.identities.restFor(user), user, key: `user:${user}` };
      }
    }
  }
}

/** The user the API server sees for these credentials (a SelfSubjectReview, which every authenticated user may create). */
export async function whoAmI(rest: KubeRest): Promise<string> {
  const review = await rest.request<{ status?: { userInfo?: { username?: string } } }>('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
  });
  return review.status?.userInfo?.username ?? '';
}

/** The API server refused the credentials themselves (an expired or unknown token). */
export const isUnauthenticated = (err: unknown) => err instanceof KubeError && err.code === 401;
