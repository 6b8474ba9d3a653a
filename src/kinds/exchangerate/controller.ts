import { KindController, ObservationError } from '../../core/kind';
import { parseDuration } from '../../core/duration';
import { metaTime } from '../../kube/time';
import { ExchangeRateSpec, ExchangeRateStatus, Quote } from './api';
import { PROVIDER_FAILURES, ProviderError, RateProvider } from './provider';
import { RateCache } from './rate-cache';

/** The public Frankfurter service, as the original operator used. */
export const DEFAULT_PROVIDER_URL = 'https://api.frankfurter.app';

/** A quote and when it was fetched, in epoch ms (one fetch serves every ExchangeRate asking for the pair). */
export type ObservedQuote = Quote & { readonly fetchedAt?: number };

export const exchangeRateController: KindController<ExchangeRateSpec, ExchangeRateStatus, ObservedQuote> = {
  options: [
    { name: 'exchange-rate-url', type: 'string', default: DEFAULT_PROVIDER_URL, description: 'The rate provider: an API of the Frankfurter kind (GET {url}/latest?from=BASE&to=CUR).' },
    { name: 'exchange-rate-timeout', type: 'duration', default: '10s', description: 'How long one request to the rate provider may take.' },
  ],
  observer: ({ options }) => {
    const cache = new RateCache(new RateProvider({ url: String(options['exchange-rate-url']), timeoutMs: Number(options['exchange-rate-timeout']) }));
    return async (exchangeRate) => {
      try {
        const { quote, fetchedAt } = await cache.get(exchangeRate.spec.base, exchangeRate.spec.currency, parseDuration(exchangeRate.spec.refreshInterval));
        return { ...quote, fetchedAt };
      } catch (err) {
        // The last good ConfigMap stays as it is; status says why it is not current.
        if (err instanceof ProviderError) throw new ObservationError(err.reason, err.message);
        throw err;
      }
    };
  },
  status: (_exchangeRate, quote) =>
    quote ? { rate: quote.rate, date: quote.date, ...(quote.fetchedAt ? { lastFetchTime: metaTime(new Date(quote.fetchedAt)) } : {}) } : {},
  // A provider that is down or answers nonsense: the published rate grows old until someone acts.
  failureReasons: PROVIDER_FAILURES,
  readyReason: 'RatePublished',
  // Due when the shared quote expires, not a full interval after this reconcile (which may have used an old one).
  requeueAfterMs: (spec, quote) => Math.max(1000, (quote?.fetchedAt ?? Date.now()) + parseDuration(spec.refreshInterval) - Date.now()),
};
