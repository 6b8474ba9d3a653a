import { createHash } from 'node:crypto';
import { KubeRest } from '../kube/rest';

/** Whether a scrape may read the metrics: 200, or why not as the HTTP status to answer. */
export interface Verdict {
  readonly status: 200 | 401 | 403 | 500;
  readonly message: string;
}

export interface MetricsAuthOptions {
  /** The non-resource path the SubjectAccessReview asks about. */
  readonly path: string;
  /** How long a verdict is kept for the same token. @default 10 seconds */
  readonly ttlMs?: number;
  /** Tokens whose verdicts are kept at most; the oldest goes first. @default 1000 */
  readonly maxEntries?: number;
}

interface TokenReview {
  status?: { authenticated?: boolean; error?: string; user?: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> } };
}
interface SubjectAccessReview {
  status?: { allowed?: boolean; reason?: string };
}

/**
 * controller-runtime's WithAuthenticationAndAuthorization: the bearer token is checked by the
 * API server (a TokenReview), then whether its user may `get` the metrics path (a
 * SubjectAccessReview on the non-resource URL, which the metrics-reader ClusterRole grants).
 * Verdicts are kept a short while by a hash of the token, as that filter's caches do, so that a
 * scrape loop costs the API server two requests per token and interval, not per scrape; a
 * revoked binding takes effect within ttlMs. The token itself is never logged or kept.
 */
export class MetricsAuthorizer {
  private readonly verdicts = new Map<string, { verdict: Verdict; until: number }>();
  private readonly ttlMs: number;
  private readonly maxEntries: number;

  constructor(
    private readonly rest: KubeRest,
    private readonly options: MetricsAuthOptions,
  ) {
    this.ttlMs = options.ttlMs ?? 10_000;
    this.maxEntries = options.maxEntries ?? 1000;
  }

  /** The verdict for a request's Authorization header. */
  async check(authorization: string | undefined): Promise<Verdict> {
    const token = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
    if (!token) return { status: 401, message: 'Unauthorized: expected an Authorization header with a bearer token' };
    const key = createHash('sha256').update(token).digest('hex');
    const now = Date.now();
    const kept = this.verdicts.get(key);
    if (kept && kept.until > now) return kept.verdict;
    const verdict = await this.review(token);
    // An API server that could not answer is asked again next time.
    if (verdict.status !== 500) {
      this.verdicts.delete(key);
      this.verdicts.set(key, { verdict, until: now + this.ttlMs });
      for (const [old, entry] of this.verdicts) {
        if (this.verdicts.size <= this.maxEntries && entry.until > now) break;
        this.verdicts.delete(old);
      }
    }
    return verdict;
  }

  private async review(token: string): Promise<Verdict> {
    let user: NonNullable<NonNullable<TokenReview['status']>['user']>;
    try {
      const review = await this.rest.request<TokenReview>('POST', '/apis/authentication.k8s.io/v1/tokenreviews', {
        body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } },
      });
      if (!review.status?.authenticated || !review.status.user?.username) return { status: 401, message: 'Unauthorized: the API server does not accept the bearer token' };
      user = review.status.user;
    } catch (err) {
      return { status: 500, message: `could not review the token with the API server: ${(err as Error).message}` };
    }
    try {
      const access = await this.rest.request<SubjectAccessReview>('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
        body: {
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SubjectAccessReview',
          spec: { user: user.username, uid: user.uid, groups: user.groups, extra: user.extra, nonResourceAttributes: { path: this.options.path, verb: 'get' } },
        },
      });
      if (access.status?.allowed) return { status: 200, message: 'ok' };
      return { status: 403, message: `Forbidden: user "${user.username}" may not get ${this.options.path} (bind the metrics-reader ClusterRole)` };
    } catch (err) {
      return { status: 500, message: `could not review the access with the API server: ${(err as Error).message}` };
    }
  }
}
