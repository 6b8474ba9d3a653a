import { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import { declareResource } from '../../engine/constructs';
import { guitarSpec } from './api';
import { guitarKind } from '.';

/** A guitar the reviewer likes. */
export function guitarExample(scope: Construct, namespace: string): ApiObject {
  return declareResource(scope, guitarKind, guitarSpec, { metadata: { name: 'stratocaster', namespace }, spec: { brand: 'Fender' } });
}
