import { join } from 'node:path';
import { KubeObject, ObjectClient } from '../../src/kube/objects';
import { withWebhookClientConfig } from '../../src/bundle/crd';
import { runConversion } from './conversion';
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
  /** Where CRDs that convert by webhook reach it on a local control plane. @default the test run's webhook (test/support/conversion.ts), when there is one */
  readonly webhook?: { readonly url: string; readonly caBundle?: string };
}

/**
 * A synthesized bundle as Flux's kustomize-controller or an Argo CD sync applies it: file by
 * file in kustomization order, server-side, each file's CRDs Established before the next file's
 * resources need them. Returns what was applied.
 */
export async function applyBundle(objects: ObjectClient, dir: string, options: ApplyBundleOptions = {}): Promise<KubeObject[]> {
  const applied: KubeObject[] = [];
  for (const file of bundleFiles(dir)) applied.push(...(await applyInOrder(objects, loadYaml(join(dir, file)), options)));
  return applied;
}

/**
 * Objects applied one by one in the order given (as `kubectl apply` takes a built
 * kustomization), server-side; the CRDs applied so far are Established before the next object
 * that is not a CRD, which may be of their kinds. Returns what the API server answered.
 */
export async function applyInOrder(objects: ObjectClient, manifests: readonly KubeObject[], options: ApplyBundleOptions = {}): Promise<KubeObject[]> {
  const applied: KubeObject[] = [];
  const unestablished: KubeObject[] = [];
  const webhook = options.webhook ?? runConversion();
  for (const listed of manifests.filter((o) => !options.skip?.(o))) {
    const manifest = webhook ? withWebhookClientConfig(listed, webhook) : listed;
    const isCrd = manifest.kind === 'CustomResourceDefinition';
    if (!isCrd) for (const crd of unestablished.splice(0)) await waitEstablished(objects, crd, options.timeoutMs ?? 60_000);
    applied.push(await applyOnceConverting(objects, manifest, options.timeoutMs ?? 60_000));
    if (isCrd) unestablished.push(manifest);
  }
  for (const crd of unestablished) await waitEstablished(objects, crd, options.timeoutMs ?? 60_000);
  return applied;
}

/**
 * Applies the manifest, trying again while the API server cannot reach the conversion webhook
 * yet (an older version's object applied with the operator that converts it), as Flux and Argo
 * CD retry a sync; any other refusal fails at once.
 */
async function applyOnceConverting(objects: ObjectClient, manifest: KubeObject, timeoutMs: number): Promise<KubeObject> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await objects.apply(manifest);
    } catch (err) {
      if (!/conversion webhook for .* failed/.test((err as Error).message) || Date.now() > deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
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
