import { createServer as createHttpServer, Server } from 'node:http';
import { createServer } from 'node:net';
import { UserError } from '../../src/core/errors';
import { KINDS } from '../../src/kinds';
import { exchangeRateKind } from '../../src/kinds/exchangerate';
import { runController } from '../../src/commands/controller';
import { ProviderError, RateProvider } from '../../src/kinds/exchangerate/provider';
import { RateCache } from '../../src/kinds/exchangerate/rate-cache';
import { FakeRateProvider, ProviderMode, startRateProvider } from '../support/rate-provider';
import { PRODUCT_IDENTITY } from '../../src/product';

// Long enough for a loopback answer on a loaded machine; the hang case waits this long.
const TIMEOUT_MS = 1000;

/** The ProviderError a promise rejects with; fails the test on success or on any other error. */
async function failure(promise: Promise<unknown>): Promise<ProviderError> {
  const err = await promise.then(
    (value) => new Error(`expected a ProviderError, got ${JSON.stringify(value)}`),
    (e: unknown) => e,
  );
  if (!(err instanceof ProviderError)) throw err;
  expect(err.message).not.toMatch(/\n/);
  return err;
}

/** A port nothing listens on: bound once by the OS, then released. */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('RateProvider against a Frankfurter-style provider', () => {
  let fake: FakeRateProvider;
  let client: RateProvider;
  beforeAll(async () => {
    fake = await startRateProvider();
    client = new RateProvider({ url: fake.url, timeoutMs: TIMEOUT_MS, allowHttp: true });
  });
  afterAll(() => fake.close());
  beforeEach(() => {
    fake.setMode('ok');
    fake.resetCounts();
  });

  it('quotes a pair with one GET /latest?from=BASE&to=CUR', async () => {
    await expect(client.quote('EUR', 'USD')).resolves.toEqual({ rate: '1.0512', date: '2026-11-20' });
    expect(fake.requests('EUR', 'USD')).toBe(1);
    expect(fake.requests()).toBe(1);
    expect(fake.lastRequest()).toMatchObject({ path: '/latest', query: '?from=EUR&to=USD' });
  });

  it('returns the rate as the provider wrote it and the provider date', async () => {
    fake.setRate('USD', 'JPY', 151.0625, '2026-11-19');
    await expect(client.quote('USD', 'JPY')).resolves.toEqual({ rate: '151.0625', date: '2026-11-19' });
  });

  const modes: [ProviderMode, ProviderError['reason'], RegExp][] = [
    ['error500', 'ProviderRejected', /answered HTTP 500 for EUR\/USD: internal server error$/],
    ['error404', 'ProviderRejected', /answered HTTP 404 for EUR\/USD: not found$/],
    ['garbage', 'ProviderAnswerInvalid', /answered something that is not a rate: <html><body>Service temporarily unavailable/],
    ['wrong-currency', 'ProviderAnswerInvalid', /not a rate: no positive number at rates\.USD in \{"amount":1/],
    ['hang', 'ProviderTimeout', /did not answer within 1 s$/],
  ];
  it.each(modes)('mode %s fails as %s with a message that says what happened', async (mode, reason, message) => {
    fake.setMode(mode);
    const err = await failure(client.quote('EUR', 'USD'));
    expect(err.reason).toBe(reason);
    expect(err.message).toMatch(new RegExp(`^the rate provider at ${fake.url} `));
    expect(err.message).toMatch(message);
  });

  it('rejects a pair the provider does not serve with its own explanation', async () => {
    const err = await failure(client.quote('EUR', 'XXX'));
    expect(err).toMatchObject({ reason: 'ProviderRejected', message: `the rate provider at ${fake.url} answered HTTP 404 for EUR/XXX: not found` });
  });

  it('gives up on a hanging provider within the timeout', async () => {
    fake.setMode('hang');
    const started = Date.now();
    expect((await failure(client.quote('EUR', 'USD'))).reason).toBe('ProviderTimeout');
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(TIMEOUT_MS - 20);
    expect(elapsed).toBeLessThan(TIMEOUT_MS + 500);
  });

  it('waits for a slow answer inside the timeout and gives up on one beyond it', async () => {
    fake.setMode('slow', { delayMs: 100 });
    await expect(client.quote('EUR', 'USD')).resolves.toEqual({ rate: '1.0512', date: '2026-11-20' });
    fake.setMode('slow', { delayMs: 2000 });
    const err = await failure(client.quote('EUR', 'USD'));
    expect(err.reason).toBe('ProviderTimeout');
  });

  it.each([
    ['a zero rate', 0, '2026-11-20', /no positive number at rates\.PLN/],
    ['a negative rate', -1.05, '2026-11-20', /no positive number at rates\.PLN/],
    ['an infinite rate (JSON null)', Infinity, '2026-11-20', /no positive number at rates\.PLN/],
    ['a date not YYYY-MM-DD', 1.05, '20.11.2026', /no date of the form YYYY-MM-DD/],
    ['an impossible month', 1.05, '2026-13-01', /no date of the form YYYY-MM-DD/],
  ])('rejects an answer with %s as invalid', async (_what, rate, date, message) => {
    fake.setRate('EUR', 'PLN', rate, date);
    const err = await failure(client.quote('EUR', 'PLN'));
    expect(err.reason).toBe('ProviderAnswerInvalid');
    expect(err.message).toMatch(message);
  });

  it('says the provider is unreachable when nothing listens', async () => {
    const url = `http://127.0.0.1:${await deadPort()}`;
    const err = await failure(new RateProvider({ url, timeoutMs: TIMEOUT_MS, allowHttp: true }).quote('EUR', 'USD'));
    expect(err.reason).toBe('ProviderUnreachable');
    expect(err.message).toMatch(new RegExp(`^the rate provider at ${url} could not be reached: .*ECONNREFUSED`));
  });

  it('keeps credentials and query secrets out of messages, yet sends them', async () => {
    const url = fake.url.replace('http://', 'http://ratesuser:s3cr3t-pass@') + '/?access_key=k3y-v4lue';
    const secretive = new RateProvider({ url, timeoutMs: TIMEOUT_MS, allowHttp: true });
    await expect(secretive.quote('EUR', 'USD')).resolves.toMatchObject({ rate: '1.0512' });
    expect(fake.lastRequest()).toEqual({
      path: '/latest',
      query: '?access_key=k3y-v4lue&from=EUR&to=USD',
      authorization: `Basic ${Buffer.from('ratesuser:s3cr3t-pass').toString('base64')}`,
    });
    for (const mode of ['error500', 'hang', 'garbage'] as const) {
      fake.setMode(mode);
      const err = await failure(secretive.quote('EUR', 'USD'));
      expect(err.message).toMatch(new RegExp(`^the rate provider at ${fake.url} `));
      expect(err.message).not.toMatch(/ratesuser|s3cr3t|k3y-v4lue|access_key/);
    }
  });

  it('refuses a URL that is not http or https at construction', () => {
    expect(() => new RateProvider({ url: 'ftp://rates.example' })).toThrow(/must be http or https/);
    expect(() => new RateProvider({ url: 'not a url' })).toThrow('--exchange-rate-url: expected an https URL, got something that is not a URL');
  });

  it('refuses an http URL unless --exchange-rate-allow-http, naming both', async () => {
    const message = '--exchange-rate-url: expected an https URL, got http: (requests and any key in the URL would travel in clear); pass --exchange-rate-allow-http to accept it';
    expect(() => new RateProvider({ url: fake.url })).toThrow(message);
    expect(() => exchangeRateKind.controller!.checkOptions!({ 'exchange-rate-url': fake.url, 'exchange-rate-allow-http': false })).toThrow(message);
    expect(() => exchangeRateKind.controller!.checkOptions!({ 'exchange-rate-url': 'https://rates.example', 'exchange-rate-allow-http': false })).not.toThrow();
    // The controller stops before it connects anywhere, with the message as a user error.
    const lines: string[] = [];
    await expect(runController(['--kinds', 'exchangerates', '--exchange-rate-url', fake.url], {}, KINDS, (text) => lines.push(text), PRODUCT_IDENTITY)).rejects.toThrow(new UserError(message));
    expect(fake.requests()).toBe(0);
  });
});

describe('RateProvider and redirects', () => {
  let fake: FakeRateProvider;
  let redirector: Server;
  let origin: string;
  beforeAll(async () => {
    fake = await startRateProvider();
    // /moved/latest goes on to /latest here (same origin); /away/latest to the fake (another port: another origin).
    redirector = createHttpServer((req, res) => {
      const url = new URL(req.url!, 'http://x');
      if (url.pathname === '/latest') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ base: 'EUR', date: '2026-11-21', rates: { USD: 1.5 } }));
      } else {
        res.writeHead(302, { location: url.pathname === '/moved/latest' ? `/latest${url.search}` : `${fake.url}/latest${url.search}` }).end();
      }
    });
    await new Promise<void>((resolve) => redirector.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(redirector.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => redirector.close(resolve));
    await fake.close();
  });

  it('follows a redirect within the provider’s origin', async () => {
    await expect(new RateProvider({ url: `${origin}/moved`, allowHttp: true, timeoutMs: TIMEOUT_MS }).quote('EUR', 'USD')).resolves.toEqual({ rate: '1.5', date: '2026-11-21' });
  });

  it('refuses a redirect to another origin, which would get the path and query (and any key in them)', async () => {
    const err = await failure(new RateProvider({ url: `${origin}/away?access_key=k3y-v4lue`, allowHttp: true, timeoutMs: TIMEOUT_MS }).quote('EUR', 'USD'));
    expect(err.reason).toBe('ProviderRejected');
    expect(err.message).toBe(`the rate provider at ${origin}/away redirected to another origin (${new URL(fake.url).origin}), which is not followed: only redirects within ${origin} are`);
    expect(fake.requests()).toBe(0);
  });
});

describe('RateProvider behind a path prefix', () => {
  let fake: FakeRateProvider;
  beforeAll(async () => {
    fake = await startRateProvider({ pathPrefix: '/api' });
  });
  afterAll(() => fake.close());

  it.each(['', '/'])('appends /latest to the prefix (URL ending %j)', async (ending) => {
    expect(fake.url).toMatch(/\/api$/);
    await expect(new RateProvider({ url: fake.url + ending, allowHttp: true }).quote('EUR', 'GBP')).resolves.toEqual({ rate: '0.8412', date: '2026-11-20' });
    expect(fake.lastRequest()?.path).toBe('/api/latest');
  });

  it('shows the prefix in messages', async () => {
    const err = await failure(new RateProvider({ url: fake.url, allowHttp: true }).quote('EUR', 'XXX'));
    expect(err.message).toBe(`the rate provider at ${fake.url} answered HTTP 404 for EUR/XXX: not found`);
  });
});

describe('RateCache', () => {
  let fake: FakeRateProvider;
  let clock: number;
  let cache: RateCache;
  const HOUR = 3_600_000;
  beforeAll(async () => {
    fake = await startRateProvider();
  });
  afterAll(() => fake.close());
  beforeEach(() => {
    fake.setMode('ok');
    fake.resetCounts();
    clock = 1_000_000;
    cache = new RateCache(new RateProvider({ url: fake.url, timeoutMs: TIMEOUT_MS, allowHttp: true }), () => clock);
  });

  it('makes one request for 50 concurrent askers of one pair', async () => {
    fake.setMode('slow', { delayMs: 50 });
    const answers = await Promise.all(Array.from({ length: 50 }, () => cache.get('EUR', 'USD', HOUR)));
    expect(fake.requests()).toBe(1);
    for (const answer of answers) expect(answer).toEqual({ quote: { rate: '1.0512', date: '2026-11-20' }, fetchedAt: 1_000_000 });
  });

  it('serves a fresh quote from memory and refetches an expired one', async () => {
    await cache.get('EUR', 'USD', HOUR);
    fake.setRate('EUR', 'USD', 1.06);
    clock += HOUR - 1;
    await expect(cache.get('EUR', 'USD', HOUR)).resolves.toEqual({ quote: { rate: '1.0512', date: '2026-11-20' }, fetchedAt: 1_000_000 });
    expect(fake.requests()).toBe(1);
    clock += 1;
    await expect(cache.get('EUR', 'USD', HOUR)).resolves.toEqual({ quote: { rate: '1.06', date: '2026-11-20' }, fetchedAt: 1_000_000 + HOUR });
    expect(fake.requests()).toBe(2);
    fake.setRate('EUR', 'USD', 1.0512);
  });

  it('gives each asker a quote no older than its own maxAge', async () => {
    await cache.get('EUR', 'USD', HOUR);
    clock += 10 * 60_000;
    expect((await cache.get('EUR', 'USD', HOUR)).fetchedAt).toBe(1_000_000);
    expect(fake.requests()).toBe(1);
    expect((await cache.get('EUR', 'USD', 5 * 60_000)).fetchedAt).toBe(clock);
    expect(fake.requests()).toBe(2);
    // The refetch serves the hourly asker too.
    expect((await cache.get('EUR', 'USD', HOUR)).fetchedAt).toBe(clock);
    expect(fake.requests()).toBe(2);
  });

  it('shares one failure among concurrent askers, caches nothing, and retries on the next call', async () => {
    fake.setMode('hang');
    const results = await Promise.allSettled(Array.from({ length: 100 }, () => cache.get('EUR', 'USD', HOUR)));
    expect(fake.requests()).toBe(1);
    const reasons = results.map((r) => (r.status === 'rejected' ? r.reason : r));
    expect(reasons[0]).toBeInstanceOf(ProviderError);
    expect(reasons[0].reason).toBe('ProviderTimeout');
    for (const reason of reasons) expect(reason).toBe(reasons[0]);

    fake.setMode('error500');
    expect((await failure(cache.get('EUR', 'USD', HOUR))).reason).toBe('ProviderRejected');
    expect(fake.requests()).toBe(2);
    fake.setMode('ok');
    await expect(cache.get('EUR', 'USD', HOUR)).resolves.toMatchObject({ quote: { rate: '1.0512' } });
    expect(fake.requests()).toBe(3);
  });

  it('keeps pairs apart: each has its own request, expiry and failures', async () => {
    fake.setMode('slow', { delayMs: 50 });
    const [usd, gbp] = await Promise.all([cache.get('EUR', 'USD', HOUR), cache.get('EUR', 'GBP', HOUR), cache.get('EUR', 'USD', HOUR), cache.get('EUR', 'GBP', HOUR)]);
    expect([usd.quote.rate, gbp.quote.rate]).toEqual(['1.0512', '0.8412']);
    expect([fake.requests('EUR', 'USD'), fake.requests('EUR', 'GBP')]).toEqual([1, 1]);

    fake.setMode('ok');
    clock += 10 * 60_000;
    await cache.get('EUR', 'USD', 5 * 60_000);
    await cache.get('EUR', 'GBP', HOUR);
    expect([fake.requests('EUR', 'USD'), fake.requests('EUR', 'GBP')]).toEqual([2, 1]);

    // A pair the provider does not serve fails alone.
    expect((await failure(cache.get('EUR', 'XXX', HOUR))).reason).toBe('ProviderRejected');
    await expect(cache.get('USD', 'EUR', HOUR)).resolves.toMatchObject({ quote: { rate: '0.9513' } });
    expect((await cache.get('EUR', 'GBP', HOUR)).fetchedAt).toBe(1_000_000);
  });
});
