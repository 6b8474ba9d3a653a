import { KindConstructs } from '../../core/kind';
import { ExchangeRateSpec } from './api';
import { ExchangeRateConfigMap } from './configmap';
import { ObservedQuote } from './controller';
import { exchangeRateExample } from './example';

/** The ExchangeRate's constructs, loaded at their first use (see KindConstructs). */
export const exchangeRateConstructs: KindConstructs<ExchangeRateSpec, ObservedQuote> = {
  example: exchangeRateExample,
  render: (scope, resource, quote) => {
    new ExchangeRateConfigMap(scope, 'rate', { ownerName: resource.metadata.name, spec: resource.spec, quote });
  },
};
