import { Construct } from 'constructs';
import { DatabaseSpec } from './api';
import { databaseChildNames } from './childnames';
import { DatabaseAppSecret } from './app-secret';
import { DatabaseCredentials } from './credentials';
import { DatabaseTlsSecret } from './tls-secret';
import { BackupVolume, DatabaseBackup, DatabaseInitJob, DatabaseSnapshotJob, DatabaseUpgradeJob } from './jobs';
import { DatabaseObservation } from './observation';
import { needsBackupVolume, planImage, planMode } from './plan';
import { DatabaseNetworkPolicies } from './network';
import { DatabaseServer } from './server';

export interface DatabaseChildrenProps {
  /** metadata.name of the Database; every child's name is derived from it. */
  readonly ownerName: string;
  /** metadata.namespace of the Database: the `-app` Secret's host is `<service>.<namespace>.svc`. */
  readonly namespace?: string;
  /** The validated, defaulted spec. */
  readonly spec: DatabaseSpec;
  /** What the controller observed. Default: nothing (a synth preview of a Database that does not exist yet). */
  readonly observation?: DatabaseObservation;
  /** The labels that tie children to the Database (childLabels()); pod templates carry them and selectors use them. Default: none. */
  readonly ownerLabels?: Record<string, string>;
}

/**
 * Everything a Database runs on, for the state the observation describes:
 * - serving: credentials, `-app` and `-tls` Secrets (only with the observed passwords and certificates), Services, the primary's
 *   StatefulSet and (replicas > 1) the standbys', NetworkPolicies, init Job, backup volume and
 *   CronJob, and an upgrade Job while one is due;
 * - deleting with deletionPolicy Snapshot: the servers stay up for the final snapshot Job,
 *   nothing else runs (no new backups, no upgrade) until the snapshot succeeded;
 * - deleting otherwise, or once the snapshot succeeded: only the Secrets, for the
 *   controller to remove by name with the other children kept until the release (kept.ts);
 *   the garbage collector takes the rest, and the backup volume stays (it has no owner).
 */
export class DatabaseChildren extends Construct {
  constructor(scope: Construct, id: string, props: DatabaseChildrenProps) {
    super(scope, id);
    const { spec, observation = {}, ownerLabels } = props;
    const mode = planMode(spec, observation);
    const names = databaseChildNames(props.ownerName);

    // A synth preview has no password: the Secret is the controller's to create, once, with a
    // password it generates; rendering one here would publish (or invent) the secret. Released,
    // it is still rendered: it has no owner (kept.ts), and the engine removes by name what the
    // last render names, just before it releases the finalizer.
    const { password, replicationPassword, appPassword, tls } = observation;
    if (password !== undefined && replicationPassword !== undefined) new DatabaseCredentials(this, 'credentials', { name: names.credentials, password, replicationPassword });
    if (appPassword !== undefined && props.namespace !== undefined) {
      const host = `${names.service}.${props.namespace}.svc`;
      new DatabaseAppSecret(this, 'app', { name: names.app, password: appPassword, host, port: spec.port, dbname: spec.name, tls: spec.tls });
    }
    if (tls !== undefined && spec.tls === 'Required') new DatabaseTlsSecret(this, 'tls', { name: names.tls, material: tls });
    if (mode === 'released') return;

    const image = planImage(spec, observation);
    const common = { names, spec, ownerLabels, image: image.run };
    new DatabaseServer(this, 'server', common);
    new DatabaseNetworkPolicies(this, 'network', common);

    if (mode === 'snapshot') {
      new BackupVolume(this, 'backup-volume', { name: names.backupVolume, size: spec.storageSize });
      new DatabaseSnapshotJob(this, 'snapshot', common);
      return;
    }

    new DatabaseInitJob(this, 'init', common);
    if (needsBackupVolume(spec, image)) new BackupVolume(this, 'backup-volume', { name: names.backupVolume, size: spec.storageSize });
    if (spec.backup) new DatabaseBackup(this, 'backup', { ...common, backup: spec.backup });
    // Rendered until the StatefulSet runs the new image, so the Job stays visible while it rolls.
    if (image.upgrade) new DatabaseUpgradeJob(this, 'upgrade', { ...common, image: spec.image, ...image.upgrade });
  }
}
