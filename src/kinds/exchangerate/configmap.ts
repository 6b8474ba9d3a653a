import * as kplus from 'cdk8s-plus-27';
import { Construct } from 'constructs';
import { ExchangeRateSpec, Quote } from './api';

export interface ExchangeRateConfigMapProps {
  /** Name of the ExchangeRate that owns the ConfigMap. */
  readonly ownerName: string;
  /** The validated, defaulted spec. */
  readonly spec: ExchangeRateSpec;
  /** The latest quote; without one (a synth preview) only base and currency are written. */
  readonly quote?: Quote;
}

/** The one child of an ExchangeRate: a ConfigMap Pods can reference by a name they know. */
export class ExchangeRateConfigMap extends Construct {
  readonly configMap: kplus.ConfigMap;

  constructor(scope: Construct, id: string, props: ExchangeRateConfigMapProps) {
    super(scope, id);
    const { spec, quote } = props;
    this.configMap = new kplus.ConfigMap(this, 'configmap', {
      metadata: { name: spec.configMapName ?? props.ownerName },
      data: {
        base: spec.base,
        currency: spec.currency,
        ...(quote ? { rate: quote.rate, date: quote.date } : {}),
      },
    });
  }
}
