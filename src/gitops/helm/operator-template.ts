import { ApiObject, App, Chart, JsonPatch, Yaml } from 'cdk8s';
import { isDeepStrictEqual } from 'node:util';
import { ControllerDeployment, INGRESS_RULE } from '../../bundle/deployment';
import { METRICS_NAMESPACE_LABEL } from '../../core/metrics-endpoint';
import { extraGroupNames } from '../../core/groups';
import { AnyKind, KubeJson } from '../../core/kind';
import { HelmExpressions } from './expressions';
import { ChartValues } from './values';
import { SECRET_COPY } from '../../core/secret-copy';
import { installOptions, OptionSpec } from '../../core/options';
import { GuitarUi, GuitarUiOptions } from '../../ui/install';
import { ControllerPolicy, IMAGES_VARIABLE } from '../../bundle/controller-policy';
import { WebhookCertificates } from '../../core/webhook';
import { imageParts } from '../../bundle/version';

/** The controller image from the values: repository:tag, and @digest when one is set (then the runtime pulls by digest). */
export const IMAGE_EXPRESSION = '{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}{{ with .Values.image.digest }}@{{ . }}{{ end }}';

/** The options the chart's values switch, as the bundle's constructs take them. */
export interface OperatorVariant {
  readonly kinds: readonly AnyKind[];
  readonly secretCopy: boolean;
  readonly ui: boolean;
  /** How the UI authenticates, when it is there. @default its own default (users' tokens) */
  readonly uiOptions?: GuitarUiOptions;
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

/**
 * templates/1-operator.k8s.yaml and the defaults of values.yaml, from the bundle's own
 * constructs. The image, replicas, resources and the controller's flags become expressions
 * in both Deployments (JSON patches on the objects of their constructs). Which objects
 * belong to a kind, to Secret copying or to the UI is found by synthesizing the bundle
 * without it: an object only some variants have is guarded by the values that select it.
 */
export function operatorTemplate(
  build: OperatorChartBuilder,
  kinds: readonly AnyKind[],
  synthOptions: {
    readonly secretCopy: boolean;
    readonly sharding: boolean;
    readonly extraImages: readonly string[];
    readonly withoutExtraGroups: readonly string[];
    readonly webhookCertificates: WebhookCertificates;
    readonly installValues?: Readonly<Record<string, unknown>>;
    readonly image: string;
  },
  appVersion: string,
): { template: string; defaults: ChartValues } {
  const synth = (variant: Partial<OperatorVariant>, patches?: (chart: Chart) => Map<string, JsonPatch[]>): Manifest[] => {
    const chart = build(new App(), { kinds, secretCopy: false, ui: true, image: synthOptions.image, ...variant });
    // On the JSON, not with addJsonPatch: the typed classes would turn a string where they expect an object into {}.
    const byObject = patches?.(chart) ?? new Map<string, JsonPatch[]>();
    return (chart.toJson() as Manifest[]).map((m) => JsonPatch.apply(m, ...(byObject.get(identity(m)) ?? [])) as Manifest);
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
    secretCopy: synthOptions.secretCopy,
    sharding: synthOptions.sharding,
    extraImages: [...synthOptions.extraImages],
    withoutExtraGroups: [...synthOptions.withoutExtraGroups],
    webhookCertificates: synthOptions.webhookCertificates,
    kinds: [],
    watchNamespaces: [],
    ui: { enabled: true, auth: 'token', impersonation: { userHeader: 'X-Forwarded-User', users: [], proxySecret: { name: '', key: 'secret' }, proxySecretHeader: 'X-Proxy-Secret' } },
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
  // The flags the values add; the others are the bundle's, as its Secret-less variant has them.
  const flags = helm.listItems([
    '{{- if .Values.secretCopy }}',
    `- --${SECRET_COPY.controllerOption}`,
    '{{- end }}',
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
  // The UI's modes other than the default: an object of the UI differs by ui.auth, or exists in one mode only.
  const impersonation = (key: string) => helm.value(`{{ .Values.ui.impersonation.${key} }}`);
  const impersonateUsersArg = helm.listItems(['- {{ printf "--impersonate-users=%s" (join "," .Values.ui.impersonation.users) | quote }}']);
  const impersonateUsersItems = helm.listItems(['{{- range .Values.ui.impersonation.users }}', '- {{ . | quote }}', '{{- end }}']);
  const uiModes: { condition: string; options: GuitarUiOptions }[] = [
    {
      condition: 'eq .Values.ui.auth "impersonate"',
      options: {
        auth: 'impersonate',
        impersonation: {
          userHeader: impersonation('userHeader'),
          users: ['(ui.impersonation.users)'],
          proxySecret: { name: helm.value('{{ .Values.ui.impersonation.proxySecret.name | quote }}'), key: helm.value('{{ .Values.ui.impersonation.proxySecret.key | quote }}') },
          proxySecretHeader: impersonation('proxySecretHeader'),
        },
      },
    },
    { condition: 'eq .Values.ui.auth "service-account"', options: { auth: 'service-account' } },
  ];
  // The kinds' images and the value's, as a CEL list (JSON's list of strings is one); one marker per list, so that variants compare equal.
  const imageLists = new Map<string, string>();
  const policyImages = (kindImages: readonly string[]) => {
    const list = kindImages.map((i) => JSON.stringify(i)).join(' ');
    if (!imageLists.has(list)) imageLists.set(list, helm.value(`{{ concat (list ${list}) .Values.extraImages | toJson | quote }}`));
    return imageLists.get(list)!;
  };
  const fromValues = (chart: Chart) => {
    const patches = new Map<string, JsonPatch[]>();
    const deployment = (construct: ControllerDeployment | GuitarUi) => identity(ApiObject.of(construct.node.findChild('deployment')).toJson() as Manifest);
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
      if (construct instanceof GuitarUi) {
        const id = deployment(construct);
        const uiArgs = (ApiObject.of(construct.node.findChild('deployment')).toJson() as Manifest).spec!.template!.spec!.containers![0].args;
        const users = uiArgs.findIndex((arg) => arg.startsWith('--impersonate-users='));
        patches.set(id, [JsonPatch.replace(`${first}/image`, image), JsonPatch.replace(`${first}/imagePullPolicy`, pullPolicy), ...(users >= 0 ? [JsonPatch.replace(`${first}/args/${users}`, impersonateUsersArg)] : [])]);
        const role = construct.node.tryFindChild('cluster-role');
        if (users >= 0 && role) patches.set(identity(ApiObject.of(role).toJson() as Manifest), [JsonPatch.replace('/rules/0/resourceNames', [impersonateUsersItems])]);
      }
      if (construct instanceof ControllerPolicy) {
        for (const child of construct.node.children) {
          const policy = ApiObject.of(child).toJson() as Manifest & { spec: { variables?: { name: string }[] } };
          const images = policy.spec.variables?.findIndex((v) => v.name === IMAGES_VARIABLE) ?? -1;
          if (images >= 0) patches.set(identity(policy), [JsonPatch.replace(`/spec/variables/${images}/expression`, policyImages(construct.kindImages))]);
        }
      }
    }
    return patches;
  };

  const base = synth({}, fromValues);
  const withSecrets = new Map(synth({ secretCopy: true }, fromValues).map((m) => [identity(m), m]));
  const withoutUi = new Set(synth({ ui: false }, fromValues).map(identity));
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
  const shardedWithoutUi = new Set(synth({ sharding: true, ui: false }, fromValues).map(identity));

  const byMode = uiModes.map((mode) => ({
    ...mode,
    objects: new Map(synth({ uiOptions: mode.options }, fromValues).map((m) => [identity(m), m])),
    withoutKind: kinds.map((kind) => ({ kind, objects: new Set(synth({ uiOptions: mode.options, kinds: kinds.filter((k) => k !== kind) }, fromValues).map(identity)) })),
    withoutGroup: extraGroupNames(kinds).map((crd) => ({ crd, objects: new Set(synth({ uiOptions: mode.options, withoutExtraGroups: [crd] }, fromValues).map(identity)) })),
  }));

  const yaml = (m: Manifest) => `---\n${helm.fill(Yaml.stringify(m))}`;
  const conditionsOf = (id: string, byKind: typeof withoutKind, byGroup: typeof withoutGroup, noUi: Set<string>) => [
    ...byKind.filter(({ objects }) => !objects.has(id)).map(({ kind }) => `or (empty .Values.kinds) (has ${JSON.stringify(kind.plural)} .Values.kinds)`),
    ...(noUi.has(id) ? [] : ['.Values.ui.enabled']),
    ...byGroup.filter(({ objects }) => !objects.has(id)).map(({ crd }) => `not (has ${JSON.stringify(crd)} .Values.withoutExtraGroups)`),
  ];
  const sections = base.map((manifest): Section => {
    const id = identity(manifest);
    const conditions = [...conditionsOf(id, withoutKind, withoutGroup, withoutUi), ...(certManager.has(id) ? [] : [selfOnly])];
    const modes = byMode.filter(({ objects }) => !isDeepStrictEqual(objects.get(id), manifest));
    if (modes.some(({ objects }) => !objects.has(id))) throw new Error(`helm: ${id} is left out in a mode of ui.auth; the chart cannot say so yet`);
    if (modes.length) {
      const branches = modes.map(({ condition, objects }, i) => `{{- ${i ? 'else if' : 'if'} ${condition} }}\n${yaml(objects.get(id)!)}`).join('');
      return { condition: all(conditions), body: `${branches}{{- else }}\n${yaml(manifest)}{{- end }}\n` };
    }
    const certManagerVariant = certManager.get(id);
    if (certManagerVariant && !isDeepStrictEqual(certManagerVariant, manifest)) {
      return { condition: all(conditions), body: `{{- if ${certManagerOnly} }}\n${yaml(certManagerVariant)}{{- else }}\n${yaml(manifest)}{{- end }}\n` };
    }
    const secretVariant = withSecrets.get(id);
    if (!secretVariant) throw new Error(`helm: ${id} is left out when Secrets are copied; the chart cannot say so yet`);
    if (isDeepStrictEqual(secretVariant, manifest)) return { condition: all(conditions), body: yaml(manifest) };
    // E.g. a kind's ClusterRole, with the Secret rules or without.
    return { condition: all(conditions), body: `{{- if .Values.secretCopy }}\n${yaml(secretVariant)}{{- else }}\n${yaml(manifest)}{{- end }}\n` };
  });
  const added = [...withSecrets.keys()].filter((id) => !base.some((m) => identity(m) === id));
  if (added.length) throw new Error(`helm: Secret copying adds ${added.join(', ')}; the chart cannot say so yet`);
  const certManagerAdds = [...certManager.values()].filter((m) => !base.some((b) => identity(b) === identity(m)));
  sections.push(...certManagerAdds.map((m) => ({ condition: certManagerOnly, body: yaml(m) })));
  for (const mode of byMode) {
    const added = [...mode.objects.values()].filter((m) => !base.some((b) => identity(b) === identity(m)));
    sections.push(...added.map((m) => ({ condition: all([...conditionsOf(identity(m), mode.withoutKind, mode.withoutGroup, withoutUi), mode.condition]), body: yaml(m) })));
  }
  const shardingSections = sharded.map((manifest): Section => ({ condition: all(['.Values.sharding', ...conditionsOf(identity(manifest), shardedWithoutKind, shardedWithoutGroup, shardedWithoutUi)]), body: yaml(manifest) }));
  return { template: guarded([...sections, ...shardingSections]), defaults };
}
