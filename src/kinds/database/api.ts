import { commonStatusProperties } from '../../core/status';
import { Infer, s } from '../../schema';

/** The engine the kind runs by default; the Jobs use this image's own tools (psql, pg_dump). */
export const DEFAULT_IMAGE = 'postgres:17';

/** Databases every PostgreSQL cluster already has and that must never be created or replaced. */
export const RESERVED_DATABASES = ['template0', 'template1'] as const;

/**
 * An SQL identifier (a letter or underscore, then letters, digits or underscores) of at most
 * 63 bytes, PostgreSQL's NAMEDATALEN - 1. The Jobs always quote it, so case is kept.
 */
export const DATABASE_NAME_PATTERN = '^[A-Za-z_][A-Za-z0-9_]*$';

/**
 * A PostgreSQL image with a version tag: optional registry and path, the repository `postgres`,
 * a tag that starts with the major (and minor) version, an optional variant and digest.
 * The version is what upgrades compare; `latest` or no tag could not be compared.
 * Written without backslashes so that it reads the same in CEL, OpenAPI and TypeScript.
 */
export const POSTGRES_IMAGE_PATTERN =
  '^([a-z0-9]+([.-][a-z0-9]+)*(:[0-9]+)?/)?([a-z0-9]+([._-][a-z0-9]+)*/)*postgres:([0-9]+)([.]([0-9]+))?(-[a-z0-9]+([.-][a-z0-9]+)*)?(@sha256:[a-f0-9]{64})?$';

/** One cron field: `*`, `?`, a value or a range from `values`, an optional step, and lists of those. */
function cronField(values: string): string {
  const item = `([*?]|(${values})(-(${values}))?)(/[0-9]{1,2})?`;
  return `${item}(,${item})*`;
}

const MONTH_NAMES = '[Jj][Aa][Nn]|[Ff][Ee][Bb]|[Mm][Aa][Rr]|[Aa][Pp][Rr]|[Mm][Aa][Yy]|[Jj][Uu][Nn]|[Jj][Uu][Ll]|[Aa][Uu][Gg]|[Ss][Ee][Pp]|[Oo][Cc][Tt]|[Nn][Oo][Vv]|[Dd][Ee][Cc]';
const DAY_NAMES = '[Ss][Uu][Nn]|[Mm][Oo][Nn]|[Tt][Uu][Ee]|[Ww][Ee][Dd]|[Tt][Hh][Uu]|[Ff][Rr][Ii]|[Ss][Aa][Tt]';

/**
 * A standard five-field cron expression (minute hour day-of-month month day-of-week) with the
 * ranges of each field, or one of the macros CronJobs accept (@daily, @hourly, ...).
 */
export const CRON_PATTERN = [
  '^(@(yearly|annually|monthly|weekly|daily|midnight|hourly)|',
  cronField('[0-5]?[0-9]'),
  ' +',
  cronField('[01]?[0-9]|2[0-3]'),
  ' +',
  cronField('0?[1-9]|[12][0-9]|3[01]'),
  ' +',
  cronField(`0?[1-9]|1[0-2]|${MONTH_NAMES}`),
  ' +',
  cronField(`[0-7]|${DAY_NAMES}`),
  ')$',
].join('');

export const DELETION_POLICIES = ['Snapshot', 'Delete'] as const;
export type DeletionPolicy = (typeof DELETION_POLICIES)[number];

export const backupSpec = s.object(
  {
    schedule: s.string({
      description:
        'When to take a backup, as a cron expression of five fields (minute hour day-of-month month day-of-week, e.g. "0 3 * * *" for 03:00 every night, in the cluster\u2019s time zone) or a macro such as @daily.',
      minLength: 1,
      maxLength: 128,
    }),
    retention: s.integer({ description: 'How many scheduled backups to keep; older ones are deleted after each new backup.', minimum: 1, maximum: 1000, default: 7 }),
  },
  {
    description: 'Scheduled backups with pg_dump into the backup volume `<name>-backup`, which outlives the Database.',
    rules: [
      {
        // A CEL rule rather than an OpenAPI pattern: the API server quotes a failed pattern in
        // its error, and this one is far too long to read there.
        cel: `self.schedule.matches('${CRON_PATTERN}')`,
        message: 'schedule must be a cron expression of five fields (minute hour day-of-month month day-of-week) such as "0 3 * * *", or a macro such as @daily',
        fieldPath: '.schedule',
        holds: (self) => new RegExp(CRON_PATTERN).test(self.schedule),
      },
    ],
  },
);

export const databaseSpec = s.object(
  {
    name: s.string({
      description:
        'Name of the database to create inside PostgreSQL: an SQL identifier (a letter or underscore, then letters, digits or underscores), at most 63 characters. It cannot change later.',
      pattern: DATABASE_NAME_PATTERN,
      patternHint: 'an SQL identifier (a letter or underscore, then letters, digits or underscores)',
      maxLength: 63,
    }),
    port: s.integer({ description: 'TCP port PostgreSQL listens on and the Service exposes.', minimum: 1, maximum: 65535, default: 5432 }),
    'storage-size': s.quantity({
      description: 'Size of each replica\u2019s data volume (and of the backup volume), as a quantity such as 50G or 10Gi. It cannot change later.',
    }),
    image: s.string({
      description:
        'PostgreSQL container image with a version tag, e.g. postgres:17 or registry.example.com/library/postgres:17.2-alpine. Changing it to a newer version runs an upgrade Job (a full dump) before the StatefulSet rolls.',
      default: DEFAULT_IMAGE,
      minLength: 1,
      maxLength: 255,
    }),
    replicas: s.integer({ description: 'Number of PostgreSQL pods in the StatefulSet; the Service sends clients to the first one.', minimum: 1, default: 1 }),
    backup: s.optional(backupSpec),
    deletionPolicy: s.enum(DELETION_POLICIES, {
      description: 'What happens to the data when the Database is deleted: Snapshot (a final pg_dumpall into the backup volume must succeed first) or Delete (removed at once). The backup volume is kept either way.',
      default: 'Snapshot',
    }),
  },
  {
    description: 'The PostgreSQL database to run, its storage, backups and what to do with its data on deletion.',
    rules: [
      {
        cel: `self.image.matches('${POSTGRES_IMAGE_PATTERN}')`,
        message: 'image must be a postgres image with a version tag, such as postgres:17 or registry.example.com/library/postgres:17.2-alpine',
        fieldPath: '.image',
        holds: (self) => new RegExp(POSTGRES_IMAGE_PATTERN).test(self.image),
      },
      // Transition rules: the API server checks them on updates only, against the stored
      // object; the controller never sees the old object, so their TypeScript side cannot fail.
      {
        cel: 'self.name == oldSelf.name',
        message: 'name cannot change: the database is created once, and backups would silently switch to a new, empty one',
        fieldPath: '.name',
        holds: () => true,
      },
      {
        // CEL spells "-" in a field name as __dash__.
        cel: 'self.storage__dash__size == oldSelf.storage__dash__size',
        message: 'storage-size cannot change: a StatefulSet\u2019s volume claims are fixed when it is created; expand the PersistentVolumeClaims data-<name>-<n> instead',
        fieldPath: '.storage-size',
        holds: () => true,
      },
      {
        cel: `!(self.name in [${RESERVED_DATABASES.map((n) => `'${n}'`).join(', ')}])`,
        message: `name must not be one of PostgreSQL\u2019s template databases (${RESERVED_DATABASES.join(', ')})`,
        fieldPath: '.name',
        holds: (self) => !(RESERVED_DATABASES as readonly string[]).includes(self.name),
      },
    ],
  },
);

export const PHASES = ['Creating', 'Ready', 'NotReady', 'Upgrading', 'Held', 'Deleting', 'Failed'] as const;
export type Phase = (typeof PHASES)[number];

export const databaseStatus = s.object(
  {
    ...commonStatusProperties,
    phase: s.optional(
      s.enum(PHASES, {
        description:
          'Where the Database is: Creating, Ready, NotReady (fewer ready replicas than asked), Upgrading, Held (spec.image is not applied; the Ready condition says why), Deleting (final snapshot running) or Failed.',
      }),
    ),
    readyReplicas: s.optional(s.integer({ description: 'How many PostgreSQL pods are ready.', minimum: 0 })),
    lastBackupTime: s.optional(s.string({ description: 'When the last scheduled backup succeeded.', format: 'date-time' })),
    currentImage: s.optional(s.string({ description: 'The image the StatefulSet runs now; differs from spec.image while an upgrade is pending or held.' })),
  },
  { description: 'The observed state of the database.' },
);

export type DatabaseSpec = Infer<typeof databaseSpec>;
export type BackupSpec = Infer<typeof backupSpec>;
export type DatabaseStatus = Infer<typeof databaseStatus>;
