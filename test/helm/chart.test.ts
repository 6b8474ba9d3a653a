import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { parse } from 'yaml';
import { KubeObject } from '../../src/kube/objects';
import { allIdentities } from '../../src/core/groups';
import { KINDS } from '../../src/kinds';
import { toolsBeforeAll } from '../support/go-tool';
import { DIST, loadYaml } from '../support/manifests';
import { CHART, helm, helmBinary, helmTemplate } from './helm';
import { App } from 'cdk8s';
import { buildApp, operatorChart } from '../../src/app';
import { GuitarUiOptions } from '../../src/ui/install';

toolsBeforeAll(helmBinary);

type Container = { name: string; image: string; imagePullPolicy: string; args: string[]; resources: unknown };
type Rule = { resources: string[] };
const version = (parse(readFileSync(join(CHART, 'Chart.yaml'), 'utf8')) as { appVersion: string }).appVersion;
const id = (o: KubeObject) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;
const find = (objects: KubeObject[], kind: string, name: string) => objects.find((o) => o.kind === kind && o.metadata.name === name);
const controllerOf = (objects: KubeObject[]) => {
  const deployment = find(objects, 'Deployment', 'controller') as (KubeObject & { spec: { replicas: number; template: { spec: { containers: Container[] } } } }) | undefined;
  if (!deployment) throw new Error('no controller Deployment rendered');
  return { replicas: deployment.spec.replicas, container: deployment.spec.template.spec.containers[0] };
};
const rulesOf = (objects: KubeObject[], name: string) => (find(objects, 'ClusterRole', name) as (KubeObject & { rules: Rule[] }) | undefined)?.rules;

describe('dist/helm with the real helm', () => {
  it('passes helm lint --strict', () => {
    const run = helm(['lint', '--strict', CHART]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('1 chart(s) linted, 0 chart(s) failed');
  });

  it('renders, with its default values, exactly dist/\u2019s CRDs (kept on uninstall) and operator', () => {
    const rendered = helmTemplate();
    const expected = [
      ...loadYaml(join(DIST, '0-crds.k8s.yaml')).map((crd) => ({ ...crd, metadata: { ...crd.metadata, annotations: { ...(crd.metadata.annotations as Record<string, string>), 'helm.sh/resource-policy': 'keep' } } })),
      ...loadYaml(join(DIST, '1-operator.k8s.yaml')),
    ];
    expect(rendered.map(id).sort()).toEqual(expected.map(id).sort());
    for (const object of expected) expect(rendered.find((o) => id(o) === id(object))).toEqual(object);
  });

  it('renders with webhookCertificates=cert-manager exactly what synth --webhook-certificates=cert-manager writes', () => {
    const rendered = helmTemplate('--set', 'webhookCertificates=cert-manager');
    const [crds, operator] = buildApp(new App(), { instances: [], webhookCertificates: 'cert-manager' }).map((chart) => chart.toJson() as KubeObject[]);
    const expected = [...crds.map((crd) => ({ ...crd, metadata: { ...crd.metadata, annotations: { ...(crd.metadata.annotations as Record<string, string>), 'helm.sh/resource-policy': 'keep' } } })), ...operator];
    expect(rendered.map(id).sort()).toEqual(expected.map(id).sort());
    for (const object of expected) expect(rendered.find((o) => id(o) === id(object))).toEqual(object);
    expect(rendered.filter((o) => o.apiVersion === 'cert-manager.io/v1').length).toBe(5);
  });

  it('takes the image, pull policy, replicas and resources from the values', () => {
    const resources = { requests: { cpu: '250m', memory: '256Mi' }, limits: { cpu: '2', memory: '1Gi' } };
    const valuesFile = join(mkdtempSync(join(tmpdir(), 'helm-values-')), 'values.yaml');
    writeFileSync(valuesFile, JSON.stringify({ image: { repository: 'registry.example/team/controller', tag: '1.2.3', pullPolicy: 'Always' }, replicas: 3, resources }));
    const rendered = helmTemplate('-f', valuesFile);
    const { replicas, container } = controllerOf(rendered);
    expect(replicas).toBe(3);
    expect(container).toMatchObject({ image: 'registry.example/team/controller:1.2.3', imagePullPolicy: 'Always', resources });
    // The UI runs the same image.
    const ui = find(rendered, 'Deployment', 'guitar-ui') as unknown as { spec: { template: { spec: { containers: Container[] } } } };
    expect(ui.spec.template.spec.containers[0]).toMatchObject({ image: 'registry.example/team/controller:1.2.3', imagePullPolicy: 'Always' });
    // An empty tag is the chart's appVersion.
    expect(controllerOf(helmTemplate('--set', 'image.tag=')).container.image).toBe(`cdk8s-operators/controller:${version}`);
    // A digest pins both Deployments to exactly that image.
    const digest = `sha256:${'0f'.repeat(32)}`;
    const pinned = helmTemplate('--set', `image.digest=${digest}`);
    expect(controllerOf(pinned).container.image).toBe(`cdk8s-operators/controller:${version}@${digest}`);
    expect((find(pinned, 'Deployment', 'guitar-ui') as unknown as { spec: { template: { spec: { containers: Container[] } } } }).spec.template.spec.containers[0].image).toBe(`cdk8s-operators/controller:${version}@${digest}`);
  });

  it('serves metrics in plain HTTP only with metrics.secure=false, admits the namespaces metrics.namespaceSelector selects, and the webhook\u2019s peers webhook.from names', () => {
    const policyOf = (objects: typeof plain) => find(objects, 'NetworkPolicy', 'controller') as unknown as { spec: { ingress: { from?: unknown[]; ports: { port: number }[] }[] } };
    const ruleFor = (objects: typeof plain, port: number) => policyOf(objects).spec.ingress.find((r) => r.ports.some((p) => p.port === port));
    const plain = helmTemplate();
    expect(controllerOf(plain).container.args).not.toContain('--metrics-secure=false');
    // cert-manager's certificate for /metrics goes with HTTPS only: plain HTTP asks for none.
    expect(controllerOf(helmTemplate('--set', 'webhookCertificates=cert-manager')).container.args).toContain('--metrics-certificates=cert-manager');
    const plainCertManager = controllerOf(helmTemplate('--set', 'webhookCertificates=cert-manager', '--set', 'metrics.secure=false')).container.args;
    expect([plainCertManager.includes('--metrics-secure=false'), plainCertManager.includes('--metrics-certificates=cert-manager')]).toEqual([true, false]);
    expect(ruleFor(plain, 9443)).toEqual({ ports: [{ port: 9443, protocol: 'TCP' }] });
    const rendered = helmTemplate('--set', 'metrics.secure=false', '--set', 'metrics.namespaceSelector.matchLabels.team=monitoring', '--set', 'webhook.from[0].ipBlock.cidr=10.0.0.0/24');
    expect(controllerOf(rendered).container.args).toContain('--metrics-secure=false');
    expect(ruleFor(rendered, 8443)?.from).toEqual([{ namespaceSelector: { matchLabels: { metrics: 'enabled', team: 'monitoring' } } }]);
    expect(ruleFor(rendered, 9443)).toEqual({ from: [{ ipBlock: { cidr: '10.0.0.0/24' } }], ports: [{ port: 9443, protocol: 'TCP' }] });
  });

  it('adds extraImages to the images every controller policy admits, and changes nothing else', () => {
    const plain = helmTemplate();
    const rendered = helmTemplate('--set', 'extraImages={registry.example.com:5000/library/postgres,super-great-docker-image}');
    const images = (objects: KubeObject[]) =>
      objects
        .filter((o) => o.kind === 'ValidatingAdmissionPolicy')
        .flatMap((o) => ((o as unknown as { spec: { variables?: { name: string; expression: string }[] } }).spec.variables ?? []).filter((v) => v.name === 'images').map((v) => v.expression));
    expect(images(plain)).toEqual(Array(3).fill('["busybox","postgres","registry"]'));
    expect(images(rendered)).toEqual(Array(3).fill('["busybox","postgres","registry","registry.example.com:5000/library/postgres","super-great-docker-image"]'));
    expect(rendered.filter((o) => !isDeepStrictEqual(o, plain.find((p) => id(p) === id(o)))).map(id)).toEqual([
      'ValidatingAdmissionPolicy//cdk8s-operators-controller-pods',
      'ValidatingAdmissionPolicy//cdk8s-operators-controller-workloads',
      'ValidatingAdmissionPolicy//cdk8s-operators-controller-cronjobs',
    ]);
  });

  it('passes the kinds, namespaces and Secret copying to the controller, and grants Secret access only with secretCopy', () => {
    const plain = helmTemplate();
    expect(controllerOf(plain).container.args).toEqual(['controller', '--leader-election-namespace=cdk8s-operators', '--leader-election-lease=cdk8s-operators-leader', '--http-port=8080', '--metrics-port=8443', '--conversion-webhook=true', '--webhook-port=9443']);

    const rendered = helmTemplate('--set', 'secretCopy=true', '--set', 'kinds={copyrators,exchangerates}', '--set', 'watchNamespaces={team-a,team-b}');
    expect(controllerOf(rendered).container.args.slice(7)).toEqual(['--enable-secrets', '--kinds=copyrators,exchangerates', '--namespace=team-a,team-b']);
    expect(rulesOf(rendered, 'cdk8s-operators:copyrators')?.find((r) => r.resources.includes('configmaps'))?.resources).toEqual(['configmaps', 'secrets']);
    expect(rulesOf(plain, 'cdk8s-operators:copyrators')?.find((r) => r.resources.includes('configmaps'))?.resources).toEqual(['configmaps']);
    // Secret copying changes the copyrators' ClusterRole and the controller's flags, nothing else.
    const withSecrets = helmTemplate('--set', 'secretCopy=true');
    expect(withSecrets.filter((o) => !isDeepStrictEqual(o, plain.find((p) => id(p) === id(o)))).map(id)).toEqual(['ClusterRole//cdk8s-operators:copyrators', 'Deployment/cdk8s-operators/controller']);
  });

  it('passes the kinds\u2019 install values to the controller as flags (the copyrator administrator step), changing nothing else', () => {
    const plain = helmTemplate();
    const rendered = helmTemplate('--set', 'copyratorTrustedNamespaces={platform,team-*}');
    expect(controllerOf(rendered).container.args).toContain('--copyrator-trusted-namespaces=platform,team-*');
    expect(controllerOf(plain).container.args.some((a) => a.startsWith('--copyrator-trusted-namespaces'))).toBe(false);
    expect(rendered.filter((o) => !isDeepStrictEqual(o, plain.find((p) => id(p) === id(o)))).map(id)).toEqual(['Deployment/cdk8s-operators/controller']);
  });

  it('grants no RBAC for a kind not served, nor installs what only that kind needs; keeps every CRD, which the controller still converts and migrates', () => {
    const rendered = helmTemplate('--set', 'kinds={exchangerates}');
    const served = rendered.filter((o) => o.kind === 'ClusterRole' && /^cdk8s-operators:[a-z]+s$/.test(o.metadata.name)).map((o) => o.metadata.name);
    expect(served).toEqual(['cdk8s-operators:exchangerates']);
    expect(rendered.filter((o) => o.kind === 'ClusterRoleBinding').map((o) => o.metadata.name).sort()).toEqual(['cdk8s-operators:controller', 'cdk8s-operators:conversion-webhook', 'cdk8s-operators:exchangerates', 'cdk8s-operators:metrics-auth', 'cdk8s-operators:storage-migration']);
    // registrymirrors' namespace and Role there, and the guitar UI, go with their kinds.
    expect(rendered.filter((o) => o.metadata.namespace === 'registry-mirrors' || o.metadata.name === 'registry-mirrors')).toEqual([]);
    expect(rendered.filter((o) => o.metadata.name.includes('guitar-ui'))).toEqual([]);
    expect(rendered.filter((o) => o.kind === 'CustomResourceDefinition')).toHaveLength(allIdentities(KINDS).length);
    // Users keep view and edit on every kind whose CRD is installed, in each of its groups.
    expect(rulesOf(rendered, 'cdk8s-operators:view')).toEqual(rulesOf(helmTemplate(), 'cdk8s-operators:view'));
    expect(rulesOf(rendered, 'cdk8s-operators:copyrators.flant.com:view')).toEqual(rulesOf(helmTemplate(), 'cdk8s-operators:copyrators.flant.com:view'));
    expect(rulesOf(rendered, 'cdk8s-operators:copyrators.flant.com')).toBeUndefined();
  });

  it('serves every extra group by default, and leaves one out with withoutExtraGroups: no CRD, no RBAC, the controller told', () => {
    const plain = helmTemplate();
    expect(plain.filter((o) => o.kind === 'CustomResourceDefinition').map((o) => o.metadata.name)).toEqual(expect.arrayContaining(['copyrators.flant.com', 'databases.stable.imaginedata.co']));
    const rendered = helmTemplate('--set', 'withoutExtraGroups={copyrators.flant.com}');
    const gone = plain.filter((o) => !rendered.some((r) => id(r) === id(o)));
    expect(gone.map(id).sort()).toEqual([
      'ClusterRole//cdk8s-operators:copyrators.flant.com',
      'ClusterRole//cdk8s-operators:copyrators.flant.com:edit',
      'ClusterRole//cdk8s-operators:copyrators.flant.com:view',
      'ClusterRoleBinding//cdk8s-operators:copyrators.flant.com',
      'CustomResourceDefinition//copyrators.flant.com',
    ]);
    expect(controllerOf(rendered).container.args.slice(7)).toEqual(['--without-extra-groups=copyrators.flant.com']);
    // Nothing else changes.
    expect(rendered.filter((o) => o.kind !== 'Deployment' || o.metadata.name !== 'controller').every((o) => isDeepStrictEqual(o, plain.find((p) => id(p) === id(o))))).toBe(true);
    const both = helmTemplate('--set', 'withoutExtraGroups={copyrators.flant.com,databases.stable.imaginedata.co}');
    expect(controllerOf(both).container.args.slice(7)).toEqual(['--without-extra-groups=copyrators.flant.com,databases.stable.imaginedata.co']);
    expect(both.filter((o) => o.kind === 'CustomResourceDefinition')).toHaveLength(KINDS.length);
  });

  it('leaves the guitar UI out with ui.enabled=false, and only it', () => {
    const plain = helmTemplate();
    const rendered = helmTemplate('--set', 'ui.enabled=false');
    const ui = plain.filter((o) => !rendered.some((r) => id(r) === id(o)));
    expect(ui.map(id).sort()).toEqual([
      'Deployment/cdk8s-operators/guitar-ui',
      'NetworkPolicy/cdk8s-operators/guitar-ui',
      'PodDisruptionBudget/cdk8s-operators/guitar-ui',
      'Service/cdk8s-operators/guitar-ui',
      'ServiceAccount/cdk8s-operators/guitar-ui',
    ]);
    expect(rendered.every((o) => isDeepStrictEqual(o, plain.find((p) => id(p) === id(o))))).toBe(true);
  });

  it('renders each ui.auth mode as synth\u2019s GuitarUi renders it: no RBAC with users\u2019 tokens, impersonation of the listed users only, or the ServiceAccount\u2019s own access', () => {
    const uiOf = (objects: KubeObject[]) => objects.filter((o) => o.metadata.name.endsWith('guitar-ui')).sort((a, b) => id(a).localeCompare(id(b)));
    const synthUi = (uiOptions: GuitarUiOptions) => uiOf(operatorChart(new App(), { kinds: KINDS, companionOptions: { ui: uiOptions } }).toJson() as KubeObject[]);
    expect(uiOf(helmTemplate()).map(id)).not.toContain('ClusterRole//cdk8s-operators:guitar-ui');
    expect(uiOf(helmTemplate('--set', 'ui.auth=service-account'))).toEqual(synthUi({ auth: 'service-account' }));
    const impersonation = { userHeader: 'X-Auth-Request-User', users: ['alice', 'bob@example.com'], proxySecret: { name: 'ui-proxy', key: 'token' }, proxySecretHeader: 'X-From-Proxy' };
    const valuesFile = join(mkdtempSync(join(tmpdir(), 'helm-values-')), 'values.yaml');
    writeFileSync(valuesFile, JSON.stringify({ ui: { auth: 'impersonate', impersonation } }));
    const impersonating = uiOf(helmTemplate('-f', valuesFile));
    expect(impersonating).toEqual(synthUi({ auth: 'impersonate', impersonation }));
    expect(rulesOf(impersonating, 'cdk8s-operators:guitar-ui')).toEqual([{ apiGroups: [''], resources: ['users'], verbs: ['impersonate'], resourceNames: ['alice', 'bob@example.com'] }]);
  });

  it.each([
    [['--set', 'ui.auth=anyone'], "at '/ui/auth': value must be one of 'token', 'impersonate', 'service-account'"],
    [['--set', 'ui.auth=impersonate', '--set', 'ui.impersonation.proxySecret.name=s'], "at '/ui/impersonation/users': minItems: got 0, want 1"],
    [['--set', 'ui.auth=impersonate', '--set', 'ui.impersonation.users={alice}'], "at '/ui/impersonation/proxySecret/name'"],
    [['--set', 'ui.impersonation.users={system:admin}'], "at '/ui/impersonation/users/0'"],
    [['--set', 'ui.impersonation.userHeader=X User'], "at '/ui/impersonation/userHeader'"],
    [['--set-string', 'replicas=two'], "at '/replicas': got string, want integer"],
    [['--set', 'replicas=-1'], "at '/replicas': minimum: got -1, want 0"],
    [['--set', 'replica=3'], "additional properties 'replica' not allowed"],
    [['--set', 'image.pullPolicy=Sometimes'], "at '/image/pullPolicy': value must be one of 'Always', 'IfNotPresent', 'Never'"],
    [['--set', 'image.repository='], "at '/image/repository'"],
    [['--set', 'image.tags=1.0'], "at '/image': additional properties 'tags' not allowed"],
    [['--set', 'image.digest=sha256:0f0f'], "at '/image/digest': 'sha256:0f0f' does not match pattern"],
    [['--set', 'image.digest=1.2.3'], "at '/image/digest': '1.2.3' does not match pattern"],
    [['--set-string', 'secretCopy=yes'], "at '/secretCopy': got string, want boolean"],
    [['--set', 'kinds={exchangerate}'], `at '/kinds/0': value must be one of ${KINDS.map((k) => `'${k.plural}'`).join(', ')}`],
    [['--set', 'kinds=exchangerates'], "at '/kinds': got string, want array"],
    [['--set', 'watchNamespaces={Team_A}'], "at '/watchNamespaces/0': 'Team_A' does not match pattern"],
    [['--set', 'resources.requests.cpu=lots'], "at '/resources/requests/cpu': 'lots' does not match pattern"],
    [['--set', 'resources.limit.cpu=1'], "at '/resources': additional properties 'limit' not allowed"],
    [['--set', 'resources.limits.memory=1GB'], "at '/resources/limits/memory': '1GB' does not match pattern"],
    [['--set-string', 'ui.enabled=no'], "at '/ui/enabled': got string, want boolean"],
    [['--set', 'withoutExtraGroups={copyrators.test.com}'], "at '/withoutExtraGroups/0': value must be one of 'copyrators.flant.com', 'databases.stable.imaginedata.co'"],
    [['--set', 'withoutExtraGroups=flant.com'], "at '/withoutExtraGroups': got string, want array"],
    [['--set', 'ui.replicas=1'], "at '/ui': additional properties 'replicas' not allowed"],
    [['--set', 'copyratorTrustedNamespaces=platform'], "at '/copyratorTrustedNamespaces': got string, want array"],
    [['--set', 'webhookCertificates=vault'], "at '/webhookCertificates': value must be one of 'self', 'cert-manager'"],
    [['--set', 'extraImages={registry.example.com/pg:17}'], "at '/extraImages/0': 'registry.example.com/pg:17' does not match pattern"],
    [['--set', 'extraImages=postgres'], "at '/extraImages': got string, want array"],
  ])('refuses %j at helm template, naming the field', (args, message) => {
    const run = helm(['template', 'cdk8s-operators', CHART, ...args]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain("values don't meet the specifications of the schema");
    expect(run.stderr).toContain(message);
  });

  it('refuses a bad value at helm lint --strict too, naming the field', () => {
    const run = helm(['lint', '--strict', CHART, '--set', 'image.pullPolicy=Sometimes']);
    expect(run.code).not.toBe(0);
    expect(run.stdout + run.stderr).toContain("at '/image/pullPolicy': value must be one of");
  });

  it('says in NOTES.txt what was installed and what to run next', () => {
    const run = helm(['install', 'ops', CHART, '--dry-run=client', '--set', 'kinds={exchangerates,guitars}', '--set', 'watchNamespaces={team-a}', '--set', 'secretCopy=true']);
    expect(run.code).toBe(0);
    const notes = run.stdout.slice(run.stdout.indexOf('NOTES:'));
    expect(notes).toContain(`cdk8s-operators ${version} is installed as release ops.`);
    expect(notes).toContain('serving\nexchangerates, guitars\nin the namespaces team-a;\nSecret copying is on; every API group of every kind is served.');
    expect(notes).toContain('kubectl -n cdk8s-operators rollout status deployment/controller');
    expect(notes).toContain('kubectl get exchangerates,guitars --all-namespaces');
    expect(notes).toContain('port-forward service/guitar-ui');
    expect(helm(['install', 'ops', CHART, '--dry-run=client', '--set', 'ui.enabled=false']).stdout).not.toContain('guitar-ui 8081');
    // A bare plural two groups share means one of them to kubectl: the default lists every kind by its category instead.
    const plain = helm(['install', 'ops', CHART, '--dry-run=client', '--set', 'withoutExtraGroups={databases.stable.imaginedata.co}']).stdout;
    expect(plain).toContain('kubectl get all-operators --all-namespaces');
    expect(plain).toContain('extra API groups left out: databases.stable.imaginedata.co.');
  });
});
