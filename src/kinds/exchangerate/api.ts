import { commonStatusProperties, Infer, parseDuration, s } from '../../engine/kind';

/**
 * Currencies the rate provider (a Frankfurter-style API, serving the European Central
 * Bank's reference rates) quotes. The original operator offered the first six.
 */
export const CURRENCIES = [
  'CAD', 'CHF', 'GBP', 'JPY', 'PLN', 'USD',
  'AUD', 'BGN', 'BRL', 'CNY', 'CZK', 'DKK', 'EUR', 'HKD', 'HUF', 'IDR', 'ILS', 'INR',
  'ISK', 'KRW', 'MXN', 'MYR', 'NOK', 'NZD', 'PHP', 'RON', 'SEK', 'SGD', 'THB', 'TRY', 'ZAR',
] as const;

/** The shortest refresh interval; the provider publishes once a working day. */
export const MIN_REFRESH_SECONDS = 60;

export const exchangeRateSpec = s.object(
  {
    currency: s.enum(CURRENCIES, { description: 'ISO 4217 code of the currency to quote, e.g. USD.' }),
    base: s.enum(CURRENCIES, { description: 'ISO 4217 code of the currency the rate is expressed against.', default: 'EUR' }),
    refreshInterval: s.string({
      description: 'How often the rate is fetched again, as a Go duration such as 30m or 1h.',
      default: '1h',
      pattern: '^([0-9]+(\\.[0-9]+)?(ms|s|m|h))+$',
      patternHint: 'a duration such as 30m or 1h',
      maxLength: 32,
    }),
    configMapName: s.optional(
      s.string({
        description: 'Name of the ConfigMap the rate is written to; defaults to the ExchangeRate\u2019s own name.',
        pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$',
        patternHint: 'a DNS subdomain name (lower-case letters, digits, "-" and ".")',
        maxLength: 253,
      }),
    ),
  },
  {
    description: 'Which exchange rate to publish, and how often to refresh it.',
    rules: [
      { cel: 'self.base != self.currency', message: 'base and currency must differ', fieldPath: '.currency', holds: (self) => self.base !== self.currency },
      {
        cel: `duration(self.refreshInterval) >= duration('${MIN_REFRESH_SECONDS}s')`,
        message: `refreshInterval must be at least ${MIN_REFRESH_SECONDS}s`,
        fieldPath: '.refreshInterval',
        holds: (self) => parseDuration(self.refreshInterval) >= MIN_REFRESH_SECONDS * 1000,
      },
    ],
  },
);

export const exchangeRateStatus = s.object(
  {
    ...commonStatusProperties,
    rate: s.optional(s.string({ description: 'The last rate fetched, as the provider wrote it.' })),
    date: s.optional(s.string({ description: 'The provider\u2019s date of that rate (YYYY-MM-DD).' })),
    lastFetchTime: s.optional(s.string({ description: 'When the rate was last fetched successfully.', format: 'date-time' })),
    // What the original (kopf) operator wrote: its on_create handler's result. Kept, so the ConfigMap it names is found.
    on_create: s.optional(
      s.object(
        { 'configmap-name': s.optional(s.string({ description: 'The ConfigMap the original operator created, with a random suffix (e.g. exchange-rate-usd-j98bc).' })) },
        { description: 'Written by the original operator when it created the ExchangeRate\u2019s ConfigMap; this operator only reads it.' },
      ),
    ),
    legacyConfigMap: s.optional(
      s.string({ description: 'The original operator\u2019s ConfigMap of this ExchangeRate, kept up to date beside the one named by spec.configMapName until it is deleted.' }),
    ),
  },
  { description: 'The rate last published and whether it is current.' },
);

export type ExchangeRateSpec = Infer<typeof exchangeRateSpec>;
export type ExchangeRateStatus = Infer<typeof exchangeRateStatus>;

/** One quote from the provider, as the ConfigMap publishes it. */
export interface Quote {
  readonly rate: string;
  readonly date: string;
}
