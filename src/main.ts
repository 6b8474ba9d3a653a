import { ApiObject, App, Chart, Yaml } from 'cdk8s';
import { Construct } from 'constructs';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { CustomResourceDefinitions } from './bundle/crd';
import { OperatorBundle } from './bundle/operator';
import { projectVersion } from './core/version';
import { AnyKind } from './core/kind';
import { argoCdHealthPatch } from './gitops/argocd-health';
import { writeHelmChart } from './gitops/helm/chart';
import { OperatorVariant } from './gitops/helm/operator-template';
import { BuiltInObject, checkDeclared, Instance, instanceName, InstancesError, loadInstances, scratchChart } from './gitops/instances';
import { KINDS } from './kinds';
import { MONITORING_DIR, monitoringFiles, monitoringObjects } from './monitoring/manifests';
import { BUILT_IN_KINDS } from './render-command';

/**
 * Argo CD applies lower waves first: CRDs, then the operator and the namespaces and ConfigMaps
 * the team's resources need, then the resources that need all of them.
 */
export const SYNC_WAVE = { crds: '-1', operator: '0', builtIns: '0', resources: '1' } as const;
/**
 * A Namespace removed from Git is left in the cluster by Argo CD and Flux: pruning it would
 * delete everything in it, what Git never held too (a Database's volumes, Secrets made by hand).
 */
export const KEEP_NAMESPACE = { 'argocd.argoproj.io/sync-options': 'Prune=false', 'kustomize.toolkit.fluxcd.io/prune': 'disabled' } as const;
/** Where the example resources live. */
export const EXAMPLES_NAMESPACE = 'operator-examples';
/** The project root (this file is lib/src/main.js once built). */
export const ROOT = resolve(__dirname, '..', '..');
/** Argo CD's health checks of every kind, a patch of its argocd-cm ConfigMap (not in kustomization.yaml: it is Argo CD's, not the cluster's). */
export const ARGOCD_HEALTH_FILE = join('argocd', 'argocd-cm-health.yaml');
/** Where a team declares its own resources, unless CDK8S_OPERATORS_INSTANCES says otherwise. */
export const DEFAULT_INSTANCES_DIR = join(ROOT, 'src', 'instances');

function annotate(object: ApiObject, annotations: Record<string, string>): void {
  for (const [key, value] of Object.entries(annotations)) object.metadata.addAnnotation(key, value);
}

/** Sets annotations on every object of a chart. */
export function annotateAll(chart: Chart, annotations: Record<string, string>): void {
  for (const child of chart.node.findAll()) if (child instanceof ApiObject) annotate(child, annotations);
}

function waveChart(app: App, id: string, wave: string, build: (chart: Construct) => void): Chart {
  const chart = new Chart(app, id, { disableResourceNameHashes: true });
  build(chart);
  annotateAll(chart, { 'argocd.argoproj.io/sync-wave': wave });
  return chart;
}

/** The built-in examples, one per kind, as `cdk8s import`'s typed classes declare them, checked like a team's own. */
export function exampleInstances(kinds: readonly AnyKind[]): Instance[] {
  const scope = scratchChart();
  return checkDeclared(
    kinds.filter((kind) => kind.example).map((kind) => ({ object: kind.example!(scope, EXAMPLES_NAMESPACE), where: `the example of ${kind.kind}` })),
    kinds,
  ).instances;
}

/** How the team's resources are applied: after their CRDs and the operator, and without Argo CD's dry-run, which runs before the CRDs exist. */
const RESOURCE_ANNOTATIONS = { 'argocd.argoproj.io/sync-wave': SYNC_WAVE.resources, 'argocd.argoproj.io/sync-options': 'SkipDryRunOnMissingResource=true' };

/**
 * Checked resources as they were declared, after the Namespaces and ConfigMaps they need (the
 * Namespaces first, so that even a plain `kubectl apply -f` of the file finds them).
 */
function resourcesChart(app: App, id: string, instances: readonly Instance[], builtIns: readonly BuiltInObject[]): Chart {
  const chart = new Chart(app, id, { disableResourceNameHashes: true });
  const namespacesFirst = [...builtIns.filter((b) => b.kind.kind === 'Namespace'), ...builtIns.filter((b) => b.kind.kind !== 'Namespace')];
  namespacesFirst.forEach(({ kind, object }, index) => {
    const builtIn = new ApiObject(chart, `built-in-${index}`, object);
    annotate(builtIn, { 'argocd.argoproj.io/sync-wave': SYNC_WAVE.builtIns, ...(kind.kind === 'Namespace' ? KEEP_NAMESPACE : {}) });
  });
  // Not bare numbers: constructs keep children in an object, which puts integer keys before all others.
  instances.forEach(({ object }, index) => annotate(new ApiObject(chart, `resource-${index}`, object), RESOURCE_ANNOTATIONS));
  return chart;
}

/** The namespace the examples go into, declared as a team declares its own. */
function examplesNamespace(): BuiltInObject {
  const kind = BUILT_IN_KINDS.find((k) => k.kind === 'Namespace')!;
  return { kind, object: { apiVersion: kind.apiVersion, kind: kind.kind, metadata: { name: EXAMPLES_NAMESPACE } }, where: 'the examples' };
}

export interface AppOptions {
  /** The team's resources, checked (see loadInstances). */
  readonly instances: readonly Instance[];
  /** The Namespaces and ConfigMaps declared beside them, checked; default none. */
  readonly builtIns?: readonly BuiltInObject[];
  /** The built-in examples, when asked for. */
  readonly examples?: readonly Instance[];
  /** Grant the controller Secret access and run it with --enable-secrets (CopyratorRule ruleType secret). */
  readonly secretCopy?: boolean;
  /** Put the team's resources and the examples into the Helm chart's templates too. */
  readonly helmInstances?: boolean;
  /** Where the alerts' runbook links point (synth's --runbook-url); default docs/monitoring.md in this repository. */
  readonly runbookUrl?: string;
}

/** The operator's wave: dist/1-operator.k8s.yaml, and (one variant per set of values) the Helm chart's template of it. */
export function operatorChart(app: App, variant: OperatorVariant): Chart {
  return waveChart(app, '1-operator', SYNC_WAVE.operator, (c) => new OperatorBundle(c, 'operator', { kinds: variant.kinds, secretCopy: variant.secretCopy, ui: variant.ui ? undefined : false }));
}

/**
 * The whole GitOps bundle, one chart (one file) per sync wave, in apply order: CRDs, the
 * operator, the team's resources with their Namespaces and ConfigMaps (when there are any),
 * the examples (when asked for).
 */
export function buildApp(app: App, options: AppOptions): Chart[] {
  const charts = [
    waveChart(app, '0-crds', SYNC_WAVE.crds, (c) => new CustomResourceDefinitions(c, 'crds', { kinds: KINDS })),
    operatorChart(app, { kinds: KINDS, secretCopy: options.secretCopy ?? false, ui: true }),
  ];
  const builtIns = options.builtIns ?? [];
  if (options.instances.length || builtIns.length) charts.push(resourcesChart(app, '2-instances', options.instances, builtIns));
  if (options.examples?.length) charts.push(resourcesChart(app, '3-examples', options.examples, [examplesNamespace()]));
  return charts;
}

/**
 * The children each resource will get, rendered exactly as the controller renders them, for
 * reviewers: `<namespace>/<plural>.<name>.yaml` (`_cluster/` for cluster-scoped resources,
 * a name no namespace can have) per resource that has children.
 */
export function previews(instances: readonly Instance[]): Map<string, string> {
  const files = new Map<string, string>();
  for (const { kind, object, children } of instances) {
    if (children.length) files.set(`${object.metadata.namespace ?? '_cluster'}/${kind.plural}.${object.metadata.name}.yaml`, Yaml.stringify(...children));
  }
  return files;
}

/** Flux (and kustomize users) apply exactly these files, in this order; dist/preview/ is not among them. */
export function kustomization(charts: Chart[]): string {
  return Yaml.stringify({ apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization', resources: charts.map((c) => `${c.node.id}.k8s.yaml`) });
}

/** What to synthesize, from the environment scripts/synth.sh sets from its flags. */
export function loadFromEnvironment(env: Record<string, string | undefined>): AppOptions {
  const dir = env.CDK8S_OPERATORS_INSTANCES ? resolve(env.CDK8S_OPERATORS_INSTANCES) : DEFAULT_INSTANCES_DIR;
  // No src/instances/ yet means no resources yet; a folder asked for by name must exist.
  const { instances, builtIns } = dir === DEFAULT_INSTANCES_DIR && !existsSync(dir) ? { instances: [], builtIns: [] } : loadInstances({ dir, root: ROOT, kinds: KINDS });
  const examples = env.CDK8S_OPERATORS_EXAMPLES === 'true' ? exampleInstances(KINDS) : [];
  const clashes = examples.flatMap((example) => {
    const clash = instances.find((i) => i.kind === example.kind && instanceName(i.kind, i.object) === instanceName(example.kind, example.object));
    return clash ? [`${clash.where}: ${instanceName(clash.kind, clash.object)} is declared twice: here and in ${example.where}`] : [];
  });
  if (clashes.length) throw new InstancesError(clashes);
  return { instances, builtIns, examples, secretCopy: env.CDK8S_OPERATORS_SECRET_COPY === 'true', helmInstances: env.CDK8S_OPERATORS_HELM_INSTANCES === 'true', runbookUrl: env.CDK8S_OPERATORS_RUNBOOK_URL || undefined };
}

function synthesize(options: AppOptions): void {
  const app = new App();
  const charts = buildApp(app, options);
  app.synth();
  writeFileSync(join(app.outdir, 'kustomization.yaml'), kustomization(charts));
  mkdirSync(join(app.outdir, dirname(ARGOCD_HEALTH_FILE)), { recursive: true });
  writeFileSync(join(app.outdir, ARGOCD_HEALTH_FILE), argoCdHealthPatch(KINDS));
  // Alerts, dashboard and ServiceMonitor: an optional part, like argocd/ (docs/monitoring.md).
  mkdirSync(join(app.outdir, MONITORING_DIR), { recursive: true });
  for (const [file, text] of monitoringFiles(KINDS, options.runbookUrl)) writeFileSync(join(app.outdir, MONITORING_DIR, file), text);
  const [crds, , ...resources] = charts;
  writeHelmChart(join(app.outdir, 'helm'), {
    version: projectVersion(),
    kinds: KINDS,
    crds,
    operator: operatorChart,
    secretCopy: options.secretCopy ?? false,
    resources: options.helmInstances ? resources : [],
    monitoring: monitoringObjects(KINDS, options.runbookUrl),
  });
  for (const [file, yaml] of previews([...options.instances, ...(options.examples ?? [])])) {
    const path = join(app.outdir, 'preview', file);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, yaml);
  }
}

if (require.main === module) {
  try {
    const options = loadFromEnvironment(process.env);
    // --check: scripts/synth.sh asks first, so that a bad resource stops it before cdk8s empties the output folder.
    if (process.argv.includes('--check')) console.log(`${options.instances.length} resources declared, ${options.examples?.length ?? 0} examples, all valid`);
    else synthesize(options);
  } catch (err) {
    if (!(err instanceof InstancesError)) throw err;
    for (const problem of err.problems) console.error(`synth: ${problem}`);
    process.exit(1);
  }
}
