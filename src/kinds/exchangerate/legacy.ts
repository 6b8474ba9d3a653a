import { CustomResource } from '../../engine/kind';
import { ExchangeRateSpec, ExchangeRateStatus } from './api';

const CONFIGMAP_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/**
 * The ConfigMap the original operator created for this ExchangeRate (`exchange-rate-usd-j98bc`),
 * as its status names it, when that is another ConfigMap than ours. Pods may reference it, so
 * it is kept up to date for as long as it exists (see the adopt-existing child policy).
 */
export function legacyConfigMapName(exchangeRate: CustomResource<ExchangeRateSpec, ExchangeRateStatus>): string | undefined {
  const name = exchangeRate.status?.on_create?.['configmap-name'];
  const ours = exchangeRate.spec.configMapName ?? exchangeRate.metadata.name;
  return typeof name === 'string' && name !== ours && name.length <= 253 && CONFIGMAP_NAME.test(name) ? name : undefined;
}
