import { CHILD_VERBS, constructsOnFirstUse, imageRepository, KindDefinition, ObjectRule, PrinterColumn } from '../../engine/kind';
import { DEFAULT_IMAGE, DatabaseSpec, databaseSpec, DatabaseStatus, databaseStatus } from './api';
import { databaseController } from './controller';
import { DatabaseObservation } from './observation';
import { databaseMonitoring } from './monitoring';
import { databaseV1 } from './v1';

export * from './annotations';
export * from './api';
export * from './childnames';
export * from './controller';
export * from './observation';
export * from './plan';
export * from './version';

/** The controller holds this on every Database until the final snapshot (deletionPolicy Snapshot) succeeded. */
export const DATABASE_FINALIZER = 'stable.imaginedata.com/snapshot';

/**
 * The Database's Service is named after it, and a Service name is a DNS label: lower-case
 * letters, digits and "-", starting with a letter, no dots. Longer names are shortened by childName().
 */
export const DATABASE_OBJECT_NAME_PATTERN = '^[a-z]([-a-z0-9]*[a-z0-9])?$';

const OBJECT_RULES: ObjectRule[] = [
  {
    cel: `self.metadata.name.matches('${DATABASE_OBJECT_NAME_PATTERN}')`,
    message: 'metadata.name must be lower-case letters, digits and "-", starting with a letter (no dots): the Database\u2019s Service is named after it',
    // Only `metadata` itself is in the CRD's schema, so the error can point no deeper.
    field: 'metadata',
    holds: (object) => new RegExp(DATABASE_OBJECT_NAME_PATTERN).test(String((object.metadata as { name?: unknown } | undefined)?.name ?? '')),
  },
];

const PRINTER_COLUMNS: PrinterColumn[] = [
  { name: 'Database', type: 'string', jsonPath: '.spec.name', description: 'The database inside PostgreSQL.', selectable: true },
  { name: 'Port', type: 'integer', jsonPath: '.spec.port', description: 'The port clients connect to.', priority: 1 },
  { name: 'Storage', type: 'string', jsonPath: '.spec.storageSize', description: 'Size of each data volume.' },
  { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas', description: 'PostgreSQL pods asked for.' },
  { name: 'ReadyReplicas', type: 'integer', jsonPath: '.status.readyReplicas', description: 'PostgreSQL pods ready.' },
  { name: 'Phase', type: 'string', jsonPath: '.status.phase', description: 'Where the Database is.', selectable: true },
  { name: 'Image', type: 'string', jsonPath: '.status.currentImage', description: 'The image running now.', priority: 1 },
  { name: 'LastBackup', type: 'date', jsonPath: '.status.lastBackupTime', description: 'When the last scheduled backup succeeded.' },
];

/** Database: a PostgreSQL instance with its storage, backups, upgrades and final snapshot (the SampleDB of the operator pattern). */
export const databaseKind: KindDefinition<DatabaseSpec, DatabaseStatus, DatabaseObservation> = {
  group: 'stable.imaginedata.com',
  extraGroups: ['stable.imaginedata.co'],
  version: 'v2',
  // v1 spells the storage size `storage-size`, as the original did (docs/kinds/database.md).
  olderVersions: [databaseV1(PRINTER_COLUMNS, OBJECT_RULES)],
  kind: 'Database',
  plural: 'databases',
  singular: 'database',
  shortNames: ['db'],
  scope: 'Namespaced',
  // Its children live beside each object, and it reads nothing else: a namespaced install serves it.
  servesNamespaces: true,
  description:
    'Database runs a PostgreSQL instance in a StatefulSet, creates its database, backs it up on a schedule, upgrades it after a dump, and takes a final snapshot before its data is deleted.',
  spec: databaseSpec,
  status: databaseStatus,
  objectRules: OBJECT_RULES,
  printerColumns: PRINTER_COLUMNS,
  manages: [
    // Created once with a generated password and never changed, so no update, patch, list or
    // watch. It has no ownerReference (the final snapshot logs in with it, see kept.ts): the
    // controller deletes it by name when it releases the finalizer, after the snapshot. `get`
    // stays: a create answering 409 says a Secret of that name exists, not whose, and only its
    // labels tell a user's Secret (left alone, reported as a conflict) from ours (see
    // docs/kinds/database.md, "Why the controller may read Secrets").
    { apiGroup: '', resources: ['secrets'], verbs: ['get', 'create', 'delete'] },
    { apiGroup: '', resources: ['services', 'persistentvolumeclaims'], verbs: CHILD_VERBS },
    { apiGroup: 'apps', resources: ['statefulsets'], verbs: CHILD_VERBS },
    { apiGroup: 'batch', resources: ['jobs', 'cronjobs'], verbs: CHILD_VERBS },
    { apiGroup: 'networking.k8s.io', resources: ['networkpolicies'], verbs: CHILD_VERBS },
  ],
  // spec.image names any PostgreSQL image: the install adds other repositories than the official one (extraImages).
  renders: { images: [imageRepository(DEFAULT_IMAGE)] },
  acceptedBreaks: (['v1', 'v2'] as const).map((version) => ({
    version,
    path: 'spec.image',
    rule: 'default' as const,
    reason: 'The default image is pinned by digest (postgres:17@sha256:d74eeac9\u2026, the same 17 line): a Database created without spec.image now runs exactly that image. Stored Databases keep the image they were defaulted to (postgres:17); set spec.image to pin one of them.',
  })),
  finalizer: DATABASE_FINALIZER,
  controller: databaseController,
  monitoring: databaseMonitoring,
  ...constructsOnFirstUse(() => (require('./constructs') as typeof import('./constructs')).databaseConstructs, { example: true }),
};

/** The definition src/kinds/index.ts registers (every kind's index.ts exports it as `kind`). */
export { databaseKind as kind };
