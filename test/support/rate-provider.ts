import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';

/**
 * A real HTTP server that behaves like the Frankfurter API (the ExchangeRate kind's rate
 * provider), so the client and the controller are tested over real sockets, including
 * the ways a provider fails.
 */
export type ProviderMode = 'ok' | 'slow' | 'error500' | 'error404' | 'garbage' | 'hang' | 'wrong-currency';

export interface FakeRateProvider {
  /** http://127.0.0.1:<port>, plus the path prefix when one was asked for. */
  readonly url: string;
  /** Sets the rate of a pair; pairs never set answer 404 like the real service. */
  setRate(base: string, currency: string, rate: number, date?: string): void;
  /** slow answers after delayMs (default 1000); hang never answers; garbage is a 200 that is not JSON; wrong-currency lacks the asked currency. */
  setMode(mode: ProviderMode, options?: { delayMs?: number }): void;
  /** How many /latest requests arrived, for a pair, a base, or in all. */
  requests(base?: string, currency?: string): number;
  resetCounts(): void;
  /** What the last /latest request carried, to check how the client built it. */
  lastRequest(): { path: string; query: string; authorization?: string } | undefined;
  /** Closes the server, cutting off hanging and slow requests so it never waits on them. */
  close(): Promise<void>;
}

export interface RateProviderServerOptions {
  /** Serve /latest under this prefix only (e.g. /api), like a provider behind a gateway; default none. */
  readonly pathPrefix?: string;
}

export const FAKE_RATE_DATE = '2026-11-20';

const DEFAULT_RATES: [string, string, number][] = [
  ['EUR', 'USD', 1.0512],
  ['EUR', 'GBP', 0.8412],
  ['EUR', 'CHF', 0.9321],
  ['EUR', 'JPY', 162.35],
  ['USD', 'EUR', 0.9513],
  ['USD', 'CAD', 1.3954],
];

export async function startRateProvider(options: RateProviderServerOptions = {}): Promise<FakeRateProvider> {
  const prefix = (options.pathPrefix ?? '').replace(/\/+$/, '');
  const rates = new Map<string, { rate: number; date: string }>(DEFAULT_RATES.map(([b, c, rate]) => [`${b}/${c}`, { rate, date: FAKE_RATE_DATE }]));
  let mode: ProviderMode = 'ok';
  let delayMs = 1000;
  let counted: { base: string; currency: string }[] = [];
  let last: ReturnType<FakeRateProvider['lastRequest']>;
  const timers = new Set<NodeJS.Timeout>();

  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };

  const answer = (res: ServerResponse, base: string, currencies: string[]) => {
    if (mode === 'error500') return send(res, 500, { message: 'internal server error' });
    if (mode === 'error404') return send(res, 404, { message: 'not found' });
    if (mode === 'garbage') return res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>Service temporarily\nunavailable</body></html>');
    if (mode === 'wrong-currency') {
      const other = currencies.includes('USD') ? 'GBP' : 'USD';
      return send(res, 200, { amount: 1.0, base, date: FAKE_RATE_DATE, rates: { [other]: 1.2345 } });
    }
    const found = currencies.map((c) => [c, rates.get(`${base}/${c}`)] as const);
    if (found.some(([, r]) => !r)) return send(res, 404, { message: 'not found' });
    send(res, 200, { amount: 1.0, base, date: found[0][1]!.date, rates: Object.fromEntries(found.map(([c, r]) => [c, r!.rate])) });
  };

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    if (req.method !== 'GET' || url.pathname !== `${prefix}/latest`) return send(res, 404, { message: 'not found' });
    // Frankfurter's defaults: base EUR; a comma-separated "to" asks for several currencies.
    const base = url.searchParams.get('from') ?? 'EUR';
    const currencies = (url.searchParams.get('to') ?? 'USD').split(',');
    counted.push(...currencies.map((currency) => ({ base, currency })));
    last = { path: url.pathname, query: url.search, authorization: req.headers.authorization };
    if (mode === 'hang') return;
    if (mode === 'slow') {
      const timer = setTimeout(() => {
        timers.delete(timer);
        answer(res, base, currencies);
      }, delayMs);
      timers.add(timer);
      return;
    }
    answer(res, base, currencies);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}${prefix}`,
    setRate: (base, currency, rate, date = FAKE_RATE_DATE) => void rates.set(`${base}/${currency}`, { rate, date }),
    setMode: (next, opts = {}) => {
      mode = next;
      delayMs = opts.delayMs ?? 1000;
    },
    requests: (base, currency) => counted.filter((r) => (base === undefined || r.base === base) && (currency === undefined || r.currency === currency)).length,
    resetCounts: () => void (counted = []),
    lastRequest: () => last,
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
        server.close(() => resolve());
        // Hanging requests and keep-alive sockets would otherwise hold close() open forever.
        server.closeAllConnections();
      }),
  };
}
