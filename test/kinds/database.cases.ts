import { databaseKind } from '../../src/kinds/database';
import { KindCases } from './cases';

/** The SampleDB of the operator pattern, with a real image and an SQL identifier for a name. */
const sampleDb = { name: 'SampleDB', port: 5432, 'storage-size': '50G', image: 'postgres:17', replicas: 3 };
const minimal = { name: 'orders', 'storage-size': '1Gi' };
const digest = `sha256:${'0123456789abcdef'.repeat(4)}`;

export const databaseCases: KindCases = {
  kind: databaseKind,
  valid: [
    { name: 'the original SampleDB manifest', body: { spec: sampleDb } },
    { name: 'only the required fields', body: { spec: minimal } },
    { name: 'a nightly backup', body: { spec: { ...minimal, backup: { schedule: '0 3 * * *', retention: 14 } } } },
    { name: 'a backup macro and the default retention', body: { spec: { ...minimal, backup: { schedule: '@daily' } } } },
    { name: 'a backup with ranges, steps and day names', body: { spec: { ...minimal, backup: { schedule: '*/30 1-5 * JAN,jul MON-FRI' } } } },
    { name: 'storage-size as a number of bytes', body: { spec: { ...minimal, 'storage-size': 10737418240 } } },
    { name: 'an image from a registry, with a variant and a digest', body: { spec: { ...minimal, image: `registry.example.com:5000/library/postgres:17.2-alpine3.21@${digest}` } } },
    { name: 'deletionPolicy Delete', body: { spec: { ...minimal, deletionPolicy: 'Delete' } } },
  ],
  invalid: [
    { name: 'port 0', body: { spec: { ...sampleDb, port: 0 } }, field: 'spec.port' },
    { name: 'port 70000', body: { spec: { ...sampleDb, port: 70000 } }, field: 'spec.port' },
    { name: 'port as a string', body: { spec: { ...sampleDb, port: '5432' } }, field: 'spec.port' },
    { name: 'replicas 0', body: { spec: { ...sampleDb, replicas: 0 } }, field: 'spec.replicas' },
    { name: 'storage-size "lots"', body: { spec: { ...sampleDb, 'storage-size': 'lots' } }, field: 'spec.storage-size' },
    { name: 'no name', body: { spec: { 'storage-size': '1Gi' } }, field: 'spec.name' },
    { name: 'no storage-size', body: { spec: { name: 'orders' } }, field: 'spec.storage-size' },
    { name: 'a name that is no SQL identifier', body: { spec: { ...minimal, name: 'name-of-database' } }, field: 'spec.name' },
    { name: 'a name longer than 63 characters', body: { spec: { ...minimal, name: 'd'.repeat(64) } }, field: 'spec.name' },
    { name: 'a template database for a name (CEL)', body: { spec: { ...minimal, name: 'template1' } }, field: 'spec.name' },
    { name: 'an image without a tag (CEL)', body: { spec: { ...minimal, image: 'postgres' } }, field: 'spec.image' },
    { name: 'an image tagged latest (CEL)', body: { spec: { ...minimal, image: 'postgres:latest' } }, field: 'spec.image' },
    { name: 'an image that is not postgres (CEL)', body: { spec: { ...minimal, image: 'super-great-docker-image:1' } }, field: 'spec.image' },
    { name: 'a cron schedule in words (CEL)', body: { spec: { ...minimal, backup: { schedule: 'every night' } } }, field: 'spec.backup.schedule' },
    { name: 'a cron schedule of four fields (CEL)', body: { spec: { ...minimal, backup: { schedule: '0 3 * *' } } }, field: 'spec.backup.schedule' },
    { name: 'a cron minute of 61 (CEL)', body: { spec: { ...minimal, backup: { schedule: '61 3 * * *' } } }, field: 'spec.backup.schedule' },
    { name: 'a backup without a schedule', body: { spec: { ...minimal, backup: { retention: 3 } } }, field: 'spec.backup.schedule' },
    { name: 'retention 0', body: { spec: { ...minimal, backup: { schedule: '0 3 * * *', retention: 0 } } }, field: 'spec.backup.retention' },
    { name: 'deletionPolicy Keep', body: { spec: { ...minimal, deletionPolicy: 'Keep' } }, field: 'spec.deletionPolicy' },
  ],
};
