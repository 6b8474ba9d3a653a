import { AnyKind } from '../../src/core/contract/kind';
import { KubeObject, ObjectClient } from '../../src/kube/objects';
import { KubeRest } from '../../src/kube/rest';
import { ControlPlaneState } from '../../src/testing/controlplane/controlplane';
import { eventually } from '../../src/testing/cluster';
import { applyCrd } from '../../src/testing/objects';

/** Helpers of the storage migration tests: a kind's first release, and where an object is stored. */

/** The kind as its first release declared it: v1 alone, its layout the one v1 has now. */
export function firstRelease(kind: AnyKind): AnyKind {
  const v1 = kind.olderVersions![0];
  return { ...kind, version: v1.name, spec: v1.spec, olderVersions: [] };
}

/** A control plane's etcd (its API server's --etcd-servers), or undefined for one the tests did not start. */
export function etcdOf(state: ControlPlaneState | undefined): string | undefined {
  const arg = state?.processes.find((p) => p.name === 'kube-apiserver')?.args.find((a) => a.startsWith('--etcd-servers='));
  return arg?.slice('--etcd-servers='.length).split(',')[0];
}

/** The apiVersion an object is stored in, read from etcd itself: custom resources are stored as JSON. */
export async function storedApiVersion(etcd: string, kind: AnyKind, namespace: string, name: string): Promise<string> {
  const key = Buffer.from(`/registry/${kind.group}/${kind.plural}/${namespace}/${name}`).toString('base64');
  const response = await fetch(`${etcd}/v3/kv/range`, { method: 'POST', body: JSON.stringify({ key }) });
  const { kvs } = (await response.json()) as { kvs?: { value: string }[] };
  if (!kvs?.length) throw new Error(`no key for ${namespace}/${name} in etcd`);
  return (JSON.parse(Buffer.from(kvs[0].value, 'base64').toString('utf8')) as { apiVersion: string }).apiVersion;
}

/** Applies a CRD and waits until it is Established and each of `servedVersions` is served. */
export async function installServedCrd(objects: ObjectClient, rest: KubeRest, crd: KubeObject & { spec: Record<string, unknown> }, servedVersions: readonly string[]): Promise<void> {
  await applyCrd(objects, crd);
  const group = crd.spec.group as string;
  const plural = (crd.spec.names as { plural: string }).plural;
  for (const version of servedVersions) await eventually(`${plural}.${group}/${version} to be served`, () => rest.request('GET', `/apis/${group}/${version}/${plural}`, { query: { limit: '1' } }));
}
