import { k8s } from 'cdk8s-plus-27';
import { OWNER_KIND_LABEL, OWNER_NAME_LABEL } from '../../engine/kind';

/**
 * The server runs as the official image's own `postgres` user, uid and gid 999, not as a
 * uid >= 10000: PostgreSQL refuses to start unless the data directory belongs to the uid it
 * runs as (fsGroup changes only the group), so the uid is fixed by whoever initialised the
 * volume. Running as the image's user keeps the data volume usable by the image anywhere
 * else (a restored volume snapshot, `docker run postgres` on a copy), and the entrypoint
 * then needs no nss_wrapper fake passwd entry. Still non-root, read-only root filesystem,
 * no privilege escalation, no capabilities.
 */
export const POSTGRES_UID = 999;

/** The Jobs only run clients (psql, pg_dump) and write dumps, so they take an unprivileged uid of their own. */
export const JOB_UID = 10001;

/** The components whose pods are Jobs: they only ever talk to the database. */
export const JOB_COMPONENTS = ['init', 'backup', 'snapshot', 'upgrade'] as const;
export type JobComponent = (typeof JOB_COMPONENTS)[number];

/** Labels of the pods of one component of one Database; selectors use exactly these. */
export function podSelector(ownerLabels: Record<string, string>, component: string): Record<string, string> {
  const pick = (key: string) => (ownerLabels[key] !== undefined ? { [key]: ownerLabels[key] } : {});
  return { ...pick(OWNER_KIND_LABEL), ...pick(OWNER_NAME_LABEL), 'app.kubernetes.io/component': component };
}

/**
 * The label a pod needs for the Database's NetworkPolicy to admit it to PostgreSQL's port, its
 * value the Database's Service name (the Database's own name when that fits in a label value).
 * The Database's servers (standbys replicate from the primary) and Jobs carry it too.
 */
export const CLIENT_LABEL = 'databases.cdk8s-operators.io/client';

/** Every label a pod template carries: the owner's labels, what it runs, which component, and the client label of its Database (`service`). */
export function podLabels(ownerLabels: Record<string, string>, component: string, service: string): Record<string, string> {
  return { ...ownerLabels, 'app.kubernetes.io/name': 'postgres', 'app.kubernetes.io/component': component, [CLIENT_LABEL]: service };
}

export interface ResourceSizes {
  readonly cpu: string;
  readonly memory: string;
  readonly ephemeralStorage: string;
}

export function resources(requests: ResourceSizes, limits: ResourceSizes): k8s.ResourceRequirements {
  const quantities = (r: ResourceSizes) => ({
    cpu: k8s.Quantity.fromString(r.cpu),
    memory: k8s.Quantity.fromString(r.memory),
    'ephemeral-storage': k8s.Quantity.fromString(r.ephemeralStorage),
  });
  return { requests: quantities(requests), limits: quantities(limits) };
}

/** An environment variable taken from a key of a Secret: credentials are never literal values. */
export function secretEnv(name: string, secretName: string, key: string): k8s.EnvVar {
  return { name, valueFrom: { secretKeyRef: { name: secretName, key } } };
}

/** A writable scratch directory on a read-only root filesystem. */
export function scratchVolume(name: string, sizeLimit: string): k8s.Volume {
  return { name, emptyDir: { sizeLimit: k8s.Quantity.fromString(sizeLimit) } };
}
