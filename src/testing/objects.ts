import { KubeRest } from '../engine/client';
import { KubeObject, ObjectClient } from '../kube/objects';
import { eventually, testKubeConfig } from './cluster';

export type { KubeObject };

/** The field manager of what a test writes itself, apart from the controller's. */
export const FIELD_MANAGER = 'cdk8s-operators-tests';

/** An unstructured client for the cluster under test: objects go on the wire as written. */
export function testObjects(): ObjectClient {
  return new ObjectClient(new KubeRest(testKubeConfig()), FIELD_MANAGER);
}

type CrdStatus = { status?: { conditions?: { type: string; status: string }[] } };
type CrdSpec = { spec: { group: string; names: { plural: string }; versions: { name: string; served: boolean }[] } };

/**
 * Applies a CRD and waits until the API server serves it: Established, and each served version
 * in discovery (which follows a moment later). A custom resource written before then is refused,
 * its group version not yet found.
 */
export async function applyCrd(objects: ObjectClient, crd: KubeObject): Promise<void> {
  await objects.apply(crd);
  await eventually(`CRD ${crd.metadata.name} to be Established`, async () => {
    const live = await objects.get<KubeObject & CrdStatus>(crd);
    return live.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') ? true : undefined;
  });
  const { group, names, versions } = (crd as unknown as CrdSpec).spec;
  for (const version of versions.filter((v) => v.served)) {
    await eventually(`${names.plural}.${group}/${version.name} to be in discovery`, async () => {
      const listed = await objects.rest.request<{ resources: { name: string }[] }>('GET', `/apis/${group}/${version.name}`).catch(() => undefined);
      return listed?.resources.some((r) => r.name === names.plural) ? true : undefined;
    });
  }
}
