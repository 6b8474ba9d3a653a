import { ApiObject, App, Chart, Yaml } from 'cdk8s';
import { k8s } from 'cdk8s-plus-27';
import { Construct } from 'constructs';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CustomResourceDefinitions } from './bundle/crd';
import { OperatorBundle } from './bundle/operator';
import { AnyKind } from './core/kind';
import { previewChildren } from './core/render';
import { KINDS } from './kinds';

/** Argo CD applies lower waves first: CRDs, then the operator, then the resources that need both. */
export const SYNC_WAVE = { crds: '-1', operator: '0', resources: '1' } as const;
/** Where the example resources live. */
export const EXAMPLES_NAMESPACE = 'operator-examples';

/** Sets annotations on every object of a chart. */
export function annotateAll(chart: Chart, annotations: Record<string, string>): void {
  for (const child of chart.node.findAll()) {
    if (child instanceof ApiObject) for (const [key, value] of Object.entries(annotations)) child.metadata.addAnnotation(key, value);
  }
}

function waveChart(app: App, id: string, wave: string, build: (chart: Construct) => void): Chart {
  const chart = new Chart(app, id, { disableResourceNameHashes: true });
  build(chart);
  annotateAll(chart, { 'argocd.argoproj.io/sync-wave': wave });
  return chart;
}

/** The examples, one per kind, as `cdk8s import`'s typed classes declare them. */
interface Example {
  readonly kind: AnyKind;
  readonly object: ApiObject;
}

function declareExamples(chart: Construct): Example[] {
  new k8s.KubeNamespace(chart, 'namespace', { metadata: { name: EXAMPLES_NAMESPACE } });
  return KINDS.filter((kind) => kind.example).map((kind) => ({ kind, object: kind.example!(chart, EXAMPLES_NAMESPACE) }));
}

/** The whole GitOps bundle, one chart (one file) per sync wave, in apply order, and the examples declared in it. */
export function buildApp(app: App): { charts: Chart[]; examples: Example[] } {
  let examples: Example[] = [];
  const charts = [
    waveChart(app, '0-crds', SYNC_WAVE.crds, (c) => new CustomResourceDefinitions(c, 'crds', { kinds: KINDS })),
    waveChart(app, '1-operator', SYNC_WAVE.operator, (c) => new OperatorBundle(c, 'operator', { kinds: KINDS, secretCopy: process.env.CDK8S_OPERATORS_SECRET_COPY === 'true' })),
    waveChart(app, '2-examples', SYNC_WAVE.resources, (c) => (examples = declareExamples(c))),
  ];
  for (const chart of charts.slice(2)) {
    // The resources are applied before the controller has seen their CRDs' discovery entries.
    annotateAll(chart, { 'argocd.argoproj.io/sync-options': 'SkipDryRunOnMissingResource=true' });
  }
  return { charts, examples };
}

/**
 * The children each example will get, rendered exactly as the controller renders them, for
 * reviewers: `<plural>-<name>.yaml` per example that has children.
 */
export function previews(examples: Example[]): Map<string, string> {
  const files = new Map<string, string>();
  for (const { kind, object } of examples) {
    const preview = previewChildren(kind, object.toJson());
    if (!preview.ok) throw new Error(`example ${preview.message}`);
    if (preview.children.length) files.set(`${kind.plural}-${object.name}.yaml`, Yaml.stringify(...preview.children));
  }
  return files;
}

/** Flux (and kustomize users) apply exactly these files, in this order; dist/preview/ is not among them. */
export function kustomization(charts: Chart[]): string {
  return Yaml.stringify({ apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization', resources: charts.map((c) => `${c.node.id}.k8s.yaml`) });
}

if (require.main === module) {
  const app = new App();
  const { charts, examples } = buildApp(app);
  app.synth();
  writeFileSync(join(app.outdir, 'kustomization.yaml'), kustomization(charts));
  mkdirSync(join(app.outdir, 'preview'), { recursive: true });
  for (const [file, yaml] of previews(examples)) writeFileSync(join(app.outdir, 'preview', file), yaml);
}
