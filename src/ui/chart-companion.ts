import { JsonPatch } from 'cdk8s';
import { ChartCompanion, HelmExpressions, strictSchema } from '../engine/helm';
import { KubeJson } from '../engine/kind';
import { GUITAR_API } from '../kinds/guitar/identity';
import { PRODUCT_NAMES } from '../product';
import { AUTH_MODES } from './auth';
import { GuitarUi, GuitarUiOptions, UI_NAME } from './install';

const DNS_SUBDOMAIN = '^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$';
const HEADER_NAME = '^[A-Za-z0-9-]+$';

/** The guitar web UI in the Helm chart, which the Guitar declares: the values `ui.*`, its auth modes, and how to reach it after `helm install`. */
export const GUITAR_UI_COMPANION: ChartCompanion<GuitarUiOptions> = {
  key: 'ui',
  title: 'the guitar web UI',
  comment: [`The guitar web UI (Deployment, Service, RBAC); it exists only where ${GUITAR_API.plural} are served.`, 'docs/kinds/guitar.md#signing-in says how each auth mode signs users in.'],
  defaults: { auth: 'token', impersonation: { userHeader: 'X-Forwarded-User', users: [], proxySecret: { name: '', key: 'secret' }, proxySecretHeader: 'X-Proxy-Secret' } },
  valuesYaml: (values) => {
    const impersonation = values.impersonation as { userHeader: string; users: string[]; proxySecret: { name: string; key: string }; proxySecretHeader: string };
    return `  # With whose rights the UI acts:
  #   token: each user's own bearer token (an authenticating proxy's Authorization header,
  #     or the token pasted into its login form); the API server decides. The UI gets no RBAC
  #     and no token of its own.
  #   impersonate: the user an authenticating proxy names in impersonation.userHeader, only
  #     for requests carrying the proxy's secret and only for impersonation.users.
  #   service-account: its own ServiceAccount's (guitars in every namespace) for whoever
  #     reaches it: anyone who can reach the Service may add and delete guitars.
  auth: ${values.auth as string}
  # auth impersonate only.
  impersonation:
    # The header the proxy names the user in.
    userHeader: ${impersonation.userHeader}
    # The only users the UI may act as (its RBAC may impersonate these names only).
    users: ${JSON.stringify(impersonation.users)}
    # A Secret in the release's namespace holding the secret the proxy sends in
    # proxySecretHeader (mounted as a file; at least 16 characters).
    proxySecret:
      name: ${JSON.stringify(impersonation.proxySecret.name)}
      key: ${impersonation.proxySecret.key}
    proxySecretHeader: ${impersonation.proxySecretHeader}`;
  },
  schema: {
    properties: {
      auth: { enum: [...AUTH_MODES], description: 'With whose rights the UI acts: users\u2019 tokens, impersonated users, or its own ServiceAccount.' },
      impersonation: strictSchema({
        userHeader: { type: 'string', pattern: HEADER_NAME, description: 'The header the proxy names the user in.' },
        users: { type: 'array', uniqueItems: true, items: { type: 'string', minLength: 1, not: { pattern: '^system:' } }, description: 'The only users the UI may impersonate.' },
        proxySecret: strictSchema({ name: { type: 'string', description: 'The Secret holding the proxy\u2019s secret.' }, key: { type: 'string', minLength: 1 } }),
        proxySecretHeader: { type: 'string', pattern: HEADER_NAME, description: 'The header the proxy sends its secret in.' },
      }),
    },
    // Impersonation needs its users and the proxy's Secret.
    rules: {
      if: { properties: { auth: { const: 'impersonate' } } },
      then: { properties: { impersonation: { properties: { users: { minItems: 1 }, proxySecret: { properties: { name: { minLength: 1, pattern: DNS_SUBDOMAIN } } } } } } },
    },
  },
  companion: (options) => (bundle, where) => new GuitarUi(bundle, 'ui', { ...options, ...where }),
  // The modes other than the default (users' tokens): an object of the UI differs by ui.auth, or exists in one mode only.
  modes: (helm) => {
    const impersonation = (key: string) => helm.value(`{{ .Values.ui.impersonation.${key} }}`);
    return [
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
  },
  // Impersonating, the users come from the values: the Deployment's flag and the ClusterRole's resourceNames.
  valuePatches: (helm: HelmExpressions) => {
    const usersArg = helm.listItems(['- {{ printf "--impersonate-users=%s" (join "," .Values.ui.impersonation.users) | quote }}']);
    const userItems = helm.listItems(['{{- range .Values.ui.impersonation.users }}', '- {{ . | quote }}', '{{- end }}']);
    return (objects) => {
      const patches = new Map<KubeJson, JsonPatch[]>();
      const deployment = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === UI_NAME) as (KubeJson & { spec: { template: { spec: { containers: { args: string[] }[] } } } }) | undefined;
      const users = deployment?.spec.template.spec.containers[0].args.findIndex((arg) => arg.startsWith('--impersonate-users=')) ?? -1;
      if (users < 0) return patches;
      patches.set(deployment!, [JsonPatch.replace(`/spec/template/spec/containers/0/args/${users}`, usersArg)]);
      const role = objects.find((o) => o.kind === 'ClusterRole' && o.metadata.name === PRODUCT_NAMES.role(UI_NAME));
      if (role) patches.set(role, [JsonPatch.replace('/rules/0/resourceNames', [userItems])]);
      return patches;
    };
  },
  notes: (namespace) => `  kubectl -n ${namespace} port-forward service/${UI_NAME} 8081:80      # the guitar UI: http://localhost:8081
{{- if eq .Values.ui.auth "token" }}
  kubectl create token <service-account> -n <namespace>          # a token to sign in to the UI with
{{- end }}
`,
};
