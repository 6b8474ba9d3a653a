import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { KubeObject, ObjectClient } from '../../src/kube/objects';
import { withWebhookClientConfig } from '../../src/bundle/crd';
import { helmTemplate } from '../helm/helm';
import { runConversion } from './conversion';
import { repoRoot } from '../../src/testing/controlplane/controlplane';
import { applyCrd, testObjects } from '../../src/testing/objects';

// From the checkout's root, so that compiled programs in lib/ (the soak) find it too.
export const DIST = join(repoRoot(), 'dist');
export { FIELD_MANAGER, testObjects } from '../../src/testing/objects';

/** Every object in a multi-document YAML file. */
export function loadYaml(path: string): KubeObject[] {
  return parseAllDocuments(readFileSync(path, 'utf8'))
    .map((doc) => doc.toJS() as KubeObject | null)
    .filter((o): o is KubeObject => o !== null);
}

/** A template of dist/helm/ as the real `helm template` renders it with the chart's default values, or with `valueArgs`. */
export function loadHelmTemplate(path: string, ...valueArgs: string[]): KubeObject[] {
  return helmTemplate('--show-only', relative(join(DIST, 'helm'), path), ...valueArgs);
}

/** A CRD converting by webhook pointed at the run's conversion webhook on loopback (see test/support/conversion.ts); any other object as it is. */
export function toRunConversion<T extends { kind?: unknown }>(manifest: T): T {
  const conversion = runConversion();
  if (!conversion) return manifest;
  return withWebhookClientConfig(manifest, conversion);
}

/** Installs the synthesized CRDs, converting through the run's webhook, and waits until each is Established. */
export async function installCrds(objects: ObjectClient = testObjects()): Promise<void> {
  for (const crd of loadYaml(join(DIST, '0-crds.k8s.yaml')).map(toRunConversion)) await applyCrd(objects, crd);
}
