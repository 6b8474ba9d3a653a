import { join } from 'node:path';
import { KubeObject, ObjectClient } from '../../src/kube/objects';
import { loadYaml } from './manifests';

type Condition = { type: string; status: string };

/** The files of a synthesized bundle in the order its kustomization.yaml lists them (the sync waves' order). */
export function bundleFiles(dir: string): string[] {
  return (loadYaml(join(dir, 'kustomization.yaml'))[0] as unknown as { resources: string[] }).resources;
}

export interface ApplyBundleOptions {
  /** Objects to leave out (e.g. the Deployments, when the controller runs from source instead). */
  readonly skip?: (object: KubeObject) => boolean;
  /** How long a CRD may take to become Established. */
  readonly timeoutMs?: number;
}

/**
 * A synthesized bundle as Flux's kustomize-controller or an Argo CD sync applies it: file by
 * file in kustomization order, server-side, each file's CRDs Established before the next file's
 * resources need them. Returns what was applied.
 */
export async function applyBundle(objects: ObjectClient, dir: string, options: ApplyBundleOptions = {}): Promise<KubeObject[]> {
  const applied: KubeObject[] = [];
  for (const file of bundleFiles(dir)) {
    const manifests = loadYaml(join(dir, file)).filter((o) => !options.skip?.(o));
    for (const manifest of manifests) applied.push(await objects.apply(manifest));
    for (const crd of manifests.filter((m) => m.kind === 'CustomResourceDefinition')) await waitEstablished(objects, crd, options.timeoutMs ?? 60_000);
  }
  return applied;
}

async function waitEstablished(objects: ObjectClient, crd: KubeObject, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const current = await objects.get<KubeObject & { status?: { conditions?: Condition[] } }>(crd);
    if (current.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')) return;
    if (Date.now() > deadline) throw new Error(`CRD ${crd.metadata.name} was not Established after ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
