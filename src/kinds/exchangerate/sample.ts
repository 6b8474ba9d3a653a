import { CustomResource } from '../../engine/kind';
import { ExchangeRateSpec, Quote } from './api';

type Currency = ExchangeRateSpec['currency'];

/**
 * Units of each currency one euro buys, of the right magnitude (early 2025) but rounded and no
 * day's reference rates: enough for a preview to show a plausible rate, and typed by CURRENCIES
 * so a currency added there needs one here.
 */
const PER_EURO: Readonly<Record<Currency, number>> = {
  AUD: 1.66, BGN: 1.9558, BRL: 6.4, CAD: 1.49, CHF: 0.94, CNY: 7.6, CZK: 25.2, DKK: 7.46,
  EUR: 1, GBP: 0.83, HKD: 8.1, HUF: 410, IDR: 16800, ILS: 3.8, INR: 89, ISK: 145,
  JPY: 163, KRW: 1520, MXN: 21.5, MYR: 4.65, NOK: 11.8, NZD: 1.84, PHP: 60.5, PLN: 4.27,
  RON: 4.97, SEK: 11.5, SGD: 1.41, THB: 35.5, TRY: 36.7, USD: 1.04, ZAR: 19.5,
};

/** The date the sample quotes are of: a working day, as the provider's dates are. */
const SAMPLE_DATE = '2025-01-02';

/**
 * What the provider might answer for the pair, for synth's previews: units of `currency` one
 * `base` buys, to 5 significant digits. No fetch time: a preview has no clock.
 */
export function sampleQuote(exchangeRate: CustomResource<ExchangeRateSpec>): Quote {
  const { base, currency } = exchangeRate.spec;
  return { rate: String(Number((PER_EURO[currency] / PER_EURO[base]).toPrecision(5))), date: SAMPLE_DATE };
}
