import { commonStatusProperties, Infer, matchesRule, Rule, s } from '../../engine/kind';

/**
 * The engine the kind runs by default; the Jobs use this image's own tools (psql, pg_dump).
 * Pinned by digest (the official image's multi-platform index of 17.11): a tag that moves would
 * change what every new Database runs, unreviewed. The tag stays for readers and for upgrades,
 * which read the version from it.
 */
export const DEFAULT_IMAGE = 'postgres:17@sha256:d74eeac9a635390a49bc21bd49fccd973de707e2a53a76ac49b552b8712ec46f';

/** Databases every PostgreSQL cluster already has and that must never be created or replaced. */
export const RESERVED_DATABASES = ['template0', 'template1'] as const;

/**
 * PostgreSQL's identifiers hold at most NAMEDATALEN - 1 = 63 bytes; a longer name would be
 * cut silently, so it is refused. Counted in UTF-8 bytes, as PostgreSQL counts.
 */
export const MAX_DATABASE_NAME_BYTES = 63;

/**
 * Any text PostgreSQL takes as a quoted identifier: at least one character, no NUL. The
 * scripts always quote it (`%I`), so `-`, spaces, quotes and case are all kept.
 */
export const DATABASE_NAME_PATTERN = '^[^\\x00]+$';

/**
 * An OCI / Docker image reference, as the distribution reference grammar has it: an optional
 * registry host (with a port), a lower-case path, an optional tag and an optional digest.
 * Hosts in IPv6 brackets are not taken. Written without backslashes so that it reads the same
 * in CEL, OpenAPI and TypeScript.
 */
const DOMAIN_COMPONENT = '[a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?';
const PATH_COMPONENT = '[a-z0-9]+((__|[_.]|-+)[a-z0-9]+)*';
export const IMAGE_REFERENCE_PATTERN = [
  `^(${DOMAIN_COMPONENT}([.]${DOMAIN_COMPONENT})*(:[0-9]+)?/)?`,
  `${PATH_COMPONENT}(/${PATH_COMPONENT})*`,
  '(:[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?',
  '(@[A-Za-z][A-Za-z0-9]*([-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,})?$',
].join('');

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

/** Required: clients connect over TLS only, to a certificate of the Database's own CA. Disabled: no TLS, as the original. */
export const TLS_MODES = ['Required', 'Disabled'] as const;
export type TlsMode = (typeof TLS_MODES)[number];

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
      matchesRule(
        'schedule',
        CRON_PATTERN,
        'schedule must be a cron expression of five fields (minute hour day-of-month month day-of-week) such as "0 3 * * *", or a macro such as @daily',
      ),
    ],
  },
);

const STORAGE_DESCRIPTION = 'Size of each replica\u2019s data volume (and of the backup volume), as a quantity such as 50G or 10Gi. It cannot change later.';
const storageSizeNote = (field: string) =>
  `${field} cannot change: a StatefulSet\u2019s volume claims are fixed when it is created; expand the PersistentVolumeClaims data-<name>-<n> instead`;

/** Every field but the storage size, whose name differs between v1 and v2. */
const databaseFields = {
  name: s.string({
    description:
      'Name of the database to create inside PostgreSQL, e.g. name-of-database: any text of at most 63 bytes without NUL; it is always quoted, so "-", spaces and capitals are kept as written. It cannot change later.',
    minLength: 1,
    maxLength: MAX_DATABASE_NAME_BYTES,
    pattern: DATABASE_NAME_PATTERN,
    patternHint: 'text without a NUL character',
  }),
  port: s.integer({ description: 'TCP port PostgreSQL listens on and the Service exposes.', minimum: 1, maximum: 65535, default: 5432 }),
  image: s.string({
    description:
      'PostgreSQL container image, any image reference with PostgreSQL\u2019s server programs on its PATH, e.g. postgres:17 or registry.example.com/library/postgres:17.2-alpine, best pinned by digest (postgres:17.2@sha256:<digest>), as the default is. When its tag starts with a version (17, 17.2-alpine), changing it to a newer minor version runs an upgrade Job (a full dump) before the StatefulSet rolls; a change to or from an image whose version cannot be read is held, with the reason in status.',
    default: DEFAULT_IMAGE,
    minLength: 1,
    maxLength: 512,
  }),
  replicas: s.integer({
    description: 'Number of PostgreSQL servers: one primary (the Service <name>, read-write) and replicas - 1 hot standbys streaming from it (the Service <name>-readonly). Failover is manual.',
    minimum: 1,
    default: 1,
  }),
  backup: s.optional(backupSpec),
  deletionPolicy: s.enum(DELETION_POLICIES, {
    description: 'What happens to the data when the Database is deleted: Snapshot (a final pg_dumpall into the backup volume must succeed first) or Delete (removed at once). The backup volume is kept either way.',
    default: 'Snapshot',
  }),
  superuserAccess: s.boolean({
    description:
      'Whether the superuser (Secret <name>-credentials) may log in over the network with its password, as in the original operator. false (the default): only with the client certificate of the Database’s own Jobs; clients use the owner role `app` of Secret <name>-app.',
    default: false,
  }),
  tls: s.enum(TLS_MODES, {
    description:
      'Required (the default): every network connection must use TLS, with a server certificate from the Database’s own CA (Secret <name>-tls, key ca.crt). Disabled: no TLS, as the original operator; it needs superuserAccess: true.',
    default: 'Required',
  }),
};

/** The rules on those fields, the same in every version. */
function databaseRules<T extends { name: string; image: string; superuserAccess: boolean; tls: TlsMode }>(): Rule<T>[] {
  return [
    {
      // Without TLS there is no client certificate, and the Jobs could only log in with the superuser's password.
      cel: "self.tls == 'Required' || self.superuserAccess",
      message: 'tls Disabled needs superuserAccess: true: without TLS the Database’s Jobs can only log in with the superuser’s password, which superuserAccess false refuses over the network',
      fieldPath: '.tls',
      holds: (self) => self.tls === 'Required' || self.superuserAccess,
    },
    matchesRule('image', IMAGE_REFERENCE_PATTERN, 'image must be an image reference such as postgres:17, registry.example.com:5000/team/postgres:17.2-alpine or an image@sha256:<digest>'),
    {
      // maxLength counts characters; PostgreSQL counts bytes (an é is two).
      cel: `bytes(self.name).size() <= ${MAX_DATABASE_NAME_BYTES}`,
      message: `name must be at most ${MAX_DATABASE_NAME_BYTES} bytes in UTF-8, PostgreSQL\u2019s limit for an identifier`,
      fieldPath: '.name',
      holds: (self) => Buffer.byteLength(self.name, 'utf8') <= MAX_DATABASE_NAME_BYTES,
    },
    // A transition rule: the API server checks it on updates only, against the stored
    // object; the controller never sees the old object, so its TypeScript side cannot fail.
    {
      cel: 'self.name == oldSelf.name',
      message: 'name cannot change: the database is created once, and backups would silently switch to a new, empty one',
      fieldPath: '.name',
      holds: () => true,
    },
    {
      cel: `!(self.name in [${RESERVED_DATABASES.map((n) => `'${n}'`).join(', ')}])`,
      message: `name must not be one of PostgreSQL\u2019s template databases (${RESERVED_DATABASES.join(', ')})`,
      fieldPath: '.name',
      holds: (self) => !(RESERVED_DATABASES as readonly string[]).includes(self.name),
    },
  ];
}

const DATABASE_DESCRIPTION = 'The PostgreSQL database to run, its storage, backups and what to do with its data on deletion.';

/** v2, the hub: Kubernetes' field naming (`storageSize`). */
export const databaseSpec = s.object(
  { ...databaseFields, storageSize: s.quantity({ description: STORAGE_DESCRIPTION }) },
  {
    description: DATABASE_DESCRIPTION,
    rules: [
      ...databaseRules(),
      // A transition rule: the API server checks it on updates only, against the stored object.
      { cel: 'self.storageSize == oldSelf.storageSize', message: storageSizeNote('storageSize'), fieldPath: '.storageSize', holds: () => true },
    ],
  },
);

/** v1, the original's: `storage-size`. */
export const databaseSpecV1 = s.object(
  { ...databaseFields, 'storage-size': s.quantity({ description: STORAGE_DESCRIPTION }) },
  {
    description: DATABASE_DESCRIPTION,
    rules: [
      ...databaseRules(),
      // CEL spells "-" in a field name as __dash__.
      { cel: 'self.storage__dash__size == oldSelf.storage__dash__size', message: storageSizeNote('storage-size'), fieldPath: '.storage-size', holds: () => true },
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
export type DatabaseSpecV1 = Infer<typeof databaseSpecV1>;
export type BackupSpec = Infer<typeof backupSpec>;
export type DatabaseStatus = Infer<typeof databaseStatus>;
