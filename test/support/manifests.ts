import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { KubeObject, ObjectClient } from '../../src/kube/objects';
import { KubeRest } from '../../src/kube/rest';
import { eventually, testKubeConfig } from './cluster';

export const DIST = join(__dirname, '..', '..', 'dist');
export const FIELD_MANAGER = 'cdk8s-operators-tests';

/** An unstructured client for the cluster under test: objects go on the wire as written. */
export function testObjects(): ObjectClient {
  return new ObjectClient(new KubeRest(testKubeConfig()), FIELD_MANAGER);
}

/** Every object in a multi-document YAML file. */
export function loadYaml(path: string): KubeObject[] {
  return parseAllDocuments(readFileSync(path, 'utf8'))
    .map((doc) => doc.toJS() as KubeObject | null)
    .filter((o): o is KubeObject => o !== null);
}

/**
 * A template of dist/helm/ with the chart's default values filled in, as `helm template`
 * would: the chart templates only `{{ .Values.<path> }}`, optionally `| default .Chart.AppVersion`.
 */
export function loadHelmTemplate(path: string): KubeObject[] {
  const chart = join(DIST, 'helm');
  const values = parse(readFileSync(join(chart, 'values.yaml'), 'utf8')) as Record<string, unknown>;
  const appVersion = String((parse(readFileSync(join(chart, 'Chart.yaml'), 'utf8')) as { appVersion: string }).appVersion);
  const text = readFileSync(path, 'utf8').replace(/\{\{ \.Values\.([\w.]+)( \| default \.Chart\.AppVersion)? \}\}/g, (_, key: string, orAppVersion?: string) => {
    const value = key.split('.').reduce<unknown>((v, k) => (v as Record<string, unknown> | undefined)?.[k], values);
    if (value === undefined) throw new Error(`${path}: .Values.${key} is not in the chart's values.yaml`);
    return value === '' && orAppVersion ? appVersion : String(value);
  });
  if (text.includes('{{')) throw new Error(`${path}: a template expression this test helper does not render: ${text.slice(text.indexOf('{{'), text.indexOf('{{') + 80)}`);
  return parseAllDocuments(text)
    .map((doc) => doc.toJS() as KubeObject | null)
    .filter((o): o is KubeObject => o !== null);
}

/** Installs the synthesized CRDs and waits until each is Established. */
export async function installCrds(objects: ObjectClient = testObjects()): Promise<void> {
  const crds = loadYaml(join(DIST, '0-crds.k8s.yaml'));
  for (const crd of crds) await objects.apply(crd);
  for (const crd of crds) {
    await eventually(`CRD ${crd.metadata.name} to be Established`, async () => {
      const current = await objects.get<KubeObject & { status?: { conditions?: { type: string; status: string }[] } }>(crd);
      return current.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') ? current : undefined;
    });
  }
}
