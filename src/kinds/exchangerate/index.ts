import { CHILD_VERBS, constructsOnFirstUse, KindDefinition } from '../../engine/kind';
import { ExchangeRateSpec, ExchangeRateStatus, exchangeRateSpec, exchangeRateStatus } from './api';
import { exchangeRateController, ObservedQuote } from './controller';
import { exchangeRateMonitoring } from './monitoring';

export * from './api';

/** ExchangeRate: publishes a currency's exchange rate into a ConfigMap (drop-in for brennerm's operator). */
export const exchangeRateKind: KindDefinition<ExchangeRateSpec, ExchangeRateStatus, ObservedQuote> = {
  group: 'operators.brennerm.github.io',
  version: 'v1',
  kind: 'ExchangeRate',
  plural: 'exchangerates',
  singular: 'exchangerate',
  shortNames: ['er'],
  scope: 'Namespaced',
  // Its children live beside each object, and it reads nothing else: a namespaced install serves it.
  servesNamespaces: true,
  description: 'ExchangeRate publishes the exchange rate between two currencies into a ConfigMap and keeps it current.',
  spec: exchangeRateSpec,
  status: exchangeRateStatus,
  printerColumns: [
    { name: 'Currency', type: 'string', jsonPath: '.spec.currency', description: 'The currency quoted.', selectable: true },
    { name: 'Base', type: 'string', jsonPath: '.spec.base', description: 'The currency the rate is against.', selectable: true },
    { name: 'Rate', type: 'string', jsonPath: '.status.rate', description: 'The last rate published.' },
    { name: 'Date', type: 'string', jsonPath: '.status.date', description: 'The provider\u2019s date of the rate.', priority: 1 },
  ],
  controller: exchangeRateController,
  monitoring: exchangeRateMonitoring,
  manages: [{ apiGroup: '', resources: ['configmaps'], verbs: CHILD_VERBS }],
  ...constructsOnFirstUse(() => (require('./constructs') as typeof import('./constructs')).exchangeRateConstructs, { example: true }),
};

/** The definition src/kinds/index.ts registers (every kind's index.ts exports it as `kind`). */
export { exchangeRateKind as kind };
