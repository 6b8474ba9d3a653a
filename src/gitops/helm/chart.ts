import { App, Chart, Yaml } from 'cdk8s';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { extraGroupNames } from '../../core/groups';
import { AnyKind } from '../../core/contract/kind';
import { HelmExpressions } from './expressions';
import { ChartCompanion, chartCompanions } from './companion';
import { notes } from './notes';
import { OperatorChartBuilder, operatorTemplate } from './operator-template';
import { valuesSchema, valuesYaml } from './values';
import { INJECT_CA_ANNOTATION, WebhookCertificates } from '../../core/install/webhook';
import { OperatorNames } from '../../core/install/identity';
import { serviceMonitorTls } from '../../monitoring/manifests';

const DESCRIPTION = 'Kubernetes operators as cdk8s code (CRDs, controller, RBAC)';

export interface HelmChartInput {
  /** Whose chart: its name, namespace and role names are the operator's. */
  readonly names: OperatorNames;
  /** The project's version: the chart's version and appVersion (the image's default tag). */
  readonly version: string;
  readonly kinds: readonly AnyKind[];
  /** The CRDs' chart (as dist/0-crds.k8s.yaml has it) leaving out some extra groups; the chart takes every group and guards the extra ones by the values. */
  readonly crds: (app: App, withoutExtraGroups: readonly string[], webhookCertificates: WebhookCertificates) => Chart;
  /** The operator's chart for a combination of the options the values switch; it adds the companions of each variant (variantCompanions). */
  readonly operator: OperatorChartBuilder;
  /**
   * Workloads beside the controller the app lists itself, beside those its kinds declare
   * (KindDefinition.companions), which the chart has without this. Kept for compatibility: such a
   * companion goes with the kinds its `kinds` names, or with every install. @default none
   */
  readonly companions?: readonly ChartCompanion[];
  /** The kinds' opt-ins synth turned on, by name: their values default to true (see KindOptIn). @default none */
  readonly optIns?: readonly string[];
  /** The default of the sharding value (synth's --sharding). */
  readonly sharding: boolean;
  /** The default of the extraImages value (synth's --extra-images). */
  readonly extraImages: readonly string[];
  /** The default of the withoutExtraGroups value (synth's --without-extra-groups). */
  readonly withoutExtraGroups: readonly string[];
  /** The default of the webhookCertificates value (synth's --webhook-certificates). */
  readonly webhookCertificates: WebhookCertificates;
  /** The defaults of the kinds' install values (synth's flags of the same names), by option name. */
  readonly installValues: Readonly<Record<string, unknown>>;
  /** The controller image the bundle runs: the defaults of the image values (its digest when synth's --controller-digest pins one). */
  readonly image: string;
  /** Charts copied as they are (the team's resources and the examples, with --helm-instances). */
  readonly resources: readonly Chart[];
  /** The ServiceMonitor, PrometheusRule and dashboard, installed with `monitoring.enabled` (default none). */
  readonly monitoring?: readonly unknown[];
  /** Where the operator's docs describe the chart's values and upgrades, as the chart's README names it (a path or URL). @default none */
  readonly docs?: string;
}

/**
 * Helm never upgrades what is in a chart's crds/ folder. The CRDs are templates instead, so
 * that `helm upgrade` brings a changed schema to the cluster; kept on uninstall, since
 * deleting a CRD deletes every object of its kind.
 */
export const KEEP = { 'helm.sh/resource-policy': 'keep' };

/** The files of the chart, by path in it. */
export function helmChart(input: HelmChartInput): Map<string, string> {
  const companions = chartCompanions(input.kinds, input.companions);
  const { template, defaults } = operatorTemplate(input.operator, input.kinds, { optIns: input.optIns, sharding: input.sharding, withoutExtraGroups: input.withoutExtraGroups, webhookCertificates: input.webhookCertificates, extraImages: input.extraImages, installValues: input.installValues, image: input.image, companions: input.companions }, input.version);
  // With cert-manager's annotation, which the template keeps only when the value asks for cert-manager.
  const crds = (input.crds(new App(), [], 'cert-manager').toJson() as { metadata: { name: string; annotations?: Record<string, string> } }[]).map((crd) => ({
    ...crd,
    metadata: { ...crd.metadata, annotations: { ...crd.metadata.annotations, ...KEEP } },
  }));
  const asIs = (objects: unknown[]) => new HelmExpressions().fill(Yaml.stringify(...objects));
  const annotation = new RegExp(`^(\\s*)(${INJECT_CA_ANNOTATION.replace(/\./g, '\\.')}: .*)$`, 'gm');
  const guardInjection = (yaml: string) => yaml.replace(annotation, `{{- if eq .Values.webhookCertificates "cert-manager" }}\n$1$2\n{{- end }}`);
  const extras = extraGroupNames(input.kinds);
  // An extra group's CRD is there unless withoutExtraGroups names it; the main groups' always are.
  const crdTemplate = crds
    .map((crd, i) => {
      const document = `${i ? '---\n' : ''}${guardInjection(asIs([crd]))}`;
      return extras.includes(crd.metadata.name) ? `{{- if not (has ${JSON.stringify(crd.metadata.name)} .Values.withoutExtraGroups) }}\n${document}{{- end }}\n` : document;
    })
    .join('');
  const files = new Map<string, string>([
    // Quoted: a version such as 1.10 must not be read as a number.
    ['Chart.yaml', `apiVersion: v2\nname: ${input.names.identity.name}\ndescription: ${DESCRIPTION}\ntype: application\nversion: ${JSON.stringify(input.version)}\nappVersion: ${JSON.stringify(input.version)}\n`],
    ['values.yaml', valuesYaml(defaults, input.kinds, companions)],
    ['values.schema.json', `${JSON.stringify(valuesSchema(input.kinds, input.names.identity.name, companions), null, 2)}\n`],
    ['README.md', readme(input.names.identity.name, input.docs)],
    ['templates/0-crds.k8s.yaml', crdTemplate],
    ['templates/1-operator.k8s.yaml', template],
    ...input.resources.map((chart): [string, string] => [`templates/${chart.node.id}.k8s.yaml`, asIs(chart.toJson())]),
    ...(input.monitoring?.length ? [['templates/monitoring.yaml', `{{- if .Values.monitoring.enabled }}\n${tlsByValue(asIs([...input.monitoring]), input.names)}{{- end }}\n`] as [string, string]] : []),
    ['templates/NOTES.txt', notes(input.kinds, input.names, companions, input.companions)],
  ]);
  return files;
}

/** Writes the chart into `dir`, replacing what was there. */
export function writeHelmChart(dir: string, input: HelmChartInput): void {
  const files = helmChart(input);
  rmSync(dir, { recursive: true, force: true });
  for (const [path, text] of files) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
}

const readme = (chart: string, docs: string | undefined) => `# The ${chart} chart

Generated by \`npm run synth\` from the same constructs as the rest of the install: change
those, not these files.${docs ? ` ${docs} describes the values, upgrades and what happens to the CRDs.` : ''}
`;

/** The ServiceMonitor's tlsConfig (rendered for `self`) chosen by the value webhookCertificates, as the synthesized dist/monitoring/ is by synth's option. */
function tlsByValue(yaml: string, operator: OperatorNames): string {
  const block = (indent: string, certificates: WebhookCertificates) => `${indent}tlsConfig:\n${Yaml.stringify(serviceMonitorTls(certificates, operator)).trimEnd().replace(/^/gm, `${indent}  `)}\n`;
  const self = /^( *)tlsConfig:\n\1 {2}insecureSkipVerify: true\n/m;
  const indent = self.exec(yaml)?.[1];
  if (indent === undefined) throw new Error('helm: the ServiceMonitor has no tlsConfig to choose by webhookCertificates');
  return yaml.replace(self, `{{- if eq .Values.webhookCertificates "cert-manager" }}\n${block(indent, 'cert-manager')}{{- else }}\n${block(indent, 'self')}{{- end }}\n`);
}
