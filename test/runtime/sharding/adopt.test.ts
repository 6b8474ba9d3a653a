import { KubeObject } from '../../../src/kube/objects';
import { KubeRest } from '../../../src/kube/rest';
import { createLogger } from '../../../src/runtime/log';
import { Metrics } from '../../../src/runtime/metrics';
import { SHARD_LABEL } from '../../../src/runtime/sharding/labels';
import { ShardMetrics } from '../../../src/runtime/sharding/metrics';
import { Shard } from '../../../src/runtime/sharding/shard';
import { createTestNamespace, deleteNamespace, testKubeConfig } from '../../support/cluster';
import { testObjects } from '../../support/manifests';
import { metricValue } from '../../support/test-kind';

/**
 * A replica's look for an owner's children that another shard labelled, before its first
 * reconcile here: made for an owner that was served before, skipped for one no controller served.
 */
const kc = testKubeConfig();
const objects = testObjects();
const CONFIGMAPS = { groupVersion: 'v1', base: '/api/v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true };
const OWNER_LABELS = { 'test.cdk8s-operators.io/owner': 'one' };
let namespace: string;

beforeAll(async () => {
  namespace = await createTestNamespace(kc, 'adopt');
});
afterAll(() => deleteNamespace(kc, namespace));

it('relabels the children another shard left only for an owner that was served before, and looks once per owner', async () => {
  const metrics = new Metrics();
  const shard = new Shard(new KubeRest(kc), 'shard-new', new ShardMetrics(metrics, 'shard-new', () => 0), createLogger({ level: 'warn', write: () => undefined }));
  const path = `/api/v1/namespaces/${namespace}/configmaps`;
  const children = [{ path, collection: CONFIGMAPS }];
  await objects.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'child', namespace, labels: { ...OWNER_LABELS, [SHARD_LABEL]: 'shard-old' } } });
  const owner = { apiVersion: 'test.cdk8s-operators.io/v1', kind: 'Owner', metadata: { name: 'one', namespace, uid: 'f2d7c1aa-0000-4000-8000-000000000001' } };
  const childShard = async () => ((await objects.rest.request<KubeObject>('GET', `${path}/child`)).metadata.labels as Record<string, string>)[SHARD_LABEL];

  // Never served: nothing to take over, and no LIST; the owner counts as looked at.
  await shard.adopt('owners|one', owner, OWNER_LABELS, children, false);
  expect(await childShard()).toBe('shard-old');
  await shard.adopt('owners|one', owner, OWNER_LABELS, children, true);
  expect(await childShard()).toBe('shard-old');

  // Served before (by the shard that labelled the child): the child is relabelled for this shard.
  await shard.adopt('owners|two', owner, OWNER_LABELS, children, true);
  expect(await childShard()).toBe('shard-new');
  expect(metricValue(metrics, 'cdk8s_operators_shard_handovers_total', { shard: 'shard-new', direction: 'adopted' })).toBe(1);
}, 60_000);
