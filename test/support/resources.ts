import { KubeObject, ObjectClient } from '../../src/kube/objects';
import { isNotFound } from '../../src/kube/rest';
import { eventually } from '../../src/testing/cluster';

export type Condition = { type: string; status: string; reason: string; message: string };
export type Status = { conditions?: Condition[]; observedGeneration?: number; [key: string]: unknown };
export type Resource = KubeObject & { spec?: Record<string, unknown>; status?: Status };
type Ref = Pick<KubeObject, 'apiVersion' | 'kind' | 'metadata'>;

export const readyOf = (o: Resource): Condition | undefined => o.status?.conditions?.find((c) => c.type === 'Ready');

/** Waits until the object's Ready condition has `status` (and `reason`) for its current generation. */
export function whenReady(objects: ObjectClient, o: Ref, status: 'True' | 'False', reason?: string, logFile?: string, timeoutMs?: number): Promise<Resource> {
  const what = `${o.kind} ${o.metadata.name} Ready=${status}${reason ? ` (${reason})` : ''}${logFile ? `; controller log: ${logFile}` : ''}`;
  return eventually(
    what,
    async () => {
      const current = await objects.get<Resource>(o);
      const condition = readyOf(current);
      return condition?.status === status && (!reason || condition.reason === reason) && current.status?.observedGeneration === current.metadata.generation ? current : undefined;
    },
    timeoutMs,
  );
}

/** Whether the object no longer exists. */
export function gone(objects: ObjectClient, o: Ref): Promise<boolean> {
  return objects.get(o).then(
    () => false,
    (err) => (isNotFound(err) ? true : Promise.reject(err)),
  );
}

export type EventJson = { reason: string; type: string; note: string; regarding: { name: string; kind: string } };

/** The events.k8s.io Events of one namespace. */
export async function eventsIn(objects: ObjectClient, namespace: string): Promise<EventJson[]> {
  return (await objects.rest.request<{ items: EventJson[] }>('GET', `/apis/events.k8s.io/v1/namespaces/${namespace}/events`)).items;
}

/** Deletes an object with the propagation policy given, as `kubectl delete --cascade=foreground|background` does. */
export async function deleteWithPropagation(objects: ObjectClient, o: Ref, propagationPolicy: 'Foreground' | 'Background'): Promise<void> {
  await objects.rest.request('DELETE', await objects.discovery.objectPath(o), { body: { propagationPolicy } });
}
