import { CustomResource } from '../../engine/kind';
import { DatabaseSpec } from './api';
import { DatabaseObservation } from './observation';

/** When the sample's last backup ran: the previews have no clock, so a fixed time. */
const SAMPLE_BACKUP_TIME = '2025-01-02T03:00:00Z';

/**
 * A Database that runs as its spec says, for synth's previews: every replica ready on
 * spec.image, no upgrade due, not being deleted. It carries no password and no certificate, so
 * the previews have none of the Secrets (`-credentials`, `-app`, `-tls`): the controller makes
 * their values in the cluster, and previews are committed.
 */
export function sampleDatabase(db: CustomResource<DatabaseSpec>): DatabaseObservation {
  return {
    currentImage: db.spec.image,
    readyReplicas: db.spec.replicas,
    deleting: false,
    ...(db.spec.backup ? { lastBackupTime: SAMPLE_BACKUP_TIME } : {}),
  };
}
