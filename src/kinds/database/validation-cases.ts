import { ValidationCases } from '../../engine/kind';

/** The SampleDB of the operator pattern, as written there. */
const sampleDb = { name: 'name-of-database', port: 5432, 'storage-size': '50G', image: 'super-great-docker-image', replicas: 3 };
const minimal = { name: 'orders', 'storage-size': '1Gi' };
const digest = `sha256:${'0123456789abcdef'.repeat(4)}`;

/** v1 objects the API server and the controller must both accept, and both refuse naming the field (see ValidationCases). */
export const olderValidationCases: ValidationCases[] = [{
  version: 'v1',
  valid: [
    { name: 'the original SampleDB manifest', body: { spec: sampleDb } },
    { name: 'a name with quotes, spaces, capitals and "="', body: { spec: { ...minimal, name: `We"ird DB='x'` } } },
    { name: 'a name of 63 bytes', body: { spec: { ...minimal, name: 'd'.repeat(63) } } },
    { name: 'a name of 31 two-byte characters', body: { spec: { ...minimal, name: '\u00e9'.repeat(31) } } },
    { name: 'an image with no tag', body: { spec: { ...minimal, image: 'postgres' } } },
    { name: 'an image tagged latest', body: { spec: { ...minimal, image: 'postgres:latest' } } },
    { name: 'an image by digest only', body: { spec: { ...minimal, image: `ghcr.io/team/pg@${digest}` } } },
    { name: 'another repository with a version tag', body: { spec: { ...minimal, image: 'docker.io/bitnami/postgresql:16.4.0-debian-12-r0' } } },
    { name: 'only the required fields', body: { spec: minimal } },
    { name: 'a nightly backup', body: { spec: { ...minimal, backup: { schedule: '0 3 * * *', retention: 14 } } } },
    { name: 'a backup macro and the default retention', body: { spec: { ...minimal, backup: { schedule: '@daily' } } } },
    { name: 'a backup with ranges, steps and day names', body: { spec: { ...minimal, backup: { schedule: '*/30 1-5 * JAN,jul MON-FRI' } } } },
    { name: 'storage-size as a number of bytes', body: { spec: { ...minimal, 'storage-size': 10737418240 } } },
    { name: 'an image from a registry, with a variant and a digest', body: { spec: { ...minimal, image: `registry.example.com:5000/library/postgres:17.2-alpine3.21@${digest}` } } },
    { name: 'deletionPolicy Delete', body: { spec: { ...minimal, deletionPolicy: 'Delete' } } },
    { name: 'the original\u2019s access: superuserAccess true and tls Disabled', body: { spec: { ...sampleDb, superuserAccess: true, tls: 'Disabled' } } },
    { name: 'superuserAccess true with TLS', body: { spec: { ...minimal, superuserAccess: true } } },
  ],
  invalid: [
    { name: 'port 0', body: { spec: { ...sampleDb, port: 0 } }, field: 'spec.port' },
    { name: 'port 70000', body: { spec: { ...sampleDb, port: 70000 } }, field: 'spec.port' },
    { name: 'port as a string', body: { spec: { ...sampleDb, port: '5432' } }, field: 'spec.port' },
    { name: 'replicas 0', body: { spec: { ...sampleDb, replicas: 0 } }, field: 'spec.replicas' },
    { name: 'storage-size "lots"', body: { spec: { ...sampleDb, 'storage-size': 'lots' } }, field: 'spec.storage-size' },
    { name: 'storage-size "50 GB"', body: { spec: { ...sampleDb, 'storage-size': '50 GB' } }, field: 'spec.storage-size' },
    { name: 'no name', body: { spec: { 'storage-size': '1Gi' } }, field: 'spec.name' },
    { name: 'no storage-size', body: { spec: { name: 'orders' } }, field: 'spec.storage-size' },
    { name: 'an empty name', body: { spec: { ...minimal, name: '' } }, field: 'spec.name' },
    { name: 'a name longer than 63 characters', body: { spec: { ...minimal, name: 'd'.repeat(64) } }, field: 'spec.name' },
    { name: 'a name of 64 bytes in 32 characters (CEL)', body: { spec: { ...minimal, name: '\u00e9'.repeat(32) } }, field: 'spec.name' },
    { name: 'a name with a NUL character', body: { spec: { ...minimal, name: 'a\u0000b' } }, field: 'spec.name' },
    { name: 'a template database for a name (CEL)', body: { spec: { ...minimal, name: 'template1' } }, field: 'spec.name' },
    { name: 'an image with capitals in its path (CEL)', body: { spec: { ...minimal, image: 'Postgres:17' } }, field: 'spec.image' },
    { name: 'an image with a space (CEL)', body: { spec: { ...minimal, image: 'postgres 17' } }, field: 'spec.image' },
    { name: 'an image with an empty tag (CEL)', body: { spec: { ...minimal, image: 'postgres:' } }, field: 'spec.image' },
    { name: 'an image with a short digest (CEL)', body: { spec: { ...minimal, image: 'postgres@sha256:abc' } }, field: 'spec.image' },
    { name: 'a cron schedule in words (CEL)', body: { spec: { ...minimal, backup: { schedule: 'every night' } } }, field: 'spec.backup.schedule' },
    { name: 'a cron schedule of four fields (CEL)', body: { spec: { ...minimal, backup: { schedule: '0 3 * *' } } }, field: 'spec.backup.schedule' },
    { name: 'a cron minute of 61 (CEL)', body: { spec: { ...minimal, backup: { schedule: '61 3 * * *' } } }, field: 'spec.backup.schedule' },
    { name: 'a backup without a schedule', body: { spec: { ...minimal, backup: { retention: 3 } } }, field: 'spec.backup.schedule' },
    { name: 'retention 0', body: { spec: { ...minimal, backup: { schedule: '0 3 * * *', retention: 0 } } }, field: 'spec.backup.retention' },
    { name: 'deletionPolicy Keep', body: { spec: { ...minimal, deletionPolicy: 'Keep' } }, field: 'spec.deletionPolicy' },
    { name: 'tls Disabled without superuserAccess (CEL)', body: { spec: { ...minimal, tls: 'Disabled' } }, field: 'spec.tls' },
    { name: 'tls Off', body: { spec: { ...minimal, tls: 'Off' } }, field: 'spec.tls' },
    { name: 'superuserAccess as a string', body: { spec: { ...minimal, superuserAccess: 'true' } }, field: 'spec.superuserAccess' },
  ],
}];

const minimalV2 = { name: 'orders', storageSize: '1Gi' };

/** v2, the hub: the same rules, the storage size spelled storageSize. */
export const validationCases: ValidationCases = {
  valid: [
    { name: 'only the required fields', body: { spec: minimalV2 } },
    { name: 'storageSize as a number of bytes', body: { spec: { ...minimalV2, storageSize: 10737418240 } } },
    { name: 'every field', body: { spec: { ...minimalV2, port: 5433, image: 'postgres:17', replicas: 2, backup: { schedule: '@daily' }, deletionPolicy: 'Delete', superuserAccess: true, tls: 'Disabled' } } },
  ],
  invalid: [
    { name: 'no storageSize', body: { spec: { name: 'orders' } }, field: 'spec.storageSize' },
    { name: 'storageSize "lots"', body: { spec: { ...minimalV2, storageSize: 'lots' } }, field: 'spec.storageSize' },
    { name: 'no name', body: { spec: { storageSize: '1Gi' } }, field: 'spec.name' },
    { name: 'a template database for a name (CEL)', body: { spec: { ...minimalV2, name: 'template0' } }, field: 'spec.name' },
    { name: 'tls Disabled without superuserAccess (CEL)', body: { spec: { ...minimalV2, tls: 'Disabled', superuserAccess: false } }, field: 'spec.tls' },
  ],
};
