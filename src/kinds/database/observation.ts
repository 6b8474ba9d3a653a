import { DatabaseTlsMaterial } from './tls';

/** How a Job the controller watches ended; absent while it runs or before it exists. */
export type JobOutcome = 'Succeeded' | 'Failed';

/**
 * What the controller observes in the cluster for one Database before it renders the
 * children. Every field is optional: without an observation (a synth preview) the children
 * are rendered as for a Database that does not exist yet, minus the credentials Secret.
 */
export interface DatabaseObservation {
  /**
   * A password for the credentials Secret `<name>-credentials`: the observer generates a new
   * one (at least 32 random characters) on every reconcile and never reads the Secret. The
   * Secret is create-only, so the engine creates it with the first password when it is
   * missing and never applies a later one: the password that stays is the first. Without it
   * no Secret is rendered: the construct never invents a password.
   */
  readonly password?: string;
  /**
   * The replication role's password (key `replication-password` of the same Secret),
   * generated the same way; the Secret is rendered only when both are given.
   */
  readonly replicationPassword?: string;
  /**
   * The owner role's password (Secret `<name>-app`), generated the same way; only while the
   * init Job, which reads it, has not succeeded or may run again (as for `tls`), and during a deletion.
   */
  readonly appPassword?: string;
  /**
   * The Database's own CA and certificates for Secret `<name>-tls`, also create-only. Making
   * them takes milliseconds, so the observer makes them only while the Secret may be needed:
   * while the primary is not ready or does not mount it yet, and during a deletion (whose last
   * render names the Secret for removal). Secrets are never pruned, so a render without it
   * leaves it in place.
   */
  readonly tls?: DatabaseTlsMaterial;
  /** The image the primary StatefulSet's postgres container runs now; absent before that StatefulSet exists. */
  readonly currentImage?: string;
  /** How the upgrade Job for spec.image (`<name>-upgrade-<tag>`) ended; the StatefulSet rolls only after it succeeded. */
  readonly upgrade?: JobOutcome;
  /** The Database has a deletionTimestamp: the finalizer's last step (the snapshot, with deletionPolicy Snapshot) is due. */
  readonly deleting?: boolean;
  /** How the final snapshot Job (`<name>-snapshot`) ended; the finalizer is released only after it succeeded. */
  readonly snapshot?: JobOutcome;
  /** Ready pods of both StatefulSets (the primary's plus the standbys' status.readyReplicas), for status.readyReplicas and the phase; rendering ignores it. */
  readonly readyReplicas?: number;
  /** The backup CronJob's status.lastSuccessfulTime, for status.lastBackupTime; rendering ignores it. */
  readonly lastBackupTime?: string;
}
