import { Construct } from 'constructs';
import { Guitar } from '../../../imports/kool.karmalabs.local';

/** A guitar the reviewer likes. */
export function guitarExample(scope: Construct, namespace: string): Guitar {
  return new Guitar(scope, 'stratocaster', { metadata: { name: 'stratocaster', namespace }, spec: { brand: 'Fender' } });
}
