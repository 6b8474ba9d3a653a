import { Construct } from 'constructs';
import { Database } from '../../../imports/stable.imaginedata.com';

/** The SampleDB of the operator pattern as a real PostgreSQL: database orders on a primary and a hot standby, backed up every night at 03:00, a week kept. */
export function databaseExample(scope: Construct, namespace: string): Database {
  return new Database(scope, 'orders', {
    metadata: { name: 'orders', namespace },
    spec: {
      name: 'orders',
      port: 5432,
      storageSize: '1Gi',
      image: 'postgres:17',
      replicas: 2,
      backup: { schedule: '0 3 * * *', retention: 7 },
    },
  });
}
