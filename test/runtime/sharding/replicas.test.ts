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
/** The replicas' log lines (info and above): a timed-out wait shows the last of them. */
const logged: string[] = [];

/** A replica as runController builds it with --sharding; `leads` stands for having won the leader Lease. */
function replica(name: string, leads: boolean): Replica {
  const rest = new KubeRest(kc);
  const log = createLogger({ level: 'info', write: (line) => void logged.push(line), base: { replica: name } });
  const metrics = new Metrics({ prefix: PRODUCT_NAMES.metricPrefix });
  const sharding: Sharding = new Sharding(rest, { identity: name, namespace, ring: 'shardling-leader', served: () => controller.servedObjects() }, metrics, log);
  const controller: Controller = new Controller(rest, { operator: PRODUCT_NAMES, kinds: [shardedKind], namespaces: [namespace], workers: 2, resyncMs: 600_000, kindOptions: {}, identity: name, sharding, mayWork: () => sharding.isMember() }, log, metrics);
  // Membership won back after a lapse starts nothing twice (a real replica exits on the lapse; the log says so here).
  let joined = false;
  sharding.join({
    onStartedLeading: () => {
      if (joined) return;
      joined = true;
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

/**
 * Every object on one of `shards` (each serving some), served at its generation, not draining,
 * and its ConfigMap labelled alike. Until then each poll says what is still wrong, so a wait
 * that times out names the objects it waited on and ends with the replicas' last log lines.
 */
async function servedBy(shards: string[], size: number): Promise<Map<string, number>> {
  try {
    return await eventually(`every Shardling served by ${shards.join(', ')} at size ${size}`, async () => {
      const items = await owners();
      const children = new Map((await maps()).map((m) => [m.metadata.name, m]));
      const counts = new Map<string, number>();
      const wrong: string[] = [];
      for (const o of items) {
        const child = children.get(o.metadata.name) as (KubeObject & { data?: { size?: string } }) | undefined;
        const shard = shardOf(o) ?? '';
        const problems = [
          !shards.includes(shard) && `on shard ${JSON.stringify(shard)}`,
          o.metadata.labels?.[DRAIN_LABEL] && `draining to ${o.metadata.labels[DRAIN_LABEL]}`,
          o.status?.observedGeneration !== o.metadata.generation && `generation ${o.metadata.generation} observed ${o.status?.observedGeneration}`,
          !child ? 'no ConfigMap' : (shardOf(child) !== shard || child.data?.size !== String(size)) && `ConfigMap on ${shardOf(child)} size ${child.data?.size}`,
        ].filter(Boolean);
        if (problems.length) wrong.push(`${o.metadata.name}: ${problems.join(', ')}`);
        else counts.set(shard, (counts.get(shard) ?? 0) + 1);
      }
      if (items.length !== COUNT || wrong.length || counts.size !== shards.length) {
        throw new Error(`${items.length} objects; ${[...counts].map(([shard, n]) => `${n} on ${shard}`).join(', ') || 'none served'}; ${wrong.join('; ') || 'no object wrong'}`);
      }
      return counts;
    }, 90_000);
  } catch (err) {
    throw new Error(`${(err as Error).message}\nthe replicas' last log lines:\n${logged.slice(-40).join('\n')}`);
  }
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
