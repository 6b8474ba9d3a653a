import { ADOPT_EXISTING_ANNOTATION, KindConstructs } from '../../engine/kind';
import { ExchangeRateSpec, ExchangeRateStatus } from './api';
import { ExchangeRateConfigMap } from './configmap';
import { ObservedQuote } from './controller';
import { exchangeRateExample } from './example';
import { legacyConfigMapName } from './legacy';

/** The ExchangeRate's constructs, loaded at their first use (see KindConstructs). */
export const exchangeRateConstructs: KindConstructs<ExchangeRateSpec, ObservedQuote> = {
  example: exchangeRateExample,
  render: (scope, resource, quote) => {
    new ExchangeRateConfigMap(scope, 'rate', { ownerName: resource.metadata.name, spec: resource.spec, quote });
    const legacy = legacyConfigMapName(resource as typeof resource & { status?: ExchangeRateStatus });
    // Only kept up to date while it exists: never created, and never taken from anyone but this ExchangeRate.
    if (legacy) new ExchangeRateConfigMap(scope, 'legacy', { ownerName: resource.metadata.name, spec: resource.spec, quote, name: legacy, annotations: { [ADOPT_EXISTING_ANNOTATION]: 'true' } });
  },
};
