import { App, Chart, Testing } from 'cdk8s';
import { OperatorBundle } from '../../src/bundle/operator';
import { KINDS } from '../../src/kinds';
import { GuitarUi, GuitarUiOptions } from '../../src/ui/install';

type Manifest = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The bundle with the UI beside the controller, as src/main.ts assembles it; false: without. */
function bundle(ui: GuitarUiOptions | false = {}): Manifest[] {
  const chart = new Chart(Testing.app() as App, 'test', { disableResourceNameHashes: true });
  new OperatorBundle(chart, 'operator', { kinds: KINDS, companions: ui === false ? [] : [(scope, where) => new GuitarUi(scope, 'ui', { ...ui, ...where })] });
  return chart.toJson();
}
const ui = (objects: Manifest[]) => objects.filter((o) => o.metadata?.name?.endsWith('guitar-ui'));

describe('the guitar UI in the bundle', () => {
  it('gets its own ServiceAccount with exactly get, list, watch, create and delete on guitars', () => {
    const objects = ui(bundle());
    expect(objects.map((o) => o.kind).sort()).toEqual(['ClusterRole', 'ClusterRoleBinding', 'Deployment', 'NetworkPolicy', 'PodDisruptionBudget', 'Service', 'ServiceAccount']);
    expect(objects.find((o) => o.kind === 'ClusterRole')!.rules).toEqual([{ apiGroups: ['kool.karmalabs.local'], resources: ['guitars'], verbs: ['get', 'list', 'watch', 'create', 'delete'] }]);
    expect(objects.find((o) => o.kind === 'ClusterRoleBinding')!.subjects).toEqual([{ kind: 'ServiceAccount', name: 'guitar-ui', namespace: 'cdk8s-operators' }]);
    const pod = objects.find((o) => o.kind === 'Deployment')!.spec.template.spec;
    expect(pod.serviceAccountName).toBe('guitar-ui');
    expect(pod.containers[0].args).toEqual(['ui', '--port=8080']);
    expect(pod.containers[0].securityContext).toMatchObject({ runAsNonRoot: true, readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } });
  });

  it('grants guitar access by Role in each namespace when limited to some', () => {
    const objects = ui(bundle({ namespaces: ['band', 'studio'] }));
    expect(objects.filter((o) => o.kind === 'ClusterRole')).toEqual([]);
    expect(objects.filter((o) => o.kind === 'Role').map((o) => o.metadata.namespace)).toEqual(['band', 'studio']);
    expect(objects.find((o) => o.kind === 'Deployment')!.spec.template.spec.containers[0].args).toEqual(['ui', '--port=8080', '--namespace=band,studio']);
  });

  it('behind a proxy may only impersonate users, and admits only the proxy', () => {
    const proxy = [{ podSelector: { matchLabels: { app: 'oauth2-proxy' } } }];
    const objects = ui(bundle({ userHeader: 'X-Forwarded-User', allowFrom: proxy }));
    expect(objects.find((o) => o.kind === 'ClusterRole')!.rules).toEqual([{ apiGroups: [''], resources: ['users'], verbs: ['impersonate'] }]);
    expect(objects.find((o) => o.kind === 'Deployment')!.spec.template.spec.containers[0].args).toEqual(['ui', '--port=8080', '--user-header=X-Forwarded-User', '--trust-proxy=true']);
    expect(objects.find((o) => o.kind === 'NetworkPolicy')!.spec.ingress).toEqual([{ from: proxy, ports: [{ port: 8080, protocol: 'TCP' }] }]);
    expect(() => bundle({ userHeader: 'X-Forwarded-User' })).toThrow(/ui.allowFrom: required with ui.userHeader/);
  });

  it('lets the UI reach nothing but DNS and the API server', () => {
    const policy = ui(bundle()).find((o) => o.kind === 'NetworkPolicy')!;
    expect(policy.spec.egress.flatMap((e: Manifest) => e.ports.map((p: Manifest) => `${p.protocol}/${p.port}`)).sort()).toEqual(['TCP/443', 'TCP/53', 'TCP/6443', 'UDP/53']);
  });

  it('can be left out', () => {
    expect(ui(bundle(false))).toEqual([]);
  });
});
