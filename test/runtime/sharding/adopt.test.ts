import { KubeObject } from '../../../src/kube/objects';
import { KubeRest } from '../../../src/kube/rest';
import { createLogger } from '../../../src/runtime/log';
import { Metrics } from '../../../src/runtime/metrics';
import { SHARD_LABEL } from '../../../src/runtime/sharding/labels';
import { ShardMetrics } from '../../../src/runtime/sharding/metrics';
import { Shard } from '../../../src/runtime/sharding/shard';
import { createTestNamespace, deleteNamespace, testKubeConfig } from '../../../src/testing/cluster';
import { testObjects } from '../../support/manifests';
import { metricValue } from '../../../src/testing/test-kind';
import { PRODUCT_NAMES } from '../../../src/product';

/**
 * A replica's takeover of owners that moved to it, before their first reconcile there: the
 * children another shard labelled are relabelled for this one, with one LIST for every owner
 * waiting at once; nothing is looked for when no controller served the owner yet.
 */
const kc = testKubeConfig();
const objects = testObjects();
const CONFIGMAPS = { groupVersion: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true };
const KIND_LABEL = 'test.cdk8s-operators.io/owner-kind';
const OWNER_LABEL = 'test.cdk8s-operators.io/owner';
let namespace: string;

beforeAll(async () => {
  namespace = await createTestNamespace(kc, 'adopt');
});
afterAll(() => deleteNamespace(kc, namespace));

const ownerLabels = (name: string) => ({ [KIND_LABEL]: 'Owner', [OWNER_LABEL]: name });
const owner = (name: string, uid: string) => ({ apiVersion: 'test.cdk8s-operators.io/v1', kind: 'Owner', metadata: { name, namespace, uid } });
const uid = (i: number) => `f2d7c1aa-0000-4000-8000-${String(i).padStart(12, '0')}`;

it('relabels the children other shards left, for every waiting owner at once, and only for owners that were served before', async () => {
  const path = `/api/v1/namespaces/${namespace}/configmaps`;
  // The kind's watch selector as a sharded replica builds it: the kind's children, labelled for this shard.
  const children = [{ path, collection: CONFIGMAPS, selector: `${KIND_LABEL}=Owner,${SHARD_LABEL}=shard-new` }];
  let gets = 0;
  const rest = new KubeRest(kc, (method) => method === 'GET' && gets++);
  const metrics = new Metrics({ prefix: PRODUCT_NAMES.metricPrefix });
  const shard = new Shard(rest, 'shard-new', new ShardMetrics(metrics, 'shard-new', () => 0), createLogger({ level: 'warn', write: () => undefined }));
  const child = (name: string, labels: Record<string, string>, extra: Partial<KubeObject['metadata']> = {}) =>
    objects.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace, labels, ...extra } });
  const shardOf = async (name: string) => ((await objects.rest.request<KubeObject>('GET', `${path}/${name}`)).metadata.labels as Record<string, string>)[SHARD_LABEL];

  for (let i = 0; i < 6; i++) await child(`of-${i}`, { ...ownerLabels(`o-${i}`), [SHARD_LABEL]: i % 2 ? 'shard-old' : 'shard-gone' });
  await child('from-before-sharding', ownerLabels('o-0'));
  await child('of-one-staying', { ...ownerLabels('o-9'), [SHARD_LABEL]: 'shard-old' });
  // Made by another controller from our template (its controller reference names someone else, who must exist or the garbage collector takes it): not ours to relabel.
  const other = await child('another-controller', {});
  await child('made-by-another', { ...ownerLabels('o-1'), [SHARD_LABEL]: 'shard-old' }, { ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'another-controller', uid: other.metadata.uid!, controller: true }] });

  // Never served: nothing to take over, no LIST, and the owner counts as looked at.
  await shard.adopt('owners|o-9', owner('o-9', uid(9)), ownerLabels('o-9'), children, false);
  await shard.adopt('owners|o-9', owner('o-9', uid(9)), ownerLabels('o-9'), children, true);
  expect(gets).toBe(0);
  expect(await shardOf('of-one-staying')).toBe('shard-old');

  // Six owners served before, taken over together: the first starts a LIST alone, the other five share the next;
  // a second look at an owner whose look runs (its arrival's, then its reconcile's) waits for that one.
  const adopt = (i: number) => shard.adopt(`owners|o-${i}`, owner(`o-${i}`, uid(i)), ownerLabels(`o-${i}`), children, true);
  await Promise.all([...Array.from({ length: 6 }, (_, i) => adopt(i)), adopt(0), adopt(5)]);
  expect(gets).toBe(2);
  for (let i = 0; i < 6; i++) expect(await shardOf(`of-${i}`)).toBe('shard-new');
  expect(await shardOf('from-before-sharding')).toBe('shard-new');
  expect(await shardOf('of-one-staying')).toBe('shard-old');
  expect(await shardOf('made-by-another')).toBe('shard-old');
  expect(metricValue(metrics, 'cdk8s_operators_shard_handovers_total', { shard: 'shard-new', direction: 'adopted' })).toBe(6);
}, 60_000);

it('fails the waiting owners when the LIST fails, so that their reconciles are retried', async () => {
  const shard = new Shard(new KubeRest(kc), 'shard-new', new ShardMetrics(new Metrics({ prefix: PRODUCT_NAMES.metricPrefix }), 'shard-new', () => 0), createLogger({ level: 'warn', write: () => undefined }));
  const children = [{ path: `/api/v1/namespaces/${namespace}/configmaps`, collection: CONFIGMAPS, selector: 'not a selector!' }];
  await expect(shard.adopt('owners|o-1', owner('o-1', uid(1)), ownerLabels('o-1'), children, true)).rejects.toThrow(/400/);
  // Not marked as looked at: the next reconcile looks again.
  await expect(shard.adopt('owners|o-1', owner('o-1', uid(1)), ownerLabels('o-1'), children, true)).rejects.toThrow(/400/);
});
