import { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import { declareResource } from '../../engine/constructs';
import { DEFAULT_IMAGE, databaseSpec } from './api';
import { databaseKind } from '.';

/** The SampleDB of the operator pattern as a real PostgreSQL: database orders on a primary and a hot standby, backed up every night at 03:00, a week kept. */
export function databaseExample(scope: Construct, namespace: string): ApiObject {
  return declareResource(scope, databaseKind, databaseSpec, {
    metadata: { name: 'orders', namespace },
    spec: {
      name: 'orders',
      port: 5432,
      storageSize: '1Gi',
      image: DEFAULT_IMAGE,
      replicas: 2,
      backup: { schedule: '0 3 * * *', retention: 7 },
    },
  });
}
