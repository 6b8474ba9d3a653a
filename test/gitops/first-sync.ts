import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments, stringify } from 'yaml';
import { KubeObject, ObjectClient } from '../../src/kube/objects';
import { bundleFiles } from '../support/apply-bundle';
import { ControllerOnRollout } from '../support/controller-on-rollout';
import { LocalCluster } from '../support/operator-cluster';
import { whenReady } from '../support/resources';
import { kstatus } from './tools';

/** `Kind namespace/name`, as the tests name objects. */
export const objectName = (o: KubeObject) => `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`;

/**
 * dist/ as a team's cluster sees it, copied to `dir/dist`: every file its kustomization lists,
 * unchanged but for where the CRDs reach the conversion webhook, which on this machine is the
 * controller's loopback address (`cluster.localCrds`) rather than its Service. Returns the folder.
 */
export function localDist(dist: string, dir: string, cluster: Pick<LocalCluster, 'localCrds'>): string {
  const out = join(dir, 'dist');
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'kustomization.yaml'), readFileSync(join(dist, 'kustomization.yaml')));
  for (const file of bundleFiles(dist)) {
    const objects = parseAllDocuments(readFileSync(join(dist, file), 'utf8'))
      .map((doc) => doc.toJS() as KubeObject | null)
      .filter((o): o is KubeObject => o !== null);
    writeFileSync(join(out, file), cluster.localCrds(objects).map((o) => stringify(o)).join('---\n'));
  }
  return out;
}

type Live = KubeObject & { metadata: { resourceVersion?: string } };

/** Every object that kstatus (Flux's health, `kubectl wait`) does not call Current, with its status and message. */
export async function notCurrent(objects: ObjectClient, manifests: readonly KubeObject[]): Promise<string[]> {
  const live = await Promise.all(manifests.map((m) => objects.get<Live>(m)));
  return kstatus(live).flatMap((judgement, i) => (judgement.status === 'Current' ? [] : [`${objectName(manifests[i])}: ${judgement.status ?? judgement.error} ${judgement.message ?? ''}`]));
}

/** The custom resources among `manifests`: those of a kind whose CRD is among them too (the team's resources). */
export function customResources(manifests: readonly KubeObject[]): KubeObject[] {
  const kinds = new Set(manifests.filter((o) => o.kind === 'CustomResourceDefinition').map((crd) => (crd as { spec?: { names?: { kind?: string } } }).spec?.names?.kind));
  return manifests.filter((o) => kinds.has(o.kind));
}

/**
 * Waits until every object of `manifests` is healthy: each custom resource Ready=True for its
 * current generation (its controller's word, with the reason in the log when it is not), then
 * every object Current by kstatus. Throws naming those that are not.
 */
export async function expectHealthy(objects: ObjectClient, manifests: readonly KubeObject[], controllerLog: string, timeoutMs = 240_000): Promise<void> {
  const team = customResources(manifests);
  if (!team.length) throw new Error('no custom resource among the manifests');
  await Promise.all(team.map((o) => whenReady(objects, o, 'True', undefined, controllerLog, timeoutMs)));
  const unhealthy = await notCurrent(objects, manifests);
  if (unhealthy.length) throw new Error(`not Current by kstatus:\n${unhealthy.join('\n')}`);
}

type Created = KubeObject & { metadata: { creationTimestamp: string } };

/**
 * What of `manifests` was created only after `startedAt` (Date.now() when the controller started),
 * by the API server's creationTimestamp (whole seconds, so "after" means a later second).
 */
export async function createdAfter(objects: ObjectClient, manifests: readonly KubeObject[], startedAt: number): Promise<string[]> {
  const live = await Promise.all(manifests.map((m) => objects.get<Created>(m)));
  return live.filter((o) => Date.parse(o.metadata.creationTimestamp) > startedAt).map(objectName);
}

/**
 * What should have existed when the controller started and did not: the Pod it runs as, its
 * Deployment, and the admission policies that fence its requests (their bindings too).
 */
export async function lateForTheController(objects: ObjectClient, manifests: readonly KubeObject[], controller: ControllerOnRollout): Promise<string[]> {
  const { pod } = await controller.started;
  const namespace = 'cdk8s-operators';
  const first = manifests.filter((o) => o.kind.startsWith('ValidatingAdmissionPolicy') || (o.kind === 'Deployment' && o.metadata.namespace === namespace && o.metadata.name === 'controller'));
  if (first.length < 2) throw new Error('no controller Deployment or admission policy among the manifests');
  return createdAfter(objects, [...first, { apiVersion: 'v1', kind: 'Pod', metadata: { namespace, name: pod } }], controller.startedAt()!);
}
