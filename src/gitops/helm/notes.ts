import { OperatorNames } from '../../core/identity';
import { UI_NAME } from '../../ui/install';
import { AnyKind } from '../../core/kind';
import { guitarKind } from '../../kinds/guitar';
import { IMAGE_EXPRESSION } from './operator-template';

/** templates/NOTES.txt: what `helm install` and `helm upgrade` print: what runs where, and what to do next. */
export function notes(kinds: readonly AnyKind[], names: OperatorNames): string {
  const all = kinds.map((k) => k.plural).join(',');
  const ns = names.identity.namespace;
  return `{{ .Chart.Name }} {{ .Chart.AppVersion }} is {{ if .Release.IsInstall }}installed{{ else }}upgraded{{ end }} as release {{ .Release.Name }}.

The controller: Deployment ${ns}/controller, {{ .Values.replicas }} replica(s) of
${IMAGE_EXPRESSION}, serving
{{ if .Values.kinds }}{{ join ", " .Values.kinds }}{{ else }}every kind ({{ "${all}" | replace "," ", " }}){{ end }}
in {{ if .Values.watchNamespaces }}the namespaces {{ join ", " .Values.watchNamespaces }}{{ else }}every namespace{{ end }};
Secret copying is {{ if .Values.secretCopy }}on{{ else }}off{{ end }}; {{ if .Values.withoutExtraGroups }}extra API groups left out: {{ join ", " .Values.withoutExtraGroups }}{{ else }}every API group of every kind is served{{ end }}.
The CRDs are templates kept on uninstall (helm.sh/resource-policy: keep), so that
\`helm upgrade\` updates them and \`helm uninstall\` leaves your resources alone.

Next:
  kubectl -n ${ns} rollout status deployment/controller
  kubectl get {{ if .Values.kinds }}{{ join "," .Values.kinds }}{{ else }}all-operators{{ end }} --all-namespaces
  kubectl -n ${ns} port-forward service/controller-metrics 8443   # then, with a token bound to ${names.metricsReaderRole}:
  #   curl -k -H "Authorization: Bearer $TOKEN" https://localhost:8443/metrics   (docs/security.md#metrics)
{{- if and .Values.ui.enabled (or (empty .Values.kinds) (has "${guitarKind.plural}" .Values.kinds)) }}
  kubectl -n ${ns} port-forward service/${UI_NAME} 8081:80      # the guitar UI: http://localhost:8081
{{- if eq .Values.ui.auth "token" }}
  kubectl create token <service-account> -n <namespace>          # a token to sign in to the UI with
{{- end }}
{{- end }}
`;
}
