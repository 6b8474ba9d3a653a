import { ApiObject, App, Chart, Yaml } from 'cdk8s';
import { Construct } from 'constructs';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import {
  argoCdHealthPatch, BUILT_IN_KINDS, BuiltInObject, checkDeclared, checkNamespaceNames,
  checkWithoutExtraGroups, controllerImage, ControllerPolicy, convertObject, crdChangesMarkdown,
  crdName, CustomResourceDefinitions, guardCrds, IMAGE_DIGEST_PATTERN, injectCaFrom,
  installOptions, Instance, optInsTurnedOn, instanceName, isExtraIdentity, loadInstances, MONITORING_DIR, monitoringFiles,
  monitoringObjects, namespacedKinds, OperatorBundle, previewNotes, projectVersion,
  sampledHeader, scratchChart, WebhookCertificates, webhookServiceConfig,
} from './engine/synth';
import { OperatorVariant, variantBundleProps, writeHelmChart } from './engine/helm';
import { PRODUCT_IDENTITY, PRODUCT_NAMES } from './product';
import { UserError } from './engine/operator';
import { AnyKind } from './engine/kind';
import { KINDS } from './kinds';
import { environmentOf, synthOptions } from './synth-options';

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
/** The project root (this file is lib/src/app.js once built). */
export const ROOT = resolve(__dirname, '..', '..');
/** Argo CD's health checks of every kind, a patch of its argocd-cm ConfigMap (not in kustomization.yaml: it is Argo CD's, not the cluster's). */
export const ARGOCD_HEALTH_FILE = join('argocd', 'argocd-cm-health.yaml');
/** The CRDs' release notes: each kind's declared breaks with their reasons (written only when a kind declares one). */
export const CRD_CHANGES_FILE = 'CHANGES-crds.md';
/** Where a team declares its own resources, unless CDK8S_OPERATORS_INSTANCES says otherwise. */
export const DEFAULT_INSTANCES_DIR = join(ROOT, 'src', 'instances');

function annotate(object: ApiObject, annotations: Record<string, string>): void {
  for (const [key, value] of Object.entries(annotations)) object.metadata.addAnnotation(key, value);
}

/** Sets annotations on every object of a chart (or of any construct). */
export function annotateAll(chart: Construct, annotations: Record<string, string>): void {
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
    [],
    { withSample: true },
  ).instances;
}

/** How the team's resources are applied: after their CRDs and the operator, and without Argo CD's dry-run, which runs before the CRDs exist. */
const RESOURCE_ANNOTATIONS = { 'argocd.argoproj.io/sync-wave': SYNC_WAVE.resources, 'argocd.argoproj.io/sync-options': 'SkipDryRunOnMissingResource=true' };

/**
 * A resource in the version its CRD stores, converted as the controller's conversion webhook
 * converts it (the same code). Applying it then needs no webhook: the first sync of dist/ does
 * not wait for the controller it installs, whatever version the team wrote (docs/install.md).
 */
function storedVersion(kind: AnyKind, object: Instance['object']): Instance['object'] {
  return convertObject(kind, object, kind.version);
}

/**
 * Checked resources in the versions their CRDs store (as declared otherwise), after the Namespaces and ConfigMaps they need (the
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
  instances.forEach(({ kind, object }, index) => annotate(new ApiObject(chart, `resource-${index}`, storedVersion(kind, object)), RESOURCE_ANNOTATIONS));
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
  /** The kinds' opt-ins turned on, by name (synth's flags of them, e.g. --secret-copy): their access granted, their controller options passed; default none. */
  readonly optIns?: readonly string[];
  /** Run every controller replica active, each serving a share of the objects (--sharding), with its RBAC. */
  readonly sharding?: boolean;
  /** Image repositories the controller's admission policy admits beside the kinds' own (synth's --extra-images); default none. */
  readonly extraImages?: readonly string[];
  /** Put the team's resources and the examples into the Helm chart's templates too. */
  readonly helmInstances?: boolean;
  /** Extra groups of kinds to leave out (no CRD, no RBAC, not served), by CRD name; default none. */
  readonly withoutExtraGroups?: readonly string[];
  /** Where the alerts' runbook links point (synth's --runbook-url); default docs/monitoring.md in this repository. */
  readonly runbookUrl?: string;
  /** Who makes the conversion webhook's certificate (synth's --webhook-certificates); default the controller itself. */
  readonly webhookCertificates?: WebhookCertificates;
  /** The kinds' install options (e.g. --mirror-hosts), by option name; default none. */
  readonly installValues?: Readonly<Record<string, unknown>>;
  /** The namespaced install (synth's --watch-namespaces): the kinds that can be served so, in these namespaces only, with Roles there; default none (every namespace). */
  readonly watchNamespaces?: readonly string[];
  /** The released controller image's digest (synth's --controller-digest): the Deployments run `<repository>:<version>@<digest>`; default the tag alone. */
  readonly controllerDigest?: string;
}

/**
 * The operator's wave: dist/1-operator.k8s.yaml, and (one variant per set of values) the Helm
 * chart's template of it; the served kinds bring their companions (the Guitar its web UI).
 */
export function operatorChart(app: App, variant: OperatorVariant): Chart {
  const chart = waveChart(app, '1-operator', SYNC_WAVE.operator, (c) =>
    // Users keep view and edit on every kind, whose CRDs are all installed, whichever kinds the controller serves.
    new OperatorBundle(c, 'operator', {
      operator: PRODUCT_NAMES,
      userKinds: KINDS,
      ...variantBundleProps(variant),
    }),
  );
  // The fence goes up with the CRDs, a wave before the controller whose requests it judges (Argo CD applies kinds it does not know last in a wave).
  for (const policy of chart.node.findAll().filter((c) => c instanceof ControllerPolicy)) annotateAll(policy, { 'argocd.argoproj.io/sync-wave': SYNC_WAVE.crds });
  return chart;
}

/** The CRDs' wave: dist/0-crds.k8s.yaml, and (with every group) the Helm chart's template of it. */
export function crdsChart(app: App, withoutExtraGroups: readonly string[], webhookCertificates: WebhookCertificates = 'self'): Chart {
  return waveChart(app, '0-crds', SYNC_WAVE.crds, (c) =>
    // A kind with several versions converts through the controllers' webhook Service; a kind of one version ignores it.
    new CustomResourceDefinitions(c, 'crds', {
      kinds: KINDS,
      withoutExtraGroups,
      webhook: webhookServiceConfig(PRODUCT_IDENTITY.namespace),
      // cert-manager's cainjector fills caBundle from the webhook's Certificate.
      webhookAnnotations: webhookCertificates === 'cert-manager' ? injectCaFrom(PRODUCT_NAMES, PRODUCT_IDENTITY.namespace) : undefined,
    }),
  );
}

/**
 * The whole GitOps bundle, one chart (one file) per sync wave, in apply order: CRDs, the
 * operator, the team's resources with their Namespaces and ConfigMaps (when there are any),
 * the examples (when asked for).
 */
export function buildApp(app: App, options: AppOptions): Chart[] {
  const withoutExtraGroups = options.withoutExtraGroups ?? [];
  const webhookCertificates = options.webhookCertificates ?? 'self';
  const watchNamespaces = options.watchNamespaces ?? [];
  // Namespaced, the controller serves only the kinds that can be served so; every CRD is installed all the same.
  const kinds = watchNamespaces.length ? namespacedKinds(KINDS) : KINDS;
  const charts = [crdsChart(app, withoutExtraGroups, webhookCertificates), operatorChart(app, { kinds, watchNamespaces, optIns: options.optIns ?? [], withoutExtraGroups, webhookCertificates, sharding: options.sharding ?? false, installValues: options.installValues, extraImages: options.extraImages, image: controllerImage(PRODUCT_IDENTITY, options.controllerDigest) })];
  const builtIns = options.builtIns ?? [];
  if (options.instances.length || builtIns.length) charts.push(resourcesChart(app, '2-instances', options.instances, builtIns));
  if (options.examples?.length) charts.push(resourcesChart(app, '3-examples', options.examples, [examplesNamespace()]));
  return charts;
}

/**
 * The children each resource will get, rendered exactly as the controller renders them, for
 * reviewers: `<namespace>/<plural>.<name>.yaml` (`_cluster/` for cluster-scoped resources,
 * a name no namespace can have) per resource that has children; `<namespace>/<group>/...` for
 * a resource in an extra group of its kind.
 */
export function previews(instances: readonly Instance[]): Map<string, string> {
  const files = new Map<string, string>();
  for (const { kind, object, children, sampled } of instances) {
    // An extra group's resources in a folder named by the group: no namespace has a dot, and same-named resources in two groups get a file each.
    const folder = [object.metadata.namespace ?? '_cluster', ...(isExtraIdentity(kind) ? [kind.group] : [])].join('/');
    if (children.length) files.set(`${folder}/${kind.plural}.${object.metadata.name}.yaml`, `${sampled ? sampledHeader(kind.kind) : ''}${Yaml.stringify(...children)}`);
  }
  return files;
}

/**
 * Flux (and kustomize users) apply exactly these files, in this order; dist/preview/ is not among
 * them. In their objects' order too (fifo): kustomize's default sorts by kind and puts kinds it
 * does not know, such as the controller's admission policies, after the Deployment they fence.
 */
export function kustomization(charts: Chart[]): string {
  return Yaml.stringify({ apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization', resources: charts.map((c) => `${c.node.id}.k8s.yaml`), sortOptions: { order: 'fifo' } });
}

/** What to synthesize, from synth's options (see SYNTH_OPTIONS). */
export function loadFromEnvironment(env: Record<string, string | undefined>, argv: readonly string[] = []): AppOptions {
  const options = synthOptions(argv, env)!;
  const dir = options.instances ? resolve(options.instances as string) : DEFAULT_INSTANCES_DIR;
  // No src/instances/ yet means no resources yet; a folder asked for by name must exist.
  const { instances, builtIns } = dir === DEFAULT_INSTANCES_DIR && !existsSync(dir) ? { instances: [], builtIns: [] } : loadInstances({ dir, root: ROOT, kinds: KINDS, withSample: true });
  const examples = options.examples ? exampleInstances(KINDS) : [];
  const clashes = examples.flatMap((example) => {
    const clash = instances.find((i) => i.kind === example.kind && instanceName(i.kind, i.object) === instanceName(example.kind, example.object));
    return clash ? [`${clash.where}: ${instanceName(clash.kind, clash.object)} is declared twice: here and in ${example.where}`] : [];
  });
  if (clashes.length) throw new UserError(clashes);
  const withoutExtraGroups = (options['without-extra-groups'] as string[] | undefined) ?? [];
  try {
    checkWithoutExtraGroups(KINDS, withoutExtraGroups, '--without-extra-groups');
  } catch (err) {
    throw new UserError([(err as Error).message]);
  }
  const watchNamespaces = (options['watch-namespaces'] as string[] | undefined) ?? [];
  try {
    checkNamespaceNames(watchNamespaces, '--watch-namespaces');
  } catch (err) {
    throw new UserError([(err as Error).message]);
  }
  const controllerDigest = (options['controller-digest'] as string | undefined) || undefined;
  if (controllerDigest !== undefined && !new RegExp(IMAGE_DIGEST_PATTERN).test(controllerDigest)) {
    throw new UserError(`--controller-digest: expected sha256:<64 lowercase hex digits> (npm run image prints the digest), got '${controllerDigest}'`);
  }
  const leftOut = instances.filter((i) => withoutExtraGroups.includes(crdName(i.kind)));
  if (leftOut.length) throw new UserError(leftOut.map((i) => `${i.where}: ${instanceName(i.kind, i.object)} is in ${crdName(i.kind)}, which --without-extra-groups leaves out`));
  return {
    instances,
    builtIns,
    examples,
    optIns: optInsTurnedOn(KINDS, options),
    helmInstances: options['helm-instances'] as boolean,
    sharding: options.sharding as boolean,
    extraImages: (options['extra-images'] as string[] | undefined) ?? [],
    withoutExtraGroups,
    runbookUrl: (options['runbook-url'] as string | undefined) || undefined,
    webhookCertificates: options['webhook-certificates'] as WebhookCertificates,
    installValues: Object.fromEntries(installOptions(KINDS).map((spec) => [spec.name, options[spec.name]])),
    watchNamespaces,
    controllerDigest,
  };
}

function synthesize(options: AppOptions): void {
  const app = new App();
  const charts = buildApp(app, options);
  app.synth();
  writeFileSync(join(app.outdir, 'kustomization.yaml'), kustomization(charts));
  mkdirSync(join(app.outdir, dirname(ARGOCD_HEALTH_FILE)), { recursive: true });
  writeFileSync(join(app.outdir, ARGOCD_HEALTH_FILE), argoCdHealthPatch(KINDS, options.withoutExtraGroups));
  // Alerts, dashboard and ServiceMonitor: an optional part, like argocd/ (docs/monitoring.md).
  mkdirSync(join(app.outdir, MONITORING_DIR), { recursive: true });
  for (const [file, text] of monitoringFiles(KINDS, PRODUCT_NAMES, options.runbookUrl, options.webhookCertificates)) writeFileSync(join(app.outdir, MONITORING_DIR, file), text);
  const changes = crdChangesMarkdown(KINDS);
  if (changes) writeFileSync(join(app.outdir, CRD_CHANGES_FILE), changes);
  const [, , ...resources] = charts;
  writeHelmChart(join(app.outdir, 'helm'), {
    version: projectVersion(),
    kinds: KINDS,
    crds: crdsChart,
    operator: operatorChart,
    optIns: options.optIns ?? [],
    sharding: options.sharding ?? false,
    extraImages: options.extraImages ?? [],
    withoutExtraGroups: options.withoutExtraGroups ?? [],
    webhookCertificates: options.webhookCertificates ?? 'self',
    installValues: options.installValues ?? {},
    image: controllerImage(PRODUCT_IDENTITY, options.controllerDigest),
    names: PRODUCT_NAMES,
    resources: options.helmInstances ? resources : [],
    monitoring: monitoringObjects(KINDS, PRODUCT_NAMES, options.runbookUrl),
    docs: 'The project\'s docs/install.md (section "Install with Helm")',
  });
  for (const [file, yaml] of previews([...options.instances, ...(options.examples ?? [])])) {
    const path = join(app.outdir, 'preview', file);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, yaml);
  }
}

if (require.main === module) {
  const [first, ...rest] = process.argv.slice(2);
  const write = (text: string) => process.stdout.write(`${text}\n`);
  try {
    if (first === '--check') {
      // scripts/synth.sh asks first, so that a bad flag or resource stops it before cdk8s empties the output folder.
      const options = synthOptions(rest, process.env, write);
      if (options) {
        const app = loadFromEnvironment(process.env, rest);
        guardCrds(KINDS, app.withoutExtraGroups ?? [], options['crd-baseline'] as string, ROOT, (line) => process.stderr.write(`synth: ${line}\n`));
        for (const line of previewNotes([...app.instances, ...(app.examples ?? [])])) process.stderr.write(`synth: ${line}\n`);
        write(environmentOf(options));
      }
    } else synthesize(loadFromEnvironment(process.env));
  } catch (err) {
    if (!(err instanceof UserError)) throw err;
    for (const line of err.lines('synth')) process.stderr.write(`${line}\n`);
    process.exit(1);
  }
}
