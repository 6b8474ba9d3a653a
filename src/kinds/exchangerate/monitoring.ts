import { anyOf, KindMonitoring } from '../../engine/kind';
import { PROVIDER_FAILURES } from './provider';

/** The rate provider down (any of its failures, whichever it is from one refresh to the next) for an hour. */
export const exchangeRateMonitoring: KindMonitoring = {
  alerts: (metrics) => [
    {
      alert: 'ExchangeRateProviderFailing',
      expr: `max by (namespace, name) (${metrics.objectCondition}{kind="ExchangeRate",type="Ready",status="False",reason=~"${anyOf(PROVIDER_FAILURES)}"}) == 1`,
      for: '1h',
      severity: 'warning',
      summary: 'An ExchangeRate has not got a rate from its provider for an hour.',
      description:
        'ExchangeRate {{ $labels.namespace }}/{{ $labels.name }} has failed to fetch its rate from the provider (--exchange-rate-url) for over an hour; its ConfigMap keeps the last good rate. Its Ready condition says how the provider fails.',
    },
  ],
};
