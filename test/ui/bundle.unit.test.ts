import { App, Chart, Testing } from 'cdk8s';
import { OperatorBundle } from '../../src/bundle/operator';
import { KINDS } from '../../src/kinds';
import { GuitarUi, GuitarUiOptions } from '../../src/ui/install';
import { PRODUCT_NAMES } from '../../src/product';

type Manifest = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The bundle with the UI beside the controller, as src/app.ts assembles it; false: without. */
function bundle(ui: GuitarUiOptions | false = {}): Manifest[] {
  const chart = new Chart(Testing.app() as App, 'test', { disableResourceNameHashes: true });
  new OperatorBundle(chart, 'operator', { operator: PRODUCT_NAMES, kinds: KINDS, companions: ui === false ? [] : [(scope, where) => new GuitarUi(scope, 'ui', { ...ui, ...where })] });
  return chart.toJson();
}
const ui = (objects: Manifest[]) => objects.filter((o) => o.metadata?.name?.endsWith('guitar-ui'));

describe('the guitar UI in the bundle', () => {
  it('acts with users\u2019 tokens by default: no RBAC and no token of its own, only the API server\u2019s CA', () => {
    const objects = ui(bundle());
    expect(objects.map((o) => o.kind).sort()).toEqual(['Deployment', 'NetworkPolicy', 'PodDisruptionBudget', 'Service', 'ServiceAccount']);
    expect(objects.find((o) => o.kind === 'ServiceAccount')!.automountServiceAccountToken).toBe(false);
    const pod = objects.find((o) => o.kind === 'Deployment')!.spec.template.spec;
    expect(pod.serviceAccountName).toBe('guitar-ui');
    expect(pod.automountServiceAccountToken).toBe(false);
    expect(pod.volumes).toEqual([{ name: 'api-server-ca', projected: { sources: [{ configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } }] } }]);
    expect(pod.containers[0].volumeMounts).toEqual([{ name: 'api-server-ca', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount', readOnly: true }]);
    expect(pod.containers[0].args).toEqual(['ui', '--port=8080']);
    expect(pod.containers[0].securityContext).toMatchObject({ runAsNonRoot: true, readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } });
  });

  it('as its own ServiceAccount (opt-in) gets exactly get, list, watch, create and delete on guitars, by Role where limited to namespaces', () => {
    const everywhere = ui(bundle({ auth: 'service-account' }));
    expect(everywhere.find((o) => o.kind === 'ClusterRole')!.rules).toEqual([{ apiGroups: ['kool.karmalabs.local'], resources: ['guitars'], verbs: ['get', 'list', 'watch', 'create', 'delete'] }]);
    expect(everywhere.find((o) => o.kind === 'ClusterRoleBinding')!.subjects).toEqual([{ kind: 'ServiceAccount', name: 'guitar-ui', namespace: 'cdk8s-operators' }]);
    expect(everywhere.find((o) => o.kind === 'Deployment')!.spec.template.spec.containers[0].args).toEqual(['ui', '--port=8080', '--auth=service-account']);
    const objects = ui(bundle({ auth: 'service-account', namespaces: ['band', 'studio'] }));
    expect(objects.filter((o) => o.kind === 'ClusterRole')).toEqual([]);
    expect(objects.filter((o) => o.kind === 'Role').map((o) => o.metadata.namespace)).toEqual(['band', 'studio']);
    expect(objects.find((o) => o.kind === 'Deployment')!.spec.template.spec.containers[0].args).toEqual(['ui', '--port=8080', '--namespace=band,studio', '--auth=service-account']);
  });

  it('behind a proxy may impersonate only the listed users, with the proxy\u2019s secret from a Secret file', () => {
    const proxy = [{ podSelector: { matchLabels: { app: 'oauth2-proxy' } } }];
    const impersonation = { userHeader: 'X-Forwarded-User', users: ['alice', 'bob'], proxySecret: { name: 'ui-proxy', key: 'secret' } };
    const objects = ui(bundle({ auth: 'impersonate', impersonation, allowFrom: proxy }));
    expect(objects.find((o) => o.kind === 'ClusterRole')!.rules).toEqual([{ apiGroups: [''], resources: ['users'], verbs: ['impersonate'], resourceNames: ['alice', 'bob'] }]);
    const pod = objects.find((o) => o.kind === 'Deployment')!.spec.template.spec;
    expect(pod.containers[0].args).toEqual([
      'ui',
      '--port=8080',
      '--auth=impersonate',
      '--user-header=X-Forwarded-User',
      '--impersonate-users=alice,bob',
      '--proxy-secret-file=/etc/guitar-ui/proxy/secret',
      '--proxy-secret-header=X-Proxy-Secret',
      '--trust-proxy=true',
    ]);
    expect(pod.volumes).toEqual([{ name: 'proxy-secret', secret: { secretName: 'ui-proxy', items: [{ key: 'secret', path: 'secret' }] } }]);
    expect(JSON.stringify(pod.containers[0].env ?? [])).not.toContain('secret');
    expect(objects.find((o) => o.kind === 'NetworkPolicy')!.spec.ingress).toEqual([{ from: proxy, ports: [{ port: 8080, protocol: 'TCP' }] }]);
    expect(() => bundle({ auth: 'impersonate' })).toThrow(/ui.impersonation: required with ui.auth impersonate/);
    expect(() => bundle({ impersonation })).toThrow(/ui.impersonation: only taken with ui.auth impersonate \(got token\)/);
  });

  it('lets the UI reach nothing but DNS and the API server', () => {
    const policy = ui(bundle()).find((o) => o.kind === 'NetworkPolicy')!;
    expect(policy.spec.egress.flatMap((e: Manifest) => e.ports.map((p: Manifest) => `${p.protocol}/${p.port}`)).sort()).toEqual(['TCP/443', 'TCP/53', 'TCP/6443', 'UDP/53']);
  });

  it('can be left out', () => {
    expect(ui(bundle(false))).toEqual([]);
  });
});
