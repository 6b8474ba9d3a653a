import { DatabaseSpec, Phase } from './api';
import { DatabaseObservation } from './observation';
import { compareVersions, PostgresVersion, readImageVersion } from './version';

/** Which image the StatefulSet runs, and whether an upgrade Job goes first. */
export interface ImagePlan {
  /** The image the StatefulSet runs. */
  readonly run: string;
  /** The upgrade Job to render: from the running image's version to spec.image's. */
  readonly upgrade?: { readonly from: PostgresVersion; readonly to: PostgresVersion };
  /** Why spec.image is not rolled out and will not be without a change by a person. */
  readonly held?: { readonly reason: HeldReason; readonly message: string };
}

/** Why an image change is held: each needs a person (set the image back, or restore into a new Database). */
export const HELD_REASONS = ['ImageNotComparable', 'LibcChange', 'Downgrade', 'MajorUpgrade', 'UpgradeFailed'] as const;
export type HeldReason = (typeof HELD_REASONS)[number];

/**
 * The image decision. The StatefulSet keeps the running image until the upgrade Job (a
 * full dump with the new version's pg_dumpall) succeeded. What no Job can make safe is held:
 * a downgrade, a new major version (PostgreSQL cannot open an older major's data directory;
 * that takes pg_upgrade with both versions' binaries, which no official image has), and a
 * change between glibc and musl images (text sorts differently, so indexes would be wrong).
 */
export function planImage(spec: DatabaseSpec, observation: DatabaseObservation = {}): ImagePlan {
  const wanted = spec.image;
  const running = observation.currentImage;
  if (!running || running === wanted) return { run: wanted };
  // Without both versions nothing says whether the change is an upgrade, a downgrade or a
  // new major; only a person can tell, so the running image stays.
  const notComparable = (why: string): ImagePlan => ({
    run: running,
    held: {
      reason: 'ImageNotComparable',
      message: `${why}, so the change from ${running} to ${wanted} cannot be judged safe and is held; set image back to ${running}, or restore a dump into a new Database with image ${wanted}`,
    },
  });
  const to = readImageVersion(wanted);
  const from = readImageVersion(running);
  if ('unreadable' in to) return notComparable(to.unreadable);
  if ('unreadable' in from) return notComparable(from.unreadable);
  if (to.repository !== from.repository) return notComparable(`${wanted} is another image (${to.repository}) than the running ${running} (${from.repository})`);
  if (to.libc !== from.libc) {
    return {
      run: running,
      held: { reason: 'LibcChange', message: `${wanted} is built on ${to.libc} and the running ${running} on ${from.libc}: text indexes would sort wrongly; restore a dump into a new Database instead` },
    };
  }
  const order = compareVersions(to, from);
  if (order < 0) return { run: running, held: { reason: 'Downgrade', message: `${wanted} is older than the running ${running}; downgrades are refused` } };
  if (order === 0) return { run: wanted };
  const upgrade = { from, to };
  if (to.major !== from.major) {
    return {
      run: running,
      upgrade,
      held: {
        reason: 'MajorUpgrade',
        message: `PostgreSQL ${to.major} cannot open the data directory of ${from.major}; the upgrade Job dumps every database into the backup volume (upgrade/), restore that into a new Database with image ${wanted}`,
      },
    };
  }
  if (observation.upgrade === 'Failed') return { run: running, upgrade, held: { reason: 'UpgradeFailed', message: `the upgrade Job to ${wanted} failed; its logs say why` } };
  return { run: observation.upgrade === 'Succeeded' ? wanted : running, upgrade };
}

/** What the Database renders: its server and Jobs, the final snapshot, or nothing left. */
export type Mode = 'serve' | 'snapshot' | 'released';

export function planMode(spec: DatabaseSpec, observation: DatabaseObservation = {}): Mode {
  if (!observation.deleting) return 'serve';
  if (spec.deletionPolicy === 'Delete' || observation.snapshot === 'Succeeded') return 'released';
  return 'snapshot';
}

/** Whether the controller may remove its finalizer from a Database being deleted. */
export function finalizerMayBeReleased(spec: DatabaseSpec, observation: DatabaseObservation = {}): boolean {
  return observation.deleting === true && planMode(spec, observation) === 'released';
}

/** Whether anything writes to the backup volume: scheduled backups, the final snapshot, an upgrade dump. */
export function needsBackupVolume(spec: DatabaseSpec, image: ImagePlan): boolean {
  return spec.backup !== undefined || spec.deletionPolicy === 'Snapshot' || image.upgrade !== undefined;
}

export interface PhaseReport {
  readonly phase: Phase;
  /** A CamelCase reason for the Ready condition. */
  readonly reason: string;
  readonly message: string;
}

/** The phase and Ready reason for status, from the same plan the children are rendered from. */
export function databasePhase(spec: DatabaseSpec, observation: DatabaseObservation = {}): PhaseReport {
  if (observation.deleting) {
    if (observation.snapshot === 'Failed') {
      return {
        phase: 'Failed',
        reason: 'SnapshotFailed',
        message: 'the final snapshot Job failed, so the data is kept and the finalizer stays; fix the cause, or set deletionPolicy: Delete to delete without a snapshot',
      };
    }
    return { phase: 'Deleting', reason: 'Deleting', message: planMode(spec, observation) === 'snapshot' ? 'taking the final snapshot' : 'removing the database' };
  }
  const image = planImage(spec, observation);
  if (image.held) return { phase: 'Held', ...image.held };
  if (image.run !== spec.image) return { phase: 'Upgrading', reason: 'Upgrading', message: `dumping every database before the StatefulSet rolls to ${spec.image}` };
  if (observation.currentImage && observation.currentImage !== image.run) return { phase: 'Upgrading', reason: 'Rolling', message: `rolling the StatefulSet to ${image.run}` };
  const ready = observation.readyReplicas ?? 0;
  if (ready >= spec.replicas) return { phase: 'Ready', reason: 'Ready', message: `${ready} of ${spec.replicas} replicas ready` };
  if (!observation.currentImage) return { phase: 'Creating', reason: 'Creating', message: 'creating the StatefulSet' };
  return { phase: 'NotReady', reason: 'ReplicasNotReady', message: `${ready} of ${spec.replicas} replicas ready` };
}
