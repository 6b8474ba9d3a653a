import { ApiObject } from 'cdk8s';
import { crdManifest } from '../../src/bundle/crd';
import { OperatorIdentity, OperatorNames, operatorNames } from '../../src/core/install/identity';
import { AnyKind, KubeJson } from '../../src/core/contract/kind';
import { crdName } from '../../src/core/groups';
import { createManager, ManagedFieldsEntry } from '../../src/kube/create-then-apply';
import { KubeObject } from '../../src/kube/objects';
import { KubeRest } from '../../src/kube/rest';
import { PRODUCT_IDENTITY, PRODUCT_NAMES } from '../../src/product';
import { runController } from '../../src/commands/controller';
import { createTestNamespace, deleteNamespace, eventually, testKubeConfig } from '../../src/testing/cluster';
import { testObjects } from '../support/manifests';
import { childrenOf, defineVersionedTestKind } from '../../src/testing/test-kind';
import { freePort } from '../../src/testing/controlplane/processes';

// Two operators built on the engine, each with an identity of its own and a kind of its own,
// run side by side in one namespace of one control plane, as two apps' `controller` commands
// would (runController with the app's identity; the second renamed by --operator-name). Each
// serves its kind's conversion too, so each keeps a webhook Secret.

const ACME: OperatorIdentity = { ...PRODUCT_IDENTITY, name: 'acme-operators' };
const kc = testKubeConfig();
const rest = new KubeRest(kc);
const objects = testObjects();

/** A kind with versions (so that its operator serves conversion) rendering one ConfigMap. */
const kindOf = (name: string) =>
  defineVersionedTestKind(name, {
    manages: [childrenOf('', 'configmaps')],
    render: (scope, resource) => void new ApiObject(scope, 'config', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: resource.metadata.name }, data: { size: String(resource.spec.size) } }),
  });

interface Running {
  readonly names: OperatorNames;
  readonly kind: AnyKind;
  readonly metricsPort: number;
  readonly done: Promise<number>;
  readonly stop: () => void;
}

/** Starts one operator's controller in this process: its kind's CRD points at its own webhook. */
async function startOperator(identity: OperatorIdentity, kind: AnyKind, namespace: string, renamed: boolean): Promise<Running> {
  const [webhookPort, httpPort, metricsPort] = [await freePort(), await freePort(), await freePort()];
  const url = `https://127.0.0.1:${webhookPort}/convert`;
  await objects.apply(crdManifest(kind, { url }) as unknown as KubeObject);
  const args = [
    `--kubeconfig=${process.env.TEST_KUBECONFIG}`,
    ...(renamed ? [`--operator-name=${identity.name}`] : []),
    `--namespace=${namespace}`,
    `--leader-election-namespace=${namespace}`,
    `--http-port=${httpPort}`,
    `--metrics-port=${metricsPort}`,
    '--metrics-secure=false',
    '--conversion-webhook=true',
    `--webhook-port=${webhookPort}`,
    '--webhook-host=127.0.0.1',
    `--webhook-url=${url}`,
    '--log-level=error',
  ];
  const before = process.listeners('SIGTERM');
  // The app's identity is the product's: the second operator is the same app renamed by its flag, as its Deployment would run it.
  const done = runController(args, {}, [kind], () => undefined, PRODUCT_IDENTITY);
  // It listens for SIGTERM once its servers are up; the test stops it by that listener.
  const stop = await eventually(`${identity.name}'s controller to start`, async () => process.listeners('SIGTERM').find((l) => !before.includes(l)) as ((signal: string) => void) | undefined);
  return { names: operatorNames(identity), kind, metricsPort, done, stop: () => stop('SIGTERM') };
}

const managers = (o: KubeJson) => ((o.metadata.managedFields ?? []) as ManagedFieldsEntry[]).map((e) => e.manager ?? '');
const get = <T extends KubeJson>(path: string) => rest.request<T>('GET', path);

describe('two operators on one control plane', () => {
  let namespace: string;
  const operators: Running[] = [];

  beforeAll(async () => {
    namespace = await createTestNamespace(kc, 'two-operators');
    operators.push(await startOperator(PRODUCT_IDENTITY, kindOf('Ours'), namespace, false));
    operators.push(await startOperator(ACME, kindOf('Theirs'), namespace, true));
  });
  // The controllers stop first: with their namespace gone they would lose their Leases and exit 1.
  afterAll(async () => {
    for (const operator of operators) operator.stop();
    expect(await Promise.all(operators.map((o) => o.done))).toEqual(operators.map(() => 0));
    for (const operator of operators) await rest.request('DELETE', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crdName(operator.kind)}`);
    await deleteNamespace(kc, namespace);
  });

  it('share no Lease, webhook Secret, field manager or metric name, and both reconcile', async () => {
    const nameOf = (kind: AnyKind) => kind.singular;
    for (const { kind } of operators) await objects.create({ apiVersion: `${kind.group}/v2`, kind: kind.kind, metadata: { name: nameOf(kind), namespace }, spec: { size: 1 } });

    for (const [operator, other] of [operators, [...operators].reverse()]) {
      const { names, kind } = operator;
      // Both lead at once: each holds its own Lease.
      const lease = await eventually(`${names.leaderLease} to be held`, async () => {
        const live = await rest.request<(KubeJson & { spec: { holderIdentity?: string } }) | undefined>('GET', `/apis/coordination.k8s.io/v1/namespaces/${namespace}/leases/${names.leaderLease}`, { notFoundAsUndefined: true });
        return live?.spec.holderIdentity ? live : undefined;
      });
      // Written by the operator's client (its User-Agent names it), not the engine's.
      expect(managers(lease)).toEqual([names.identity.name]);

      // Each reconciles its own kind to Ready, and writes its child under its own field managers only.
      await eventually(`${kind.kind} ${nameOf(kind)} to be Ready`, async () => {
        const live = await get<KubeJson & { status?: { conditions?: { type: string; status: string }[] } }>(`/apis/${kind.group}/v2/namespaces/${namespace}/${kind.plural}/${nameOf(kind)}`);
        return live.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ? true : undefined;
      });
      const child = managers(await get<KubeJson>(`/api/v1/namespaces/${namespace}/configmaps/${nameOf(kind)}`));
      expect(child.length).toBeGreaterThan(0);
      expect(child.every((manager) => manager === names.fieldManager || manager === createManager(names.fieldManager))).toBe(true);
      // Its status (and finalizer) writes on the owner are its own: the other operator never touched it.
      const owner = managers(await get<KubeJson>(`/apis/${kind.group}/v2/namespaces/${namespace}/${kind.plural}/${nameOf(kind)}`));
      expect(owner).toContain(names.fieldManager);
      expect(owner).not.toContain(other.names.fieldManager);

      // Each keeps its own webhook Secret, written under its own manager, whose CA only its kind's CRD trusts.
      const secret = await get<KubeJson & { data: Record<string, string> }>(`/api/v1/namespaces/${namespace}/secrets/${names.webhookSecret}`);
      expect(managers(secret)).toEqual([names.certificatesManager]);
      const crd = await get<KubeJson & { spec: { conversion: { webhook: { clientConfig: { caBundle?: string } } } } }>(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crdName(kind)}`);
      expect(crd.spec.conversion.webhook.clientConfig.caBundle).toBe(secret.data['ca.crt']);
      expect(managers(crd)).toContain(names.caInjector);
      expect(managers(crd)).not.toContain(other.names.caInjector);

      // Its metrics carry its own prefix only.
      const text = await fetch(`http://127.0.0.1:${operator.metricsPort}/metrics`).then((r) => r.text());
      expect(text).toContain(`${names.metricPrefix}reconciles_total{kind="${kind.kind}",result="success"}`);
      expect(text).toContain(`${names.metricPrefix}object_condition{`);
      expect(text).not.toContain(other.names.metricPrefix);
    }
    expect(operators.map((o) => [o.names.leaderLease, o.names.webhookSecret, o.names.fieldManager])).toEqual([
      [PRODUCT_NAMES.leaderLease, PRODUCT_NAMES.webhookSecret, PRODUCT_NAMES.fieldManager],
      ['acme-operators-leader', 'acme-operators-webhook-tls', 'acme-operators'],
    ]);
  });
});
