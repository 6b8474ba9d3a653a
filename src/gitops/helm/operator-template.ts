import { ApiObject, App, Chart, JsonPatch, Yaml } from 'cdk8s';
import { isDeepStrictEqual } from 'node:util';
import { ControllerDeployment } from '../../bundle/deployment';
import { extraGroupNames } from '../../core/groups';
import { AnyKind, KubeJson } from '../../core/kind';
import { HelmExpressions } from './expressions';
import { ChartValues } from './values';
import { SECRET_COPY } from '../../core/secret-copy';
import { GuitarUi } from '../../ui/install';
import { WebhookCertificates } from '../../core/webhook';

/** The options the chart's values switch, as the bundle's constructs take them. */
export interface OperatorVariant {
  readonly kinds: readonly AnyKind[];
  readonly secretCopy: boolean;
  readonly ui: boolean;
  /** Extra groups of the kinds left out, by CRD name. */
  readonly withoutExtraGroups?: readonly string[];
  /** Who makes the conversion webhook's certificate. @default 'self' */
  readonly webhookCertificates?: WebhookCertificates;
  /** Every replica active (--sharding), with its RBAC. */
  readonly sharding?: boolean;
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
  synthOptions: { readonly secretCopy: boolean; readonly sharding: boolean; readonly withoutExtraGroups: readonly string[]; readonly webhookCertificates: WebhookCertificates },
  appVersion: string,
): { template: string; defaults: ChartValues } {
  const synth = (variant: Partial<OperatorVariant>, patches?: (chart: Chart) => Map<string, JsonPatch[]>): Manifest[] => {
    const chart = build(new App(), { kinds, secretCopy: false, ui: true, ...variant });
    // On the JSON, not with addJsonPatch: the typed classes would turn a string where they expect an object into {}.
    const byObject = patches?.(chart) ?? new Map<string, JsonPatch[]>();
    return (chart.toJson() as Manifest[]).map((m) => JsonPatch.apply(m, ...(byObject.get(identity(m)) ?? [])) as Manifest);
  };

  const plain = synth({});
  const controller = plain.find((m) => m.kind === 'Deployment' && m.spec?.template?.spec?.containers?.[0]?.name === 'controller')?.spec;
  const container = controller?.template?.spec?.containers?.[0];
  if (!controller || !container || controller.replicas === undefined) throw new Error('helm: the bundle has no controller Deployment with replicas');
  const [repository, tag] = container.image.split(/:(?=[^:/]+$)/);
  const defaults: ChartValues = {
    image: { repository, tag: '', pullPolicy: container.imagePullPolicy },
    replicas: controller.replicas,
    resources: container.resources,
    secretCopy: synthOptions.secretCopy,
    sharding: synthOptions.sharding,
    withoutExtraGroups: [...synthOptions.withoutExtraGroups],
    webhookCertificates: synthOptions.webhookCertificates,
    kindOptions: {},
    kinds: [],
    watchNamespaces: [],
    ui: { enabled: true },
    monitoring: { enabled: false },
  };
  // The chart's default tag is its appVersion.
  if (tag !== appVersion) throw new Error(`helm: the controller image is ${container.image}, expected the tag ${appVersion}`);

  const helm = new HelmExpressions();
  const image = helm.value('"{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}"');
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
    '{{- range $name, $value := .Values.kindOptions }}',
    '- {{ printf "--%s=%s" $name $value | quote }}',
    '{{- end }}',
  ]);
  const first = '/spec/template/spec/containers/0';
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
      }
      if (construct instanceof GuitarUi) patches.set(deployment(construct), [JsonPatch.replace(`${first}/image`, image), JsonPatch.replace(`${first}/imagePullPolicy`, pullPolicy)]);
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

  const yaml = (m: Manifest) => `---\n${helm.fill(Yaml.stringify(m))}`;
  const conditionsOf = (id: string, byKind: typeof withoutKind, byGroup: typeof withoutGroup, noUi: Set<string>) => [
    ...byKind.filter(({ objects }) => !objects.has(id)).map(({ kind }) => `or (empty .Values.kinds) (has ${JSON.stringify(kind.plural)} .Values.kinds)`),
    ...(noUi.has(id) ? [] : ['.Values.ui.enabled']),
    ...byGroup.filter(({ objects }) => !objects.has(id)).map(({ crd }) => `not (has ${JSON.stringify(crd)} .Values.withoutExtraGroups)`),
  ];
  const sections = base.map((manifest): Section => {
    const id = identity(manifest);
    const conditions = [...conditionsOf(id, withoutKind, withoutGroup, withoutUi), ...(certManager.has(id) ? [] : [selfOnly])];
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
  const shardingSections = sharded.map((manifest): Section => ({ condition: all(['.Values.sharding', ...conditionsOf(identity(manifest), shardedWithoutKind, shardedWithoutGroup, shardedWithoutUi)]), body: yaml(manifest) }));
  return { template: guarded([...sections, ...shardingSections]), defaults };
}
