import { Quote } from './api';

export interface CachedQuote {
  readonly quote: Quote;
  /** now() when the quote arrived; the engine can requeue at fetchedAt + refresh interval. */
  readonly fetchedAt: number;
}

/**
 * One fetch per (base, currency) however many ExchangeRates ask: a young enough quote is
 * served from memory, and concurrent askers share one request. A failure is never kept:
 * everyone waiting on the failing request gets its error, and the next call tries again,
 * so a dead provider sees one request per wave of reconciles rather than one per object.
 */
export class RateCache {
  private readonly quotes = new Map<string, CachedQuote>();
  private readonly inFlight = new Map<string, Promise<CachedQuote>>();

  constructor(
    private readonly provider: { quote(base: string, currency: string): Promise<Quote> },
    private readonly now: () => number = Date.now,
  ) {}

  /** A quote no older than maxAgeMs, fetched only when the cached one is older. */
  get(base: string, currency: string, maxAgeMs: number): Promise<CachedQuote> {
    const key = `${base}/${currency}`;
    const cached = this.quotes.get(key);
    if (cached && this.now() - cached.fetchedAt < maxAgeMs) return Promise.resolve(cached);
    // A request in flight answers after this call was made, so it is fresh enough for any maxAge.
    const pending = this.inFlight.get(key);
    if (pending) return pending;
    // Starting from a resolved promise turns even a synchronous throw into a shared rejection.
    const request = Promise.resolve()
      .then(() => this.provider.quote(base, currency))
      .then((quote) => {
        const entry = { quote, fetchedAt: this.now() };
        this.quotes.set(key, entry);
        return entry;
      })
      .finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, request);
    return request;
  }
}
