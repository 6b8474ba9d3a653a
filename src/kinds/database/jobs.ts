import { restrictedContainerSecurityContext, restrictedPodSecurityContext } from '../../engine/constructs';
import { k8s } from 'cdk8s-plus-27';
import { Construct } from 'constructs';
import { CREATE_ONLY_ANNOTATION, KEEP_ON_DELETE_ANNOTATION } from './annotations';
import { BackupSpec, DatabaseSpec } from './api';
import { DatabaseChildNames } from './childnames';
import { PASSWORD_KEY, REPLICATION_PASSWORD_KEY, REPLICATION_USERNAME_KEY, USERNAME_KEY } from './credentials';
import { JobComponent, JOB_UID, podLabels, resources, scratchVolume, secretEnv } from './pod';
import { BACKUP_MOUNT, backupScript, dumpAllScript, initScript } from './scripts';
import { TLS_KEYS, TLS_MOUNT, tlsVolume } from './tls-secret';
import { PostgresVersion } from './version';

/**
 * A Job's pod template cannot change once it exists, and a Job that ran need not run again:
 * the controller creates these Jobs once and never updates them (a new version, a new Job name).
 */
const RUN_ONCE = { [CREATE_ONLY_ANNOTATION]: 'true' };

/** What every Job of a Database needs to know. */
export interface DatabaseJobProps {
  /** Names of the Database's children. */
  readonly names: DatabaseChildNames;
  /** The validated, defaulted spec. */
  readonly spec: DatabaseSpec;
  /** The image whose tools the Job runs. Default: spec.image. */
  readonly image?: string;
  /** The labels that tie children to the Database (childLabels()); the Job's pods carry them. Default: none. */
  readonly ownerLabels?: Record<string, string>;
}

interface JobOptions extends DatabaseJobProps {
  readonly component: JobComponent;
  readonly script: string;
  /** Variables beside the connection's. */
  readonly env?: k8s.EnvVar[];
  /** Mount the backup volume at BACKUP_MOUNT. */
  readonly backupVolume?: boolean;
}

/**
 * A Job's spec: one container of the postgres image running `sh -c <script>`, connected to
 * the Database's Service with the standard libpq variables, credentials by reference.
 */
function jobSpec(options: JobOptions): k8s.JobSpec {
  const { names, spec, ownerLabels = {} } = options;
  const backup = options.backupVolume ? [{ name: 'backup', persistentVolumeClaim: { claimName: names.backupVolume } }] : [];
  const tls = spec.tls === 'Required' ? [tlsVolume(names.tls)] : [];
  return {
    backoffLimit: 3,
    template: {
      metadata: { labels: podLabels(ownerLabels, options.component, names.service) },
      spec: {
        restartPolicy: 'Never',
        automountServiceAccountToken: false,
        enableServiceLinks: false,
        securityContext: restrictedPodSecurityContext(JOB_UID),
        containers: [
          {
            name: options.component,
            image: options.image ?? spec.image,
            imagePullPolicy: 'Always',
            command: ['sh', '-c', options.script],
            env: [
              { name: 'PGHOST', value: names.service },
              { name: 'PGPORT', value: String(spec.port) },
              secretEnv('PGUSER', names.credentials, USERNAME_KEY),
              secretEnv('PGPASSWORD', names.credentials, PASSWORD_KEY),
              { name: 'PGCONNECT_TIMEOUT', value: '10' },
              ...(tls.length ? superuserCertificate() : []),
              // libpq looks for ~/.pgpass; the Job's uid has no home of its own.
              { name: 'HOME', value: '/tmp' },
              ...(options.backupVolume ? [{ name: 'BACKUP_DIR', value: BACKUP_MOUNT }] : []),
              ...(options.env ?? []),
            ],
            resources: resources({ cpu: '100m', memory: '256Mi', ephemeralStorage: '64Mi' }, { cpu: '1', memory: '1Gi', ephemeralStorage: '256Mi' }),
            securityContext: restrictedContainerSecurityContext(JOB_UID),
            volumeMounts: [
              { name: 'tmp', mountPath: '/tmp' },
              ...backup.map(({ name }) => ({ name, mountPath: BACKUP_MOUNT })),
              ...tls.map(({ name }) => ({ name, mountPath: TLS_MOUNT, readOnly: true })),
            ],
          },
        ],
        volumes: [scratchVolume('tmp', '64Mi'), ...backup, ...tls],
      },
    },
  };
}

/** libpq's variables for TLS: the server verified against the Database's CA, the superuser's client certificate (pg_hba's `cert`). */
function superuserCertificate(): k8s.EnvVar[] {
  return [
    { name: 'PGSSLMODE', value: 'verify-full' },
    { name: 'PGSSLROOTCERT', value: `${TLS_MOUNT}/${TLS_KEYS.ca}` },
    { name: 'PGSSLCERT', value: `${TLS_MOUNT}/${TLS_KEYS.superuserCert}` },
    { name: 'PGSSLKEY', value: `${TLS_MOUNT}/${TLS_KEYS.superuserKey}` },
  ];
}

/** Job `<name>-init`: creates database spec.name, the replication role and the owner role of Secret `<name>-app` with psql once the server is up. */
export class DatabaseInitJob extends Construct {
  readonly job: k8s.KubeJob;
  constructor(scope: Construct, id: string, props: DatabaseJobProps) {
    super(scope, id);
    this.job = new k8s.KubeJob(this, 'job', {
      metadata: { name: props.names.init, annotations: RUN_ONCE },
      spec: jobSpec({
        ...props,
        component: 'init',
        script: initScript(),
        env: [
          { name: 'DATABASE_NAME', value: props.spec.name },
          secretEnv('REPLICATION_USER', props.names.credentials, REPLICATION_USERNAME_KEY),
          secretEnv('REPLICATION_PASSWORD', props.names.credentials, REPLICATION_PASSWORD_KEY),
          secretEnv('APP_USER', props.names.app, USERNAME_KEY),
          secretEnv('APP_PASSWORD', props.names.app, PASSWORD_KEY),
        ],
      }),
    });
  }
}

export interface BackupVolumeProps {
  /** Name of the claim, `<database>-backup`. */
  readonly name: string;
  /** Its size, a quantity. */
  readonly size: string;
}

/** PersistentVolumeClaim `<name>-backup`: the dumps live here, and it outlives the Database. */
export class BackupVolume extends Construct {
  readonly claim: k8s.KubePersistentVolumeClaim;
  constructor(scope: Construct, id: string, props: BackupVolumeProps) {
    super(scope, id);
    this.claim = new k8s.KubePersistentVolumeClaim(this, 'claim', {
      // The controller sets no ownerReference on it and never deletes it: backups must survive the database.
      metadata: { name: props.name, annotations: { [KEEP_ON_DELETE_ANNOTATION]: 'true' } },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: k8s.Quantity.fromString(props.size) } } },
    });
  }
}

export interface DatabaseBackupProps extends DatabaseJobProps {
  /** When to back up and how many backups to keep. */
  readonly backup: BackupSpec;
}

/** CronJob `<name>-backup`: a pg_dump of the database on spec.backup.schedule, keeping the newest `retention`. */
export class DatabaseBackup extends Construct {
  readonly cronJob: k8s.KubeCronJob;
  constructor(scope: Construct, id: string, props: DatabaseBackupProps) {
    super(scope, id);
    const { names, spec, backup, ownerLabels = {} } = props;
    this.cronJob = new k8s.KubeCronJob(this, 'cronjob', {
      metadata: { name: names.backup },
      spec: {
        schedule: backup.schedule,
        // Two dumps at once only slow each other down, and the pruning of one could race the other.
        concurrencyPolicy: 'Forbid',
        // A backup that could not start within the hour (controller down, no node) is skipped, not stacked up.
        startingDeadlineSeconds: 3600,
        successfulJobsHistoryLimit: 3,
        failedJobsHistoryLimit: 3,
        jobTemplate: {
          metadata: { labels: podLabels(ownerLabels, 'backup', names.service) },
          spec: jobSpec({
            ...props,
            component: 'backup',
            script: backupScript(),
            backupVolume: true,
            env: [
              { name: 'PGDATABASE', value: spec.name },
              { name: 'RETENTION', value: String(backup.retention) },
            ],
          }),
        },
      },
    });
  }
}

/** Job `<name>-snapshot`: the final pg_dumpall on deletion; the finalizer waits for it. */
export class DatabaseSnapshotJob extends Construct {
  readonly job: k8s.KubeJob;
  constructor(scope: Construct, id: string, props: DatabaseJobProps) {
    super(scope, id);
    this.job = new k8s.KubeJob(this, 'job', {
      metadata: { name: props.names.snapshot, annotations: RUN_ONCE },
      spec: jobSpec({ ...props, component: 'snapshot', script: dumpAllScript('snapshot'), backupVolume: true, env: [{ name: 'DUMP_LABEL', value: 'final' }] }),
    });
  }
}

export interface DatabaseUpgradeJobProps extends DatabaseJobProps {
  /** The version running now. */
  readonly from: PostgresVersion;
  /** The version of spec.image. */
  readonly to: PostgresVersion;
}

/**
 * Job `<name>-upgrade-<tag>`: a full pg_dumpall of the running server before the
 * StatefulSet rolls to the new image. It runs the new image, whose pg_dumpall can read the
 * older server, as PostgreSQL recommends for upgrades.
 */
export class DatabaseUpgradeJob extends Construct {
  readonly job: k8s.KubeJob;
  constructor(scope: Construct, id: string, props: DatabaseUpgradeJobProps) {
    super(scope, id);
    const { names, from, to } = props;
    this.job = new k8s.KubeJob(this, 'job', {
      metadata: { name: names.upgrade(to), annotations: RUN_ONCE },
      spec: jobSpec({
        ...props,
        component: 'upgrade',
        script: dumpAllScript('upgrade'),
        backupVolume: true,
        env: [{ name: 'DUMP_LABEL', value: `from-${from.tag}-to-${to.tag}` }],
      }),
    });
  }
}
