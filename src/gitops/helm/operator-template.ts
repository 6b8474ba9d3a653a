import { ApiObject, App, Chart, JsonPatch, Yaml } from 'cdk8s';
import { isDeepStrictEqual } from 'node:util';
import { ControllerDeployment, INGRESS_RULE } from '../../bundle/deployment';
import { METRICS_NAMESPACE_LABEL } from '../../core/install/metrics-endpoint';
import { extraGroupNames } from '../../core/groups';
import { AnyKind, KubeJson } from '../../core/contract/kind';
import { HelmExpressions } from './expressions';
import { ChartValues } from './values';
import { KindOptIn, kindOptIns } from '../../core/contract/opt-ins';
import { installOptions, OptionSpec } from '../../core/contract/options';
import { ChartCompanion, chartCompanions, companionPlurals, kindsServed } from './companion';
import { ControllerPolicy, IMAGES_VARIABLE } from '../../bundle/controller-policy';
import { WebhookCertificates } from '../../core/install/webhook';
import { imageParts } from '../../bundle/version';

/** The controller image from the values: repository:tag, and @digest when one is set (then the runtime pulls by digest). */
export const IMAGE_EXPRESSION = '{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}{{ with .Values.image.digest }}@{{ . }}{{ end }}';

/** The options the chart's values switch, as the bundle's constructs take them. */
export interface OperatorVariant {
  readonly kinds: readonly AnyKind[];
  /** The kinds' opt-ins turned on, by name (see KindOptIn). @default none */
  readonly optIns?: readonly string[];
  /** The chart's companions left out, by key (`<key>.enabled` false). @default none */
  readonly withoutCompanions?: readonly string[];
  /** A companion's options in one of its modes, by key. @default each its defaults */
  readonly companionOptions?: Readonly<Record<string, unknown>>;
  /** Extra groups of the kinds left out, by CRD name. */
  readonly withoutExtraGroups?: readonly string[];
  /** Who makes the conversion webhook's certificate. @default 'self' */
  readonly webhookCertificates?: WebhookCertificates;
  /** Every replica active (--sharding), with its RBAC. */
  readonly sharding?: boolean;
  /** The values of the kinds' install options, by option name (see OptionSpec.installValue). */
  readonly installValues?: Readonly<Record<string, unknown>>;
  /** Image repositories the controller's admission policy admits beside the kinds' own. */
  readonly extraImages?: readonly string[];
  /** The namespaced install: these namespaces only, with Roles there (synth's --watch-namespaces; the Helm chart has no such variant). */
  readonly watchNamespaces?: readonly string[];
  /** The controller image. @default the project's, by tag */
  readonly image?: string;
}

/** Synthesizes the operator's chart (as dist/1-operator.k8s.yaml has it) for one variant, in a new App. */
export type OperatorChartBuilder = (app: App, variant: OperatorVariant) => Chart;

type Manifest = KubeJson & {
  spec?: { replicas?: number; template?: { spec?: { containers?: { name: string; image: string; imagePullPolicy: string; args: string[]; resources: ChartValues['resources'] }[] } } };
};

const identity = (m: Manifest) => `${m.apiVersion}/${m.kind}/${m.metadata.namespace ?? ''}/${m.metadata.name}`;

interface Section {
  /** The condition in `{{- if ... }}`; empty for always. */
  readonly condition: string;
  readonly body: string;
}

/** `{{- if <all of them> }}` around documents, one block for neighbours under the same condition. */
function guarded(sections: readonly Section[]): string {
  const merged: Section[] = [];
  for (const s of sections) {
    const last = merged.at(-1);
    if (last && last.condition === s.condition) merged[merged.length - 1] = { condition: s.condition, body: last.body + s.body };
    else merged.push(s);
  }
  return merged.map(({ condition, body }) => (condition ? `{{- if ${condition} }}\n${body}{{- end }}\n` : body)).join('');
}

/** A kind's install value as the chart holds it: a list stays a list (empty for none), a boolean a boolean, a string a string. */
function installDefault(spec: OptionSpec, value: unknown): unknown {
  if (spec.type === 'list') return Array.isArray(value) ? [...(value as string[])] : [];
  if (spec.type === 'boolean') return value === true;
  return value === undefined ? '' : String(value);
}

/** The Deployment's flag for a kind's install value, when it is set. */
function installFlag(spec: OptionSpec): string[] {
  const value = `.Values.${spec.installValue}`;
  if (spec.type === 'boolean') return [`{{- if ${value} }}`, `- --${spec.name}`, '{{- end }}'];
  const text = spec.type === 'list' ? '{{ join "," . }}' : '{{ . }}';
  return [`{{- with ${value} }}`, `- --${spec.name}=${text}`, '{{- end }}'];
}

const all = (conditions: readonly string[]) => (conditions.length > 1 ? `and ${conditions.map((c) => `(${c})`).join(' ')}` : (conditions[0] ?? ''));

/** Every non-empty combination of these, the largest first (so that the first `if` matching is the most specific). */
function combinations<T>(items: readonly T[]): T[][] {
  return items
    .reduce<T[][]>((found, item) => [...found, ...found.map((c) => [...c, item])], [[]])
    .filter((c) => c.length)
    .sort((a, b) => b.length - a.length);
}

/**
 * templates/1-operator.k8s.yaml and the defaults of values.yaml, from the bundle's own
 * constructs. The image, replicas, resources and the controller's flags become expressions
 * in both Deployments (JSON patches on the objects of their constructs). Which objects
 * belong to a kind, to a kind's opt-in or to a companion is found by synthesizing the bundle
 * without it: an object only some variants have is guarded by the values that select it.
 */
export function operatorTemplate(
  build: OperatorChartBuilder,
  kinds: readonly AnyKind[],
  synthOptions: {
    /** The opt-ins synth turned on, by name: the defaults of their values. @default none */
    readonly optIns?: readonly string[];
    readonly sharding: boolean;
    readonly extraImages: readonly string[];
    readonly withoutExtraGroups: readonly string[];
    readonly webhookCertificates: WebhookCertificates;
    readonly installValues?: Readonly<Record<string, unknown>>;
    readonly image: string;
    /** Companions the app lists itself, beside the kinds' own: the builder adds them (variantBundleProps), the chart switches them by their values. @default none */
    readonly companions?: readonly ChartCompanion[];
  },
  appVersion: string,
): { template: string; defaults: ChartValues } {
  const companions = chartCompanions(kinds, synthOptions.companions);
  const optIns = kindOptIns(kinds);
  const synth = (variant: Partial<OperatorVariant>, patches?: (chart: Chart, manifests: readonly Manifest[]) => Map<string, JsonPatch[]>): Manifest[] => {
    const chart = build(new App(), { kinds, image: synthOptions.image, ...variant });
    const manifests = chart.toJson() as Manifest[];
    // On the JSON, not with addJsonPatch: the typed classes would turn a string where they expect an object into {}.
    const byObject = patches?.(chart, manifests) ?? new Map<string, JsonPatch[]>();
    return manifests.map((m) => JsonPatch.apply(m, ...(byObject.get(identity(m)) ?? [])) as Manifest);
  };

  const plain = synth({});
  const controller = plain.find((m) => m.kind === 'Deployment' && m.spec?.template?.spec?.containers?.[0]?.name === 'controller')?.spec;
  const container = controller?.template?.spec?.containers?.[0];
  if (!controller || !container || controller.replicas === undefined) throw new Error('helm: the bundle has no controller Deployment with replicas');
  const { repository, tag, digest } = imageParts(container.image);
  const defaults: ChartValues = {
    image: { repository, tag: '', digest, pullPolicy: container.imagePullPolicy },
    replicas: controller.replicas,
    resources: container.resources,
    optIns: Object.fromEntries(optIns.map((optIn) => [optIn.helmValue, synthOptions.optIns?.includes(optIn.name) ?? false])),
    sharding: synthOptions.sharding,
    extraImages: [...synthOptions.extraImages],
    withoutExtraGroups: [...synthOptions.withoutExtraGroups],
    webhookCertificates: synthOptions.webhookCertificates,
    kinds: [],
    watchNamespaces: [],
    companions: Object.fromEntries(companions.map((c) => [c.key, { enabled: true, ...c.defaults }])),
    monitoring: { enabled: false },
    metrics: { secure: true, namespaceSelector: { matchLabels: { ...METRICS_NAMESPACE_LABEL } } },
    webhook: { from: [] },
    install: Object.fromEntries(installOptions(kinds).map((spec) => [spec.installValue!, installDefault(spec, synthOptions.installValues?.[spec.name])])),
  };
  // The chart's default tag is its appVersion.
  if (tag !== appVersion) throw new Error(`helm: the controller image is ${container.image}, expected the tag ${appVersion}`);

  const helm = new HelmExpressions();
  const image = helm.value(`"${IMAGE_EXPRESSION}"`);
  const pullPolicy = helm.value('{{ .Values.image.pullPolicy }}');
  const replicas = helm.value('{{ .Values.replicas }}');
  const resources = helm.yamlOf('resources');
  // The flags the values add; the others are the bundle's, as its variant with every opt-in off has them.
  const flags = helm.listItems([
    ...optIns.flatMap((optIn) => [`{{- if .Values.${optIn.helmValue} }}`, `- --${optIn.controllerOption}`, '{{- end }}']),
    '{{- with .Values.kinds }}',
    '- --kinds={{ join "," . }}',
    '{{- end }}',
    '{{- with .Values.watchNamespaces }}',
    '- --namespace={{ join "," . }}',
    '{{- end }}',
    '{{- if .Values.sharding }}',
    '- --sharding',
    '{{- end }}',
    '{{- with .Values.withoutExtraGroups }}',
    '- --without-extra-groups={{ join "," . }}',
    '{{- end }}',
    '{{- if eq .Values.webhookCertificates "cert-manager" }}',
    '- --webhook-certificates=cert-manager',
    '{{- end }}',
    // The same CA signs the metrics Service's certificate, which only an HTTPS /metrics serves.
    '{{- if and (eq .Values.webhookCertificates "cert-manager") .Values.metrics.secure }}',
    '- --metrics-certificates=cert-manager',
    '{{- end }}',
    '{{- if not .Values.metrics.secure }}',
    '- --metrics-secure=false',
    '{{- end }}',
    ...installOptions(kinds).flatMap(installFlag),
  ]);
  const metricsFrom = helm.yamlOf('metrics.namespaceSelector');
  // The webhook's rule as the bundle has it (every peer), or with the peers the values name.
  const webhookRule = (rule: { ports: unknown[] }) =>
    helm.listItems((indent) => {
      const ports = Yaml.stringify({ ports: rule.ports }).trimEnd().split('\n');
      return [
        '{{- if .Values.webhook.from }}',
        `- from: {{- toYaml .Values.webhook.from | nindent ${indent.length + 4} }}`,
        ...ports.map((line) => `  ${line}`),
        '{{- else }}',
        ...ports.map((line, i) => `${i === 0 ? '- ' : '  '}${line}`),
        '{{- end }}',
      ];
    });
  const first = '/spec/template/spec/containers/0';
  const modes = companions.flatMap((companion) => companion.modes(helm).map((mode) => ({ ...mode, companion })));
  // Made once, so that each synth's objects hold the same markers and variants compare equal.
  const byCompanion = companions.flatMap((companion) => (companion.valuePatches ? [companion.valuePatches(helm)] : []));
  // The kinds' images and the value's, as a CEL list (JSON's list of strings is one); one marker per list, so that variants compare equal.
  const imageLists = new Map<string, string>();
  const policyImages = (kindImages: readonly string[]) => {
    const list = kindImages.map((i) => JSON.stringify(i)).join(' ');
    if (!imageLists.has(list)) imageLists.set(list, helm.value(`{{ concat (list ${list}) .Values.extraImages | toJson | quote }}`));
    return imageLists.get(list)!;
  };
  const fromValues = (chart: Chart, manifests: readonly Manifest[]) => {
    const patches = new Map<string, JsonPatch[]>();
    const deployment = (construct: ControllerDeployment) => identity(ApiObject.of(construct.node.findChild('deployment')).toJson() as Manifest);
    for (const construct of chart.node.findAll()) {
      if (construct instanceof ControllerDeployment) {
        patches.set(deployment(construct), [
          JsonPatch.replace('/spec/replicas', replicas),
          JsonPatch.replace(`${first}/image`, image),
          JsonPatch.replace(`${first}/imagePullPolicy`, pullPolicy),
          JsonPatch.replace(`${first}/resources`, resources),
          JsonPatch.replace(`${first}/args`, [...container.args, flags]),
        ]);
        const policy = ApiObject.of(construct.node.findChild('network-policy')).toJson() as Manifest & { spec: { ingress: { ports: unknown[] }[] } };
        const webhook = policy.spec.ingress[INGRESS_RULE.webhook];
        patches.set(identity(policy), [
          JsonPatch.replace(`/spec/ingress/${INGRESS_RULE.metrics}/from/0/namespaceSelector`, metricsFrom),
          ...(webhook ? [JsonPatch.replace(`/spec/ingress/${INGRESS_RULE.webhook}`, webhookRule(webhook))] : []),
        ]);
      }
      if (construct instanceof ControllerPolicy) {
        for (const child of construct.node.children) {
          const policy = ApiObject.of(child).toJson() as Manifest & { spec: { variables?: { name: string }[] } };
          const images = policy.spec.variables?.findIndex((v) => v.name === IMAGES_VARIABLE) ?? -1;
          if (images >= 0) patches.set(identity(policy), [JsonPatch.replace(`/spec/variables/${images}/expression`, policyImages(construct.kindImages))]);
        }
      }
    }
    // A companion's Deployment running the controller's image runs the values' image.
    for (const m of manifests.filter((m) => m.kind === 'Deployment' && !patches.has(identity(m)))) {
      const containers = m.spec?.template?.spec?.containers ?? [];
      const own = containers.flatMap((c, i) => (c.image === container.image ? [JsonPatch.replace(`/spec/template/spec/containers/${i}/image`, image), JsonPatch.replace(`/spec/template/spec/containers/${i}/imagePullPolicy`, pullPolicy)] : []));
      if (own.length) patches.set(identity(m), own);
    }
    for (const companionPatches of byCompanion) {
      for (const [object, more] of companionPatches(manifests)) patches.set(identity(object as Manifest), [...(patches.get(identity(object as Manifest)) ?? []), ...more]);
    }
    return patches;
  };

  const base = synth({}, fromValues);
  // The bundle with some opt-ins on, by their names: made once each, when an object asks.
  const byOptIns = new Map<string, Map<string, Manifest>>();
  const withOptIns = (on: readonly KindOptIn[]) => {
    const key = on.map((optIn) => optIn.name).join(',');
    if (!byOptIns.has(key)) byOptIns.set(key, new Map(synth({ optIns: on.map((optIn) => optIn.name) }, fromValues).map((m) => [identity(m), m])));
    return byOptIns.get(key)!;
  };
  const withoutCompanion = (variant: Partial<OperatorVariant>) => companions.map((companion) => ({ companion, objects: new Set(synth({ ...variant, withoutCompanions: [companion.key] }, fromValues).map(identity)) }));
  const withoutCompanions = withoutCompanion({});
  const withoutKind = kinds.map((kind) => ({ kind, objects: new Set(synth({ kinds: kinds.filter((k) => k !== kind) }, fromValues).map(identity)) }));
  const withoutGroup = extraGroupNames(kinds).map((crd) => ({ crd, objects: new Set(synth({ withoutExtraGroups: [crd] }, fromValues).map(identity)) }));

  // cert-manager's certificates drop the CA injection's role, change the Secret's, and add its Issuers and Certificates.
  const certManager = new Map(synth({ webhookCertificates: 'cert-manager' }, fromValues).map((m) => [identity(m), m]));
  const selfOnly = '(ne .Values.webhookCertificates "cert-manager")';
  const certManagerOnly = '(eq .Values.webhookCertificates "cert-manager")';
  // Sharding only adds objects (its RBAC): each is guarded by the value, and by the kind or group it belongs to, found as above.
  const sharded = synth({ sharding: true }, fromValues).filter((m) => !base.some((b) => identity(b) === identity(m)));
  const shardedWithoutKind = kinds.map((kind) => ({ kind, objects: new Set(synth({ sharding: true, kinds: kinds.filter((k) => k !== kind) }, fromValues).map(identity)) }));
  const shardedWithoutGroup = extraGroupNames(kinds).map((crd) => ({ crd, objects: new Set(synth({ sharding: true, withoutExtraGroups: [crd] }, fromValues).map(identity)) }));
  const shardedWithoutCompanions = withoutCompanion({ sharding: true });

  const byMode = modes.map((mode) => {
    const companionOptions = { [mode.companion.key]: mode.options };
    return {
      ...mode,
      objects: new Map(synth({ companionOptions }, fromValues).map((m) => [identity(m), m])),
      withoutKind: kinds.map((kind) => ({ kind, objects: new Set(synth({ companionOptions, kinds: kinds.filter((k) => k !== kind) }, fromValues).map(identity)) })),
      withoutGroup: extraGroupNames(kinds).map((crd) => ({ crd, objects: new Set(synth({ companionOptions, withoutExtraGroups: [crd] }, fromValues).map(identity)) })),
    };
  });

  const yaml = (m: Manifest) => `---\n${helm.fill(Yaml.stringify(m))}`;
  const conditionsOf = (id: string, byKind: typeof withoutKind, byGroup: typeof withoutGroup, byCompanion: typeof withoutCompanions) => {
    const owners = byCompanion.filter(({ objects }) => !objects.has(id)).map(({ companion }) => companion);
    // A companion's object goes with the kinds the companion goes with (one of those declaring it served), not with each of them.
    const served = owners.length
      ? owners.flatMap((companion) => {
          const plurals = companionPlurals(companion, kinds, synthOptions.companions);
          return plurals ? [kindsServed(plurals)] : [];
        })
      : byKind.filter(({ objects }) => !objects.has(id)).map(({ kind }) => kindsServed([kind.plural]));
    return [
      ...served,
      ...owners.map((companion) => `.Values.${companion.key}.enabled`),
      ...byGroup.filter(({ objects }) => !objects.has(id)).map(({ crd }) => `not (has ${JSON.stringify(crd)} .Values.withoutExtraGroups)`),
    ];
  };
  const sections = base.map((manifest): Section => {
    const id = identity(manifest);
    const conditions = [...conditionsOf(id, withoutKind, withoutGroup, withoutCompanions), ...(certManager.has(id) ? [] : [selfOnly])];
    const changed = byMode.filter(({ objects }) => !isDeepStrictEqual(objects.get(id), manifest));
    const leftOut = changed.find(({ objects }) => !objects.has(id));
    if (leftOut) throw new Error(`helm: ${id} is left out when ${leftOut.condition}; the chart cannot say so yet`);
    if (changed.length) {
      const branches = changed.map(({ condition, objects }, i) => `{{- ${i ? 'else if' : 'if'} ${condition} }}\n${yaml(objects.get(id)!)}`).join('');
      return { condition: all(conditions), body: `${branches}{{- else }}\n${yaml(manifest)}{{- end }}\n` };
    }
    const certManagerVariant = certManager.get(id);
    if (certManagerVariant && !isDeepStrictEqual(certManagerVariant, manifest)) {
      return { condition: all(conditions), body: `{{- if ${certManagerOnly} }}\n${yaml(certManagerVariant)}{{- else }}\n${yaml(manifest)}{{- end }}\n` };
    }
    const variant = (on: readonly KindOptIn[]) => {
      const object = withOptIns(on).get(id);
      if (!object) throw new Error(`helm: ${id} is left out when ${on.map((optIn) => optIn.helmValue).join(' and ')} is on; the chart cannot say so yet`);
      return object;
    };
    const switching = optIns.filter((optIn) => !isDeepStrictEqual(variant([optIn]), manifest));
    if (!switching.length) return { condition: all(conditions), body: yaml(manifest) };
    // E.g. a kind's ClusterRole, with an opt-in's rules or without: a branch for each combination of the opt-ins that change it.
    const branches = combinations(switching).map((on, i) => `{{- ${i ? 'else if' : 'if'} ${all(on.map((optIn) => `.Values.${optIn.helmValue}`))} }}\n${yaml(variant(on))}`).join('');
    return { condition: all(conditions), body: `${branches}{{- else }}\n${yaml(manifest)}{{- end }}\n` };
  });
  for (const optIn of optIns) {
    const added = [...withOptIns([optIn]).keys()].filter((id) => !base.some((m) => identity(m) === id));
    if (added.length) throw new Error(`helm: the opt-in ${optIn.helmValue} adds ${added.join(', ')}; the chart cannot say so yet`);
  }
  const certManagerAdds = [...certManager.values()].filter((m) => !base.some((b) => identity(b) === identity(m)));
  sections.push(...certManagerAdds.map((m) => ({ condition: certManagerOnly, body: yaml(m) })));
  for (const mode of byMode) {
    const added = [...mode.objects.values()].filter((m) => !base.some((b) => identity(b) === identity(m)));
    // What a mode adds is its companion's.
    const ownCompanion = withoutCompanions.filter(({ companion }) => companion === mode.companion);
    sections.push(...added.map((m) => ({ condition: all([...conditionsOf(identity(m), mode.withoutKind, mode.withoutGroup, ownCompanion), mode.condition]), body: yaml(m) })));
  }
  const shardingSections = sharded.map((manifest): Section => ({ condition: all(['.Values.sharding', ...conditionsOf(identity(manifest), shardedWithoutKind, shardedWithoutGroup, shardedWithoutCompanions)]), body: yaml(manifest) }));
  return { template: guarded([...sections, ...shardingSections]), defaults };
}
