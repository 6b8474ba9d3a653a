import type { AxiosResponse } from 'axios';
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { Quote } from './api';

/** Why a quote could not be had; the controller puts it in the Ready condition's reason. */
export const PROVIDER_FAILURES = ['ProviderUnreachable', 'ProviderTimeout', 'ProviderRejected', 'ProviderAnswerInvalid'] as const;
export type ProviderFailure = (typeof PROVIDER_FAILURES)[number];

/** A failed quote, with a one-line message fit for a status condition (no credentials). */
export class ProviderError extends Error {
  constructor(
    readonly reason: ProviderFailure,
    message: string,
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}

export interface RateProviderOptions {
  /** Base URL of a Frankfurter-style API; may carry a path prefix, userinfo (basic auth) and query parameters. */
  readonly url: string;
  /** How long one request may take in all, connecting included; default 10000. */
  readonly timeoutMs?: number;
  /** Accept an http: URL, whose requests (and any key in the URL) travel in clear; default false. */
  readonly allowHttp?: boolean;
}

/** The controller option that lets an http: provider URL through (a provider on loopback, a test). */
export const ALLOW_HTTP_OPTION = 'exchange-rate-allow-http';
/** The controller option holding the provider URL. */
export const PROVIDER_URL_OPTION = 'exchange-rate-url';

/** The answer is a few hundred bytes; anything far larger is not a rate and must not fill memory. */
const MAX_ANSWER_BYTES = 1024 * 1024;
const DATE = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;

/** axios, loaded at the first fetch: a controller with no ExchangeRate to serve never loads it (about 19 MiB of RSS, measured). */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const loadAxios = () => require('axios') as typeof import('axios');

/** Client of the rate provider: GET {url}/latest?from=BASE&to=CUR. */
export class RateProvider {
  private readonly base: URL;
  private readonly timeoutMs: number;
  /** The URL as messages show it: no userinfo, no query (either may hold a secret). */
  private readonly shownUrl: string;
  private readonly secrets: string[];

  constructor(options: RateProviderOptions) {
    this.base = providerUrl(options.url, options.allowHttp ?? false);
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.shownUrl = `${this.base.origin}${this.base.pathname.replace(/\/+$/, '')}`;
    // Values shorter than 4 characters cannot be real secrets and would mangle every message.
    this.secrets = [this.base.username, this.base.password, ...this.base.searchParams.values()]
      .flatMap((v) => [v, safeDecode(v)])
      .filter((v) => v.length >= 4)
      .sort((a, b) => b.length - a.length);
  }

  async quote(base: string, currency: string): Promise<Quote> {
    const url = new URL(this.base);
    url.pathname = `${url.pathname.replace(/\/+$/, '')}/latest`;
    url.searchParams.set('from', base);
    url.searchParams.set('to', currency);
    const answer = await this.get(url);
    if (answer.status < 200 || answer.status > 299) {
      const detail = providerMessage(answer.data);
      this.fail('ProviderRejected', `answered HTTP ${answer.status} for ${base}/${currency}${detail ? `: ${detail}` : ''}`);
    }
    return this.parse(answer.data, base, currency);
  }

  private async get(url: URL): Promise<AxiosResponse<string>> {
    // Loaded before the clock starts: the deadline is the provider's, not our module loading's.
    const axios = loadAxios();
    // One deadline for the whole exchange: axios' own timeout only notices an idle socket.
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), this.timeoutMs);
    try {
      return await axios.get<string>(url.toString(), {
        signal: deadline.signal,
        responseType: 'text',
        transformResponse: [(data: string) => data], // parsed below, so garbage gets a clear message
        validateStatus: () => true,
        maxContentLength: MAX_ANSWER_BYTES,
        maxRedirects: 5,
        // Only within the provider's origin: elsewhere would get the path and query, which may hold its key.
        beforeRedirect: (next: { protocol?: string; hostname?: string; port?: string | number }) => {
          const port = next.port === '' || next.port === undefined ? '' : `:${next.port}`;
          const origin = new URL(`${next.protocol}//${next.hostname?.includes(':') ? `[${next.hostname}]` : next.hostname}${port}`).origin;
          if (origin !== this.base.origin) throw new RedirectRefused(origin);
        },
        // A fresh connection per fetch: fetches are minutes apart, and a pooled socket the
        // provider already closed would fail the next fetch for nothing.
        httpAgent: new HttpAgent({ keepAlive: false }),
        httpsAgent: new HttpsAgent({ keepAlive: false }),
      });
    } catch (err) {
      if (deadline.signal.aborted) this.fail('ProviderTimeout', `did not answer within ${formatMs(this.timeoutMs)}`);
      const code = (err as { code?: string }).code;
      const text = snippet(err instanceof Error ? err.message : String(err), 160);
      if (/maxContentLength/.test(text)) this.fail('ProviderAnswerInvalid', `answered more than ${MAX_ANSWER_BYTES} bytes, which is not a rate`);
      if (code === 'ERR_FR_TOO_MANY_REDIRECTS') this.fail('ProviderRejected', 'redirected more than 5 times');
      const refused = refusedRedirect(err);
      if (refused) this.fail('ProviderRejected', `redirected to another origin (${refused.origin}), which is not followed: only redirects within ${this.base.origin} are`);
      this.fail('ProviderUnreachable', `could not be reached: ${text}${code && !text.includes(code) ? ` (${code})` : ''}`);
    } finally {
      clearTimeout(timer);
    }
  }

  private parse(body: string, base: string, currency: string): Quote {
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      this.fail('ProviderAnswerInvalid', `answered something that is not a rate: ${snippet(body) || '(an empty body)'}`);
    }
    const answer = (typeof json === 'object' && json !== null ? json : {}) as { base?: unknown; date?: unknown; rates?: Record<string, unknown> };
    const rate = typeof answer.rates === 'object' && answer.rates !== null ? answer.rates[currency] : undefined;
    const invalid = (what: string) => this.fail('ProviderAnswerInvalid', `answered something that is not a rate: ${what} in ${snippet(body)}`);
    if (answer.base !== undefined && answer.base !== base) invalid(`base ${snippet(String(answer.base))} instead of ${base}`);
    if (typeof rate !== 'number' || !Number.isFinite(rate) || rate <= 0) invalid(`no positive number at rates.${currency}`);
    if (typeof answer.date !== 'string' || !DATE.test(answer.date)) invalid('no date of the form YYYY-MM-DD');
    return { rate: String(rate), date: answer.date as string };
  }

  private fail(reason: ProviderFailure, what: string): never {
    let message = `the rate provider at ${this.shownUrl} ${what}`;
    for (const secret of this.secrets) message = message.split(secret).join('***');
    throw new ProviderError(reason, message);
  }
}

/**
 * The provider URL, if it may be used: https, or http only where allowed (its requests, and any
 * API key it carries, would travel in clear).
 */
export function providerUrl(url: string, allowHttp: boolean): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`--${PROVIDER_URL_OPTION}: expected an https URL, got something that is not a URL`);
  }
  if (parsed.protocol === 'http:' && !allowHttp) {
    throw new Error(`--${PROVIDER_URL_OPTION}: expected an https URL, got http: (requests and any key in the URL would travel in clear); pass --${ALLOW_HTTP_OPTION} to accept it`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error(`--${PROVIDER_URL_OPTION}: the rate provider URL must be http or https, not ${parsed.protocol}`);
  return parsed;
}

/** A redirect to another origin, refused before it is followed. */
class RedirectRefused extends Error {
  constructor(readonly origin: string) {
    super(`redirect to ${origin} refused`);
  }
}

/** The refused redirect behind an error, however deep in causes axios and follow-redirects put it. */
function refusedRedirect(err: unknown): RedirectRefused | undefined {
  for (let e = err; e instanceof Error; e = e.cause) if (e instanceof RedirectRefused) return e;
  return undefined;
}

/** The provider's own explanation, e.g. Frankfurter's {"message":"not found"}. */
function providerMessage(body: string): string {
  try {
    const message = (JSON.parse(body) as { message?: unknown })?.message;
    if (typeof message === 'string') return snippet(message);
  } catch {
    // not JSON: show the start of the body instead
  }
  return snippet(body);
}

/** One short line of untrusted text, safe to put in a condition message. */
function snippet(text: string, max = 100): string {
  const line = text.replace(/[\s\p{Cc}]+/gu, ' ').trim();
  return line.length > max ? `${line.slice(0, max)}…` : line;
}

function formatMs(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
