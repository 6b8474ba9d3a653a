import { childName, MAX_LABEL_LENGTH } from '../../engine/kind';
import { PostgresVersion } from './version';

/** Longer tags would leave too little of the owner's name in an upgrade Job's 63 characters. */
const MAX_TAG_IN_NAME = 24;

/**
 * A StatefulSet's pods carry `controller-revision-hash: <name>-<hash of up to 10 characters>`,
 * a label value of at most 63 characters, so its name must leave room for that.
 */
export const MAX_STATEFULSET_NAME_LENGTH = 52;
/** A CronJob's Jobs are named `<cronjob>-<minutes since the epoch>` and must fit in 63. */
export const MAX_CRONJOB_NAME_LENGTH = 52;
/** A Job's name becomes the `job-name` label of its pods: a label value. */
export const MAX_JOB_NAME_LENGTH = MAX_LABEL_LENGTH;

/** The names of a Database's children, all derived from the Database's own name. */
export interface DatabaseChildNames {
  /** Secret with the superuser's and the replication role's names and passwords. */
  readonly credentials: string;
  /** Secret clients log in with: the owner role `app`, its password and where to connect. */
  readonly app: string;
  /** Secret of the Database's own TLS: its CA (ca.crt), the servers' certificate, the Jobs' client certificate. */
  readonly tls: string;
  /** Service clients connect to. */
  readonly service: string;
  /** Headless Service that gives the pods their DNS names (the StatefulSet's serviceName). */
  readonly headless: string;
  /** Read-only Service to the hot standbys. */
  readonly readonlyService: string;
  /** StatefulSet of the primary (one pod). */
  readonly statefulSet: string;
  /** StatefulSet of the hot standbys (replicas - 1 pods), rendered only when replicas > 1. */
  readonly standbyStatefulSet: string;
  /** Job that creates the database. */
  readonly init: string;
  /** CronJob of the scheduled backups. */
  readonly backup: string;
  /** PersistentVolumeClaim the backups, the final snapshot and upgrade dumps go to. */
  readonly backupVolume: string;
  /** Job that takes the final snapshot on deletion. */
  readonly snapshot: string;
  /** NetworkPolicy of the server's pods. */
  readonly networkPolicy: string;
  /** NetworkPolicy of the Jobs' pods. */
  readonly jobsNetworkPolicy: string;
  /** Job that dumps everything before the StatefulSet rolls to the image of this version: `<name>-upgrade-<tag>`. */
  readonly upgrade: (version: PostgresVersion) => string;
}

/**
 * A tag as part of an object name (a DNS subdomain): tags may hold capitals and "_", and
 * "-" or "." next to a ".", which names may not. 17.2-alpine3.21 stays as it is.
 */
function tagInName(tag: string): string {
  return tag
    .toLowerCase()
    .replace(/[^a-z0-9.]+/g, '-')
    .replace(/[.-]*[.][.-]*/g, '.')
    .replace(/^[.-]+|[.-]+$/g, '');
}

export function databaseChildNames(owner: string): DatabaseChildNames {
  return {
    credentials: childName(owner, { suffix: '-credentials' }),
    app: childName(owner, { suffix: '-app' }),
    tls: childName(owner, { suffix: '-tls' }),
    service: childName(owner, { maxLength: MAX_LABEL_LENGTH }),
    headless: childName(owner, { suffix: '-headless', maxLength: MAX_LABEL_LENGTH }),
    readonlyService: childName(owner, { suffix: '-readonly', maxLength: MAX_LABEL_LENGTH }),
    statefulSet: childName(owner, { maxLength: MAX_STATEFULSET_NAME_LENGTH }),
    standbyStatefulSet: childName(owner, { suffix: '-standby', maxLength: MAX_STATEFULSET_NAME_LENGTH }),
    init: childName(owner, { suffix: '-init', maxLength: MAX_JOB_NAME_LENGTH }),
    backup: childName(owner, { suffix: '-backup', maxLength: MAX_CRONJOB_NAME_LENGTH }),
    backupVolume: childName(owner, { suffix: '-backup' }),
    snapshot: childName(owner, { suffix: '-snapshot', maxLength: MAX_JOB_NAME_LENGTH }),
    networkPolicy: childName(owner),
    jobsNetworkPolicy: childName(owner, { suffix: '-jobs' }),
    // A very long tag gives way to the version alone.
    upgrade: (version) => {
      const tag = tagInName(version.tag);
      return childName(owner, { suffix: `-upgrade-${tag.length <= MAX_TAG_IN_NAME ? tag : `${version.major}.${version.minor}`}`, maxLength: MAX_JOB_NAME_LENGTH });
    },
  };
}
