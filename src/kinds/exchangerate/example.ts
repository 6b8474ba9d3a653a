import { Construct } from 'constructs';
import { ExchangeRate, ExchangeRateSpecCurrency } from '../../../imports/operators.brennerm.github.io';

/** The US dollar against the euro, refreshed every half hour, published as ConfigMap usd-eur. */
export function exchangeRateExample(scope: Construct, namespace: string): ExchangeRate {
  return new ExchangeRate(scope, 'usd', {
    metadata: { name: 'usd', namespace },
    spec: { currency: ExchangeRateSpecCurrency.USD, refreshInterval: '30m', configMapName: 'usd-eur' },
  });
}
