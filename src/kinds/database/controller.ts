import { randomBytes } from 'node:crypto';
import { CacheReader, CustomResource, KindController, KubeJson } from '../../engine/kind';
import { DatabaseSpec, DatabaseStatus } from './api';
import { DatabaseChildNames, databaseChildNames } from './childnames';
import { DATABASE_USER } from './users';
// @peculiar/x509 loads when a Database first needs certificates, not with the controller (constructs-on-first-use.test.ts).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const newDatabaseTls: typeof import('./tls').newDatabaseTls = (...args) => (require('./tls') as typeof import('./tls')).newDatabaseTls(...args);
import { keptUntilSnapshot } from './kept';
import { DatabaseObservation, JobOutcome } from './observation';
import { databasePhase, finalizerMayBeReleased, HELD_REASONS } from './plan';
import { sampleDatabase } from './sample';
import { parsePostgresImage } from './version';

type Database = CustomResource<DatabaseSpec, DatabaseStatus>;
type StatefulSetJson = KubeJson & {
  spec?: { template?: { spec?: { containers?: { name: string; image?: string }[]; volumes?: { secret?: { secretName?: string } }[] } } };
  status?: { readyReplicas?: number };
};
type JobJson = KubeJson & { status?: { conditions?: { type: string; status: string }[] } };

const STATEFULSETS = { apiGroup: 'apps', resource: 'statefulsets' };
const JOBS = { apiGroup: 'batch', resource: 'jobs' };
const CRONJOBS = { apiGroup: 'batch', resource: 'cronjobs' };

/**
 * A new password each time: the engine creates the credentials Secret only when it is missing
 * and never updates it (it is create-only), so the first one generated is the one that stays.
 * 24 random bytes are 32 characters of base64url.
 */
const newPassword = () => randomBytes(24).toString('base64url');

function outcomeOf(job: JobJson | undefined): JobOutcome | undefined {
  const holds = (type: string) => job?.status?.conditions?.some((c) => c.type === type && c.status === 'True');
  return holds('Complete') ? 'Succeeded' : holds('Failed') ? 'Failed' : undefined;
}

/**
 * Whether the primary may be waiting for Secret `<name>-tls` (see DatabaseObservation.tls):
 * it does not mount it yet, or is not ready (the Secret may have been deleted). The engine
 * creates that Secret when it is missing and ignores the render otherwise, and making it
 * costs milliseconds, so it is made only then and while the Database is deleted.
 */
function primaryMayWait(db: Database, names: DatabaseChildNames, primary: StatefulSetJson | undefined): boolean {
  const mounts = db.spec.tls !== 'Required' || (primary?.spec?.template?.spec?.volumes?.some((volume) => volume.secret?.secretName === names.tls) ?? false);
  return !mounts || !(primary?.status?.readyReplicas ?? 0);
}

/** Every name clients may reach the servers by: each Service short, in its namespace and fully, and each pod by the headless Service. */
function serverDnsNames(names: DatabaseChildNames, namespace: string): string[] {
  const forms = (host: string) => [host, `${host}.${namespace}`, `${host}.${namespace}.svc`, `${host}.${namespace}.svc.cluster.local`];
  return [...forms(names.service), ...forms(names.readonlyService), ...forms(names.headless), `*.${names.headless}.${namespace}.svc`, `*.${names.headless}.${namespace}.svc.cluster.local`];
}

/** The Database's children as they are, from the engine's child caches: no GET or LIST per reconcile. */
async function observe(caches: CacheReader, db: Database): Promise<DatabaseObservation> {
  const names = databaseChildNames(db.metadata.name);
  const key = (name: string) => `${db.metadata.namespace}/${name}`;
  const primary = caches.get(STATEFULSETS, key(names.statefulSet)) as StatefulSetJson | undefined;
  const standbys = caches.get(STATEFULSETS, key(names.standbyStatefulSet)) as StatefulSetJson | undefined;
  const job = (name: string) => outcomeOf(caches.get(JOBS, key(name)) as JobJson | undefined);
  const wanted = parsePostgresImage(db.spec.image);
  const deleting = db.metadata.deletionTimestamp !== undefined;
  const lastBackupTime = (caches.get(CRONJOBS, key(names.backup))?.status as { lastSuccessfulTime?: string } | undefined)?.lastSuccessfulTime;
  return {
    password: newPassword(),
    replicationPassword: newPassword(),
    // Only the init Job reads Secret <name>-app: rendering it after that (a GET each reconcile) would buy nothing.
    ...(deleting || primaryMayWait(db, names, primary) || job(names.init) !== 'Succeeded' ? { appPassword: newPassword() } : {}),
    ...(db.spec.tls === 'Required' && (deleting || primaryMayWait(db, names, primary))
      ? { tls: await newDatabaseTls({ dns: serverDnsNames(names, db.metadata.namespace ?? ''), superuser: DATABASE_USER, database: `${db.metadata.namespace}/${db.metadata.name}` }) }
      : {}),
    currentImage: primary?.spec?.template?.spec?.containers?.find((c) => c.name === 'postgres')?.image,
    readyReplicas: primary ? (primary.status?.readyReplicas ?? 0) + (standbys?.status?.readyReplicas ?? 0) : undefined,
    upgrade: wanted ? job(names.upgrade(wanted)) : undefined,
    snapshot: job(names.snapshot),
    deleting,
    ...(lastBackupTime ? { lastBackupTime } : {}),
  };
}

export const databaseController: KindController<DatabaseSpec, DatabaseStatus, DatabaseObservation> = {
  observer:
    ({ caches }) =>
    async (db) =>
      observe(caches, db),
  sampleObservation: sampleDatabase,
  status: (db, observation) => {
    const { phase } = databasePhase(db.spec, observation);
    return {
      phase,
      readyReplicas: observation?.readyReplicas ?? 0,
      ...(observation?.currentImage ? { currentImage: observation.currentImage } : {}),
      ...(observation?.lastBackupTime ? { lastBackupTime: observation.lastBackupTime } : {}),
    };
  },
  // The plan knows more than the children's readiness (held upgrades, a failed snapshot); once
  // it says Ready, the engine still waits for every child (the init Job among them).
  ready: (db, observation) => {
    const { phase, reason, message } = databasePhase(db.spec, observation);
    return phase === 'Ready' ? undefined : { status: 'False', reason, message };
  },
  // Phases Held and Failed: the image change is refused, or the final snapshot failed.
  failureReasons: [...HELD_REASONS, 'SnapshotFailed'],
  // The phases on the way to Ready (see databasePhase).
  progressReasons: ['Creating', 'ReplicasNotReady', 'Upgrading', 'Rolling', 'Deleting'],
  readyReason: 'Ready',
  mayRelease: (db, observation) => {
    if (finalizerMayBeReleased(db.spec, observation)) return true;
    return observation?.snapshot === 'Failed' ? 'the final snapshot Job, which failed: fix the cause or set deletionPolicy: Delete' : 'the final snapshot Job to succeed';
  },
  keptUntilRelease: keptUntilSnapshot,
};
