import { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import { declareResource } from '../../engine/constructs';
import { exchangeRateSpec } from './api';
import { exchangeRateKind } from '.';

/** The US dollar against the euro, refreshed every half hour, published as ConfigMap usd-eur. */
export function exchangeRateExample(scope: Construct, namespace: string): ApiObject {
  return declareResource(scope, exchangeRateKind, exchangeRateSpec, {
    metadata: { name: 'usd', namespace },
    spec: { currency: 'USD', refreshInterval: '30m', configMapName: 'usd-eur' },
  });
}
