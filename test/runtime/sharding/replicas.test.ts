import { ApiObject } from 'cdk8s';
import { CREATE_ONLY_ANNOTATION } from '../../../src/core/kit/child-policy';
import { KubeObject } from '../../../src/kube/objects';
import { KubeRest } from '../../../src/kube/rest';
import { Controller } from '../../../src/runtime/controller';
import { createLogger } from '../../../src/runtime/log';
import { Metrics } from '../../../src/runtime/metrics';
import { DRAIN_LABEL, SHARD_LABEL } from '../../../src/runtime/sharding/labels';
import { Sharding } from '../../../src/runtime/sharding/setup';
import { Takeover } from '../../../src/runtime/sharding/takeover';
import { createTestNamespace, deleteNamespace, eventually, testKubeConfig } from '../../../src/testing/cluster';
import { testObjects } from '../../support/manifests';
import { childrenOf, defineTestKind, installTestCrd, metricValue } from '../../../src/testing/test-kind';
import { PRODUCT_NAMES } from '../../../src/product';

/**
 * A kind with one ConfigMap per object, served by in-process replicas with --sharding's engine
 * parts, and a create-only Secret it reads by name only (get and create, not watched).
 */
const shardedKind = defineTestKind('Shardling', {
  manages: [childrenOf('', 'configmaps'), { apiGroup: '', resources: ['secrets'], verbs: ['get', 'create'] }],
  render: (scope, resource) => {
    new ApiObject(scope, 'map', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: resource.metadata.name }, data: { size: String(resource.spec.size) } });
    new ApiObject(scope, 'secret', { apiVersion: 'v1', kind: 'Secret', metadata: { name: `${resource.metadata.name}-once`, annotations: { [CREATE_ONLY_ANNOTATION]: 'true' } }, stringData: { made: 'once' } });
  },
});
const COUNT = 12;
const kc = testKubeConfig();
const objects = testObjects();
let namespace: string;

interface Replica {
  readonly name: string;
  readonly sharding: Sharding;
  readonly controller: Controller;
  readonly metrics: Metrics;
  stop(): Promise<void>;
}
const replicas: Replica[] = [];

/** A replica as runController builds it with --sharding; `leads` stands for having won the leader Lease. */
function replica(name: string, leads: boolean): Replica {
  const rest = new KubeRest(kc);
  const log = createLogger({ level: 'warn', write: () => undefined });
  const metrics = new Metrics({ prefix: PRODUCT_NAMES.metricPrefix });
  const sharding: Sharding = new Sharding(rest, { identity: name, namespace, ring: 'shardling-leader', served: () => controller.servedObjects() }, metrics, log);
  const controller: Controller = new Controller(rest, { operator: PRODUCT_NAMES, kinds: [shardedKind], namespaces: [namespace], workers: 2, resyncMs: 600_000, kindOptions: {}, identity: name, sharding, mayWork: () => sharding.isMember() }, log, metrics);
  sharding.join({
    onStartedLeading: () => {
      controller.start();
      if (leads) sharding.lead();
    },
    onStoppedLeading: () => undefined,
  });
  const stop = async () => {
    await controller.stop();
    sharding.stopLeading();
    await sharding.stop();
  };
  const started = { name, sharding, controller, metrics, stop };
  replicas.push(started);
  return started;
}

const list = async (path: string) => (await objects.rest.request<{ items: (KubeObject & { status?: { observedGeneration?: number } })[] }>('GET', path)).items;
const owners = () => list(`/apis/shardling.test.cdk8s-operators.io/v1/namespaces/${namespace}/shardlings`);
const maps = async () => (await list(`/api/v1/namespaces/${namespace}/configmaps`)).filter((m) => m.metadata.labels?.['cdk8s-operators.io/owner-name']);
const shardOf = (o: KubeObject) => (o.metadata.labels as Record<string, string> | undefined)?.[SHARD_LABEL];

/** Every object on one of `shards` (each serving some), served at its generation, not draining, and its ConfigMap labelled alike. */
async function servedBy(shards: string[], size: number): Promise<Map<string, number>> {
  return eventually(`every Shardling served by ${shards.join(', ')} at size ${size}`, async () => {
    const items = await owners();
    const children = new Map((await maps()).map((m) => [m.metadata.name, m]));
    const counts = new Map<string, number>();
    for (const o of items) {
      const child = children.get(o.metadata.name);
      if (!shards.includes(shardOf(o) ?? '') || o.metadata.labels?.[DRAIN_LABEL] || o.status?.observedGeneration !== o.metadata.generation) return undefined;
      if (!child || shardOf(child) !== shardOf(o) || (child as { data?: { size?: string } }).data?.size !== String(size)) return undefined;
      counts.set(shardOf(o)!, (counts.get(shardOf(o)!) ?? 0) + 1);
    }
    return items.length === COUNT && counts.size === shards.length ? counts : undefined;
  }, 90_000);
}

const apply = (size: number) =>
  Promise.all(Array.from({ length: COUNT }, (_, i) => objects.apply({ apiVersion: 'shardling.test.cdk8s-operators.io/v1', kind: 'Shardling', metadata: { name: `s-${i}`, namespace }, spec: { size } } as KubeObject)));

beforeAll(async () => {
  await installTestCrd(shardedKind);
  namespace = await createTestNamespace(kc, 'shardling');
});
afterAll(async () => {
  await Promise.all(replicas.map((r) => r.stop()));
  await deleteNamespace(kc, namespace);
});

it('labels each object and its children for one replica, and hands them over when replicas leave and join', async () => {
  const takeovers = jest.spyOn(Takeover.prototype, 'take');
  const a = replica('shard-a', true);
  const b = replica('shard-b', false);
  await apply(1);
  await servedBy(['shard-a', 'shard-b'], 1);
  // New objects (their status as the CRD defaults it) have no children anywhere to look for.
  expect(takeovers).not.toHaveBeenCalled();
  expect(a.metrics.render()).toMatch(/^cdk8s_operators_shard_members 2$/m);
  expect(metricValue(a.metrics, 'cdk8s_operators_shard_objects', { shard: 'shard-a' }) + metricValue(b.metrics, 'cdk8s_operators_shard_objects', { shard: 'shard-b' })).toBe(COUNT);

  // A graceful stop releases b's Lease: its objects move to a at once, their children relabelled by a.
  await b.stop();
  await apply(2);
  await servedBy(['shard-a'], 2);
  expect(metricValue(a.metrics, 'cdk8s_operators_shard_handovers_total', { shard: 'shard-a', direction: 'adopted' })).toBeGreaterThan(0);
  expect(takeovers).toHaveBeenCalled();

  // A newcomer takes about half: a drains them (stops, then removes its label), and only then are they labelled for c.
  const c = replica('shard-c', false);
  await servedBy(['shard-a', 'shard-c'], 2);
  expect(metricValue(a.metrics, 'cdk8s_operators_shard_handovers_total', { shard: 'shard-a', direction: 'drained' })).toBeGreaterThan(0);
  expect(metricValue(a.metrics, 'cdk8s_operators_shard_assignments_total', { action: 'drain' })).toBeGreaterThan(0);
  await apply(3);
  await servedBy(['shard-a', 'shard-c'], 3);
  expect(metricValue(c.metrics, 'cdk8s_operators_shard_objects', { shard: 'shard-c' })).toBeGreaterThan(0);

  // No shard's watch selects on the Secrets, which are never written again: a shard label there would name the replica that created them long after they moved.
  const secrets = (await list(`/api/v1/namespaces/${namespace}/secrets`)).filter((m) => m.metadata.labels?.['cdk8s-operators.io/owner-name']);
  expect(secrets.map((secret) => [secret.metadata.name, shardOf(secret)])).toEqual(Array.from({ length: COUNT }, (_, i) => [`s-${i}-once`, undefined]).sort());
}, 240_000);
