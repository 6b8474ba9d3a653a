import { CustomResource, KindController, metaTime, ObservationError, OptionSpec, optionValue, parseDuration, ReconcileOutcome } from '../../engine/kind';
import { ExchangeRateSpec, ExchangeRateStatus, Quote } from './api';
import { legacyConfigMapName } from './legacy';
import { ALLOW_HTTP_OPTION, PROVIDER_FAILURES, PROVIDER_URL_OPTION, ProviderError, providerUrl, RateProvider } from './provider';
import { RateCache } from './rate-cache';
import { sampleQuote } from './sample';

/** The public Frankfurter service, as the original operator used. */
export const DEFAULT_PROVIDER_URL = 'https://api.frankfurter.app';

/** A quote and when it was fetched, in epoch ms (one fetch serves every ExchangeRate asking for the pair). */
export type ObservedQuote = Quote & { readonly fetchedAt?: number };

/** An Event's reason, not a Ready reason: Ready stays True while the original's ConfigMap is kept. */
const LEGACY_CONFIGMAP_EVENT = 'LegacyConfigMap';

/** The original operator's ConfigMap, when this reconcile kept it up to date (it exists and is this ExchangeRate's). */
function servedLegacy(exchangeRate: CustomResource<ExchangeRateSpec, ExchangeRateStatus>, outcome: ReconcileOutcome): string | undefined {
  const legacy = legacyConfigMapName(exchangeRate);
  return legacy && outcome.served.some((c) => c.kind === 'ConfigMap' && c.metadata.name === legacy) ? legacy : undefined;
}

const PROVIDER_URL = {
  name: PROVIDER_URL_OPTION,
  type: 'string',
  default: DEFAULT_PROVIDER_URL,
  description: 'The rate provider: an API of the Frankfurter kind (GET {url}/latest?from=BASE&to=CUR), https. It may carry a key: the install reads it from a Secret.',
  fromSecret: true,
} as const satisfies OptionSpec;
const ALLOW_HTTP = {
  name: ALLOW_HTTP_OPTION,
  type: 'boolean',
  default: 'false',
  description: 'Accept an http: rate provider URL (e.g. one on loopback), whose requests travel in clear.',
} as const satisfies OptionSpec;
const PROVIDER_TIMEOUT = { name: 'exchange-rate-timeout', type: 'duration', default: '10s', description: 'How long one request to the rate provider may take.' } as const satisfies OptionSpec;

export const exchangeRateController: KindController<ExchangeRateSpec, ExchangeRateStatus, ObservedQuote> = {
  options: [PROVIDER_URL, PROVIDER_TIMEOUT, ALLOW_HTTP],
  checkOptions: (options) => void providerUrl(optionValue(options, PROVIDER_URL)!, optionValue(options, ALLOW_HTTP)!),
  observer: ({ options }) => {
    // All have defaults, so all are set.
    const provider = new RateProvider({ url: optionValue(options, PROVIDER_URL)!, timeoutMs: optionValue(options, PROVIDER_TIMEOUT)!, allowHttp: optionValue(options, ALLOW_HTTP)! });
    const cache = new RateCache(provider);
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
  sampleObservation: sampleQuote,
  status: (exchangeRate, quote, outcome) => {
    const legacy = servedLegacy(exchangeRate, outcome);
    return {
      ...(quote ? { rate: quote.rate, date: quote.date, ...(quote.fetchedAt ? { lastFetchTime: metaTime(new Date(quote.fetchedAt)) } : {}) } : {}),
      // Once it is gone, null removes the field (status is merge-patched); only while it is there, so status settles.
      ...(legacy ? { legacyConfigMap: legacy } : exchangeRate.status?.legacyConfigMap ? { legacyConfigMap: null as unknown as undefined } : {}),
    };
  },
  events: (exchangeRate, _quote, outcome) => {
    const legacy = outcome && servedLegacy(exchangeRate, outcome);
    if (!legacy) return [];
    const ours = exchangeRate.spec.configMapName ?? exchangeRate.metadata.name;
    const message =
      `ConfigMap ${legacy}, which the original operator created for this ExchangeRate, is kept up to date beside ${ours}: ` +
      `point Pods at ${ours}, then delete ${legacy} (it is never created again)`;
    return [{ type: 'Warning', reason: LEGACY_CONFIGMAP_EVENT, message }];
  },
  // A provider that is down or answers nonsense: the published rate grows old until someone acts.
  failureReasons: PROVIDER_FAILURES,
  readyReason: 'RatePublished',
  // Due when the shared quote expires, not a full interval after this reconcile (which may have used an old one).
  requeueAfterMs: (spec, quote) => Math.max(1000, (quote?.fetchedAt ?? Date.now()) + parseDuration(spec.refreshInterval) - Date.now()),
};
