import { App, Chart } from 'cdk8s';
import { ControllerPolicy } from '../../src/bundle/controller-policy';
import { OperatorBundle } from '../../src/bundle/operator';
import { AnyKind, CustomResource } from '../../src/core/contract/kind';
import { validateResource } from '../../src/core/contract/validation';
import { renderChildren } from '../../src/core/render';
import { scratchChart } from '../../src/gitops/instances';
import { KubeObject, ObjectClient } from '../../src/kube/objects';
import { KINDS } from '../../src/kinds';
import { storageMigrationApi } from '../../src/runtime/conversion/migrate';
import { createTestNamespace, deleteNamespace, eventually, testKubeConfig } from '../../src/testing/cluster';
import { testObjects } from '../support/manifests';
import { defineTestKind } from '../../src/testing/test-kind';
import { actingAs } from '../support/tenancy';
import { PRODUCT_NAMES } from '../../src/product';

// The controller's token may create workloads and Secrets in every namespace (its kinds' users
// create objects anywhere). The install's admission policy is what keeps that token from being
// cluster-admin in all but name: these tests act as the controller's ServiceAccount on the real
// API server, with the install's RBAC, and ask it for what an attacker holding the token would.

type Pod = Record<string, unknown>;
const admin = testObjects();
const kc = testKubeConfig();
const CONTROLLER = { namespace: 'cdk8s-operators', name: 'controller' };
let controller: ObjectClient;
let namespace: string;

/** The install (secret copying on: the widest RBAC), as dist/ has it, without the Deployments: the test acts as the controller itself. */
function install(): KubeObject[] {
  const chart = new Chart(new App(), 'install', { disableResourceNameHashes: true });
  new OperatorBundle(chart, 'operator', { operator: PRODUCT_NAMES, kinds: KINDS, optIns: ['secrets'] });
  return (chart.toJson() as KubeObject[]).filter((o) => o.kind !== 'Deployment');
}

const statefulSet = (name: string, pod: Pod, where = namespace): KubeObject =>
  ({
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name, namespace: where },
    spec: { serviceName: name, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: pod } },
  }) as KubeObject;
const daemonSet = (name: string, pod: Pod, where: string): KubeObject =>
  ({ apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name, namespace: where }, spec: { selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: pod } } }) as KubeObject;
const container = (extra: Record<string, unknown> = {}) => ({ name: 'main', image: 'busybox:1.37', ...extra });

/** What the API server answers the controller for a server-side dry run: admitted, or the refusal's message. */
async function asController(object: KubeObject): Promise<'admitted' | string> {
  return controller.create(object, { dryRun: true }).then(
    () => 'admitted',
    (err: Error) => err.message,
  );
}

/** Observations that bring out every child a kind renders (a Database's Secret, its upgrade and final snapshot Jobs). */
const OBSERVATIONS: Record<string, unknown[]> = {
  Database: [
    { password: 'p'.repeat(32), replicationPassword: 'r'.repeat(32), currentImage: 'postgres:16' },
    { password: 'p'.repeat(32), replicationPassword: 'r'.repeat(32), deleting: true },
  ],
};

/** Each kind's example rendered as the controller renders it, in the test's namespace. */
function examplesChildren(kinds: readonly AnyKind[]): KubeObject[] {
  const scope = scratchChart();
  return kinds.flatMap((kind) => {
    if (!kind.example) return [];
    const object = kind.example(scope, namespace).toJson() as Record<string, unknown>;
    const valid = validateResource(kind, object);
    if (!valid.ok) throw new Error(`the example of ${kind.kind} is invalid`);
    const resource = { ...object, spec: valid.spec } as unknown as CustomResource;
    return (OBSERVATIONS[kind.kind] ?? [undefined]).flatMap((observation) => renderChildren(kind, resource, observation) as KubeObject[]);
  });
}

beforeAll(async () => {
  namespace = await createTestNamespace(kc, 'fence');
  for (const object of install()) await admin.apply(object);
  controller = actingAs(admin, CONTROLLER.namespace, CONTROLLER.name).objects;
  // The API server loads a new policy from its informer: wait until it judges.
  await eventually('the controller policy to refuse a privileged container', async () =>
    /privileged/.test(await asController(statefulSet('wait', { containers: [container({ securityContext: { privileged: true } })] }))) ? true : undefined,
  );
}, 120_000);

afterAll(async () => {
  if (namespace) await deleteNamespace(kc, namespace);
});

describe('the controller, acting with its own token under the install\u2019s admission policy', () => {
  it('may not mint a ServiceAccount token: a service-account-token Secret in kube-system is refused with the policy\u2019s reason', async () => {
    const secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'stolen', namespace: 'kube-system', annotations: { 'kubernetes.io/service-account.name': 'clusterrole-aggregation-controller' } },
      type: 'kubernetes.io/service-account-token',
    } as KubeObject;
    expect(await asController(secret)).toMatch(
      /cdk8s-operators.s controller may not write secrets kube-system\/stolen: no kind renders a Secret of type kubernetes\.io\/service-account-token/,
    );
    // Its RBAC allows it (Secrets the Databases' credentials need, in every namespace): the policy is what refuses.
    expect(await asController({ ...secret, metadata: { name: 'credentials', namespace: 'kube-system' }, type: 'kubernetes.io/basic-auth', stringData: { username: 'u', password: 'p' } } as KubeObject)).toBe(
      'admitted',
    );
  });

  it('may not take a node: a privileged DaemonSet, or one on the node\u2019s network, PIDs or paths, is refused, in the mirrors\u2019 namespace too', async () => {
    const where = 'registry-mirrors';
    expect(await asController(daemonSet('root', { containers: [container({ securityContext: { privileged: true } })] }, where))).toMatch(/daemonsets registry-mirrors\/root: no container may be privileged/);
    expect(await asController(daemonSet('caps', { containers: [container({ securityContext: { capabilities: { add: ['SYS_ADMIN'] } } })] }, where))).toMatch(/no container may add capabilities/);
    expect(await asController(daemonSet('net', { hostNetwork: true, containers: [container()] }, where))).toMatch(/hostNetwork, hostPID, hostIPC/);
    expect(await asController(daemonSet('pid', { hostPID: true, containers: [container()] }, where))).toMatch(/hostNetwork, hostPID, hostIPC/);
    expect(await asController(daemonSet('port', { containers: [container({ ports: [{ containerPort: 80, hostPort: 80 }] })] }, where))).toMatch(/hostPort/);
    const hostRoot = { containers: [container({ volumeMounts: [{ name: 'root', mountPath: '/host' }] })], volumes: [{ name: 'root', hostPath: { path: '/' } }] };
    expect(await asController(daemonSet('root-fs', hostRoot, where))).toMatch(/no Pod template may mount a path of the node/);
  });

  it('admits the one declared host access only where it is declared: containerd\u2019s certs.d, by a DaemonSet in the mirrors\u2019 namespace', async () => {
    const certs = { containers: [container({ volumeMounts: [{ name: 'certs', mountPath: '/certs' }] })], volumes: [{ name: 'certs', hostPath: { path: '/etc/containerd/certs.d' } }] };
    expect(await asController(daemonSet('certs', certs, 'registry-mirrors'))).toBe('admitted');
    expect(await asController(daemonSet('certs', certs, namespace))).toMatch(/may not write daemonsets .*: no Pod template may mount a path of the node/);
    expect(await asController(statefulSet('certs', certs, 'registry-mirrors'))).toMatch(/no Pod template may mount a path of the node/);
  });

  it('runs only the images the kinds declare, in any spelling of them', async () => {
    expect(await asController(statefulSet('miner', { containers: [container({ image: 'ghcr.io/attacker/miner:1' })] }))).toMatch(
      /may not write statefulsets fence-[0-9a-f]+\/miner: a container.s image must be from one of these repositories \(any tag or digest\): busybox, postgres, registry/,
    );
    expect(await asController(statefulSet('lookalike', { containers: [container({ image: 'postgres-evil:17' })] }))).toMatch(/image must be from one of these repositories/);
    expect(await asController(statefulSet('init', { initContainers: [container({ name: 'init', image: 'attacker/busybox' })], containers: [container()] }))).toMatch(/image must be from one of these repositories/);
    for (const image of ['postgres:17', 'docker.io/library/postgres:17.2-alpine', 'library/postgres@sha256:' + 'a'.repeat(64), 'busybox']) {
      expect({ image, answer: await asController(statefulSet('declared', { containers: [container({ image })] })) }).toEqual({ image, answer: 'admitted' });
    }
  });

  it('runs Pods as no other ServiceAccount and creates none', async () => {
    expect(await asController(statefulSet('borrowed', { serviceAccountName: 'deployer', containers: [container()] }))).toMatch(/a Pod template may run as default only/);
    // Its RBAC refuses first (no kind manages ServiceAccounts); the policy would refuse one no kind declares, should a kind's RBAC ever grant it.
    expect(await asController({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'mine', namespace } } as KubeObject)).toMatch(/HTTP 403: serviceaccounts is forbidden/);
  });

  it('still writes every child the kinds render for their examples (Secrets, Services, StatefulSets, DaemonSets, Jobs, CronJobs, NetworkPolicies)', async () => {
    const children = examplesChildren(KINDS);
    expect(new Set(children.map((c) => c.kind))).toEqual(new Set(['ConfigMap', 'Secret', 'Service', 'StatefulSet', 'NetworkPolicy', 'Job', 'PersistentVolumeClaim', 'CronJob', 'DaemonSet']));
    const answers = await Promise.all(children.map(async (child) => ({ child: `${child.kind} ${child.metadata.namespace}/${child.metadata.name}`, answer: await asController(child) })));
    expect(answers.filter((a) => a.answer !== 'admitted')).toEqual([]);
  });

  it('asks the cluster to migrate the storage of its own resources only (StorageVersionMigration, where the cluster serves it)', async () => {
    const api = await storageMigrationApi(admin.rest);
    // Kubernetes 1.37 serves it by default; on 1.36 there is nothing to ask (the smoke on 1.36 runs this file).
    if (!api) return;
    const migration = (name: string, group: string, resource: string) =>
      ({ apiVersion: api.groupVersion, kind: 'StorageVersionMigration', metadata: { name }, spec: { resource: { group, resource } } }) as unknown as KubeObject;
    const database = KINDS.find((k) => k.kind === 'Database')!;
    expect(await asController(migration('own', database.group, database.plural))).toBe('admitted');
    // Its RBAC allows any (create cannot be limited by name): the policy is what refuses.
    // (1.37.2 answers with the policy's message rather than its messageExpression here.)
    expect(await asController(migration('secrets', '', 'secrets'))).toMatch(
      /denied request: cdk8s-operators.s controller may not write (storageversionmigrations secrets|this): a StorageVersionMigration may migrate its kinds. resources only: flant.com\/copyrators, /,
    );
    expect(await asController(migration('guitars', 'kool.karmalabs.local', 'guitars'))).toMatch(/may migrate its kinds. resources only/);
  });

  it('judges no one else: the same privileged DaemonSet is the admin\u2019s to create', async () => {
    expect(await admin.create(daemonSet('root', { containers: [container({ securityContext: { privileged: true } })] }, 'registry-mirrors'), { dryRun: true })).toBeDefined();
  });

  it('compiles: the API server type-checks every expression against the resources it matches without a warning', async () => {
    const policies = install().filter((o) => o.kind === 'ValidatingAdmissionPolicy');
    expect(policies.map((p) => p.metadata.name).sort()).toEqual([
      'cdk8s-operators-controller-cronjobs',
      'cdk8s-operators-controller-pods',
      'cdk8s-operators-controller-secrets',
      'cdk8s-operators-controller-serviceaccounts',
      'cdk8s-operators-controller-storage-migrations',
      'cdk8s-operators-controller-workloads',
    ]);
    for (const policy of policies) {
      const checked = await eventually(`the type check of ${policy.metadata.name}`, async () => {
        const live = await admin.get<KubeObject & { status?: { observedGeneration?: number; typeChecking?: { expressionWarnings?: unknown[] } } }>(policy);
        return live.status?.typeChecking ? live : undefined;
      });
      expect({ policy: policy.metadata.name, warnings: checked.status?.typeChecking?.expressionWarnings ?? [] }).toEqual({ policy: policy.metadata.name, warnings: [] });
    }
  });
});

describe('a kind\u2019s declarations, generically', () => {
  it('become the policy: a test kind\u2019s images, ServiceAccounts and host paths, and nothing of a kind it does not serve', () => {
    const kind = defineTestKind('Fenced', {
      render: () => undefined,
      renders: { images: ['example.com/team/app:1'], serviceAccounts: ['worker'], hostAccess: [{ resource: 'daemonsets', namespace: 'node-agents', hostPaths: ['/var/log'], reason: 'reads the node\u2019s logs' }] },
    });
    const chart = new Chart(new App(), 'policy');
    new ControllerPolicy(chart, 'policy', { names: PRODUCT_NAMES, kinds: [kind], serviceAccount: { namespace: 'ops', name: 'ctl' }, extraImages: ['registry.example.com/pg@sha256:' + 'b'.repeat(64)] });
    const objects = chart.toJson() as { kind: string; metadata: { name: string }; spec: { matchConditions: { expression: string }[]; variables: { name: string; expression: string }[]; validations: { expression: string; message: string }[] } }[];
    const policy = objects.find((o) => o.metadata.name === 'cdk8s-operators-controller-workloads')!;
    expect(objects.filter((o) => o.kind === 'ValidatingAdmissionPolicyBinding').length).toBe(5);
    expect(policy.spec.matchConditions[0].expression).toBe("request.userInfo.username == 'system:serviceaccount:ops:ctl'");
    const variable = (name: string) => policy.spec.variables.find((v) => v.name === name)!.expression;
    expect(variable('images')).toBe('["example.com/team/app","registry.example.com/pg"]');
    expect(variable('serviceAccounts')).toBe("['default', 'worker']");
    expect(policy.spec.validations.map((v) => v.expression).join('\n')).toContain("request.namespace == 'node-agents' && request.resource.resource == 'daemonsets' && v.hostPath.path in ['/var/log']");
    expect(policy.spec.validations.map((v) => v.message).join('\n')).toContain('daemonsets in node-agents: /var/log (reads the node\u2019s logs)');
    expect(JSON.stringify(policy)).not.toMatch(/postgres|busybox|registry-mirrors/);
  });
});
