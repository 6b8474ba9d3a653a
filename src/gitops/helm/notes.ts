import { OperatorNames } from '../../core/install/identity';
import { AnyKind } from '../../core/contract/kind';
import { kindOptIns } from '../../core/contract/opt-ins';
import { IMAGE_EXPRESSION } from './operator-template';
import { ChartCompanion, companionServed } from './companion';

/** templates/NOTES.txt: what `helm install` and `helm upgrade` print: what runs where, and what to do next. */
export function notes(kinds: readonly AnyKind[], names: OperatorNames, companions: readonly ChartCompanion[], listed: readonly ChartCompanion[] = []): string {
  const all = kinds.map((k) => k.plural).join(',');
  const ns = names.identity.namespace;
  return `{{ .Chart.Name }} {{ .Chart.AppVersion }} is {{ if .Release.IsInstall }}installed{{ else }}upgraded{{ end }} as release {{ .Release.Name }}.

The controller: Deployment ${ns}/controller, {{ .Values.replicas }} replica(s) of
${IMAGE_EXPRESSION}, serving
{{ if .Values.kinds }}{{ join ", " .Values.kinds }}{{ else }}every kind ({{ "${all}" | replace "," ", " }}){{ end }}
in {{ if .Values.watchNamespaces }}the namespaces {{ join ", " .Values.watchNamespaces }}{{ else }}every namespace{{ end }};
${kindOptIns(kinds).map((optIn) => `${optIn.title} is {{ if .Values.${optIn.helmValue} }}on{{ else }}off{{ end }}; `).join('')}{{ if .Values.withoutExtraGroups }}extra API groups left out: {{ join ", " .Values.withoutExtraGroups }}{{ else }}every API group of every kind is served{{ end }}.
The CRDs are templates kept on uninstall (helm.sh/resource-policy: keep), so that
\`helm upgrade\` updates them and \`helm uninstall\` leaves your resources alone.

Next:
  kubectl -n ${ns} rollout status deployment/controller
  kubectl get {{ if .Values.kinds }}{{ join "," .Values.kinds }}{{ else }}all-operators{{ end }} --all-namespaces
  kubectl -n ${ns} port-forward service/controller-metrics 8443   # then, with a token bound to ${names.metricsReaderRole}:
  #   curl -k -H "Authorization: Bearer $TOKEN" https://localhost:8443/metrics   (docs/security.md#metrics)
${companions.map((c) => `{{- if and .Values.${c.key}.enabled ${companionServed(c, kinds, listed)} }}\n${c.notes(ns)}{{- end }}\n`).join('')}`;
}
