import { App, Chart, Testing } from 'cdk8s';
import { CustomResourceDefinitions } from '../../src/bundle/crd';
import { OperatorBundle } from '../../src/bundle/operator';
import { webhookServiceConfig } from '../../src/bundle/deployment';
import { AnyKind } from '../../src/core/contract/kind';
import { helmChart, HelmChartInput } from '../../src/gitops/helm/chart';
import { OperatorVariant, variantBundleProps } from '../../src/engine/helm';
import { TEST_OPERATOR } from '../../src/testing/test-operator';

/** A synthesized object, read loosely. */
export type Manifest = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The test operator's chart builder, as a scaffolded operator writes it: the variant's kinds bring their companions. */
export function testOperatorChart(app: App, variant: OperatorVariant): Chart {
  const chart = new Chart(app, '1-operator', { disableResourceNameHashes: true });
  new OperatorBundle(chart, 'operator', { operator: TEST_OPERATOR, ...variantBundleProps(variant) });
  return chart;
}

/** The test operator's bundle of these kinds, as dist/1-operator.k8s.yaml would hold it. */
export function testBundle(variant: OperatorVariant): Manifest[] {
  return testOperatorChart(Testing.app() as App, variant).toJson();
}

/** The test operator's Helm chart of these kinds, its files by path; synth's defaults unless `options` say otherwise. */
export function testHelmChart(kinds: readonly AnyKind[], image: string, options: Partial<HelmChartInput> = {}): Map<string, string> {
  const crds = (app: App) => {
    const chart = new Chart(app, '0-crds', { disableResourceNameHashes: true });
    new CustomResourceDefinitions(chart, 'crds', { kinds, webhook: webhookServiceConfig(TEST_OPERATOR.identity.namespace) });
    return chart;
  };
  return helmChart({ names: TEST_OPERATOR, version: '1.0.0', kinds, crds, operator: testOperatorChart, sharding: false, extraImages: [], withoutExtraGroups: [], webhookCertificates: 'self', installValues: {}, image, resources: [], ...options });
}

/** The message of the error `act` throws (failing when it throws none). */
export function thrown(act: () => unknown): string {
  try {
    act();
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('expected an error');
}
