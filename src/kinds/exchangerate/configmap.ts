import { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import { ExchangeRateSpec, Quote } from './api';

export interface ExchangeRateConfigMapProps {
  /** Name of the ExchangeRate that owns the ConfigMap. */
  readonly ownerName: string;
  /** The validated, defaulted spec. */
  readonly spec: ExchangeRateSpec;
  /** The latest quote; without one (a synth preview) only base and currency are written. */
  readonly quote?: Quote;
  /** Another name than spec.configMapName's, e.g. the original operator's ConfigMap. @default spec.configMapName ?? ownerName */
  readonly name?: string;
  /** Annotations the engine reads (see src/core/kit/child-policy.ts). */
  readonly annotations?: Record<string, string>;
}

/**
 * The one child of an ExchangeRate: a ConfigMap Pods can reference by a name they know.
 * A plain ApiObject rather than cdk8s-plus-27's ConfigMap (the same object): a controller that
 * serves only ExchangeRates then never loads cdk8s-plus-27, 11.5 MiB of RSS (measured).
 */
export class ExchangeRateConfigMap extends Construct {
  readonly configMap: ApiObject;

  constructor(scope: Construct, id: string, props: ExchangeRateConfigMapProps) {
    super(scope, id);
    const { spec, quote } = props;
    this.configMap = new ApiObject(this, 'configmap', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: props.name ?? spec.configMapName ?? props.ownerName, ...(props.annotations ? { annotations: props.annotations } : {}) },
      data: {
        base: spec.base,
        currency: spec.currency,
        ...(quote ? { rate: quote.rate, date: quote.date } : {}),
      },
      immutable: false,
    });
  }
}
