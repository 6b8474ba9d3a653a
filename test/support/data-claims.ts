import * as k8s from '@kubernetes/client-node';
import { Json } from './database-objects';

export const jobHolds = (j: Json | undefined, type: string) => j?.status?.conditions?.some((c: { type: string; status: string }) => c.type === type && c.status === 'True') === true;

/**
 * Records, from a watch, every data claim of the named Databases in `ns` that is deleted or
 * marked for deletion while no snapshot Job of that Database has been seen Complete: the one
 * thing a Database must never let happen. `snapshotDone` names the Databases whose snapshot Job
 * was seen Complete.
 */
export async function watchDataClaims(kc: k8s.KubeConfig, ns: string, names: readonly string[]): Promise<{ early: string[]; snapshotDone: ReadonlySet<string>; stop(): void }> {
  const snapshotDone = new Set<string>();
  const early: string[] = [];
  const watch = new k8s.Watch(kc);
  const jobs = await watch.watch(`/apis/batch/v1/namespaces/${ns}/jobs`, {}, (_type, j: Json) => {
    const owner = names.find((n) => j.metadata.name === `${n}-snapshot`);
    if (owner && jobHolds(j, 'Complete')) snapshotDone.add(owner);
  }, () => undefined);
  const claims = await watch.watch(`/api/v1/namespaces/${ns}/persistentvolumeclaims`, {}, (type, c: Json) => {
    const owner = names.find((n) => c.metadata.name.startsWith(`data-${n}-`));
    if (owner && (type === 'DELETED' || c.metadata.deletionTimestamp) && !snapshotDone.has(owner)) early.push(`${c.metadata.name} (${type})`);
  }, () => undefined);
  return { early, snapshotDone, stop: () => [jobs, claims].forEach((a) => a.abort()) };
}
