import { ApiObject } from 'cdk8s';
import { KubeJson } from '../../src/core/contract/kind';
import { createManager, ManagedFieldsEntry } from '../../src/kube/create-then-apply';
import { eventually } from '../../src/testing/cluster';
import { whenReady } from '../support/resources';
import { childrenOf, defineTestKind, serveTestKindForSuite } from '../../src/testing/test-kind';
import { PRODUCT_NAMES } from '../../src/product';

/**
 * Size 1 renders a data key, a label and an env var that any other size leaves out; the
 * Service's port (a key of its list) follows the size, under the same name.
 */
const createdFirstKind = defineTestKind('CreatedFirst', {
  manages: [childrenOf('', 'configmaps', 'services'), childrenOf('apps', 'deployments')],
  render: (scope, resource) => {
    const { name } = resource.metadata;
    const first = resource.spec.size === 1;
    const size = String(resource.spec.size);
    new ApiObject(scope, 'config', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: first ? { first: 'yes' } : {} }, data: { size, ...(first ? { first: 'yes' } : {}) } });
    const labels = { app: name };
    new ApiObject(scope, 'service', { apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { selector: labels, ports: [{ name: 'web', port: 8000 + resource.spec.size }] } });
    new ApiObject(scope, 'app', {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name },
      spec: { replicas: 0, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'app', image: `example.invalid/app:${size}`, env: first ? [{ name: 'FIRST', value: 'yes' }] : [] }] } } },
    });
  },
});

type ConfigMap = KubeJson & { data?: Record<string, string> };
type Deployment = KubeJson & { spec: { revisionHistoryLimit?: number; template: { spec: { dnsPolicy?: string; containers: { image: string; env?: unknown[]; terminationMessagePath?: string }[] } } } };
const managers = (o: KubeJson) => ((o.metadata.managedFields ?? []) as ManagedFieldsEntry[]).map((e) => `${e.manager}/${e.operation}`).sort();

describe('a child missing from the cache', () => {
  const served = serveTestKindForSuite(createdFirstKind, 'create-first');
  const owner = (name: string, size: number) => ({ apiVersion: 'createdfirst.test.cdk8s-operators.io/v1', kind: 'CreatedFirst', metadata: { name, namespace: served.namespace }, spec: { size } });
  const child = <T extends KubeJson>(apiVersion: string, kind: string, name: string) => served.objects.find<T>({ apiVersion, kind, metadata: { name, namespace: served.namespace } });
  const configMap = (name: string) => child<ConfigMap>('v1', 'ConfigMap', name);
  const deployment = (name: string) => child<Deployment>('apps/v1', 'Deployment', name);

  it('is POSTed, and a later render that leaves fields out still removes them', async () => {
    await served.objects.create(owner('made', 1));
    const made = await eventually('the ConfigMap', () => configMap('made'));
    expect(made.data).toEqual({ size: '1', first: 'yes' });
    // Made by a POST: an Update entry of the create manager, no apply yet.
    expect(managers(made)).toEqual([`${createManager(PRODUCT_NAMES.fieldManager)}/Update`]);
    await eventually('the Deployment', () => deployment('made'));

    await served.objects.apply(owner('made', 2));
    const changed = await eventually('the ConfigMap without what size 1 added', async () => {
      const live = await configMap('made');
      // The first apply sets size 2; taking over the POST's fields and applying again removes the rest.
      return live?.data?.size === '2' && !live.data.first ? live : undefined;
    });
    expect(changed.data).toEqual({ size: '2' });
    expect(changed.metadata.labels?.first).toBeUndefined();
    expect(managers(changed)).toEqual([`${PRODUCT_NAMES.fieldManager}/Apply`]);
    const app = await eventually('the Deployment without the env var', async () => {
      const live = await deployment('made');
      return live?.spec.template.spec.containers[0].image.endsWith(':2') && !live.spec.template.spec.containers[0].env ? live : undefined;
    });
    expect(app.spec.template.spec.containers[0].env).toBeUndefined();
    // Fields the API server defaulted at the POST, left out of every render, are defaulted again.
    expect(app.spec.revisionHistoryLimit).toBe(10);
    expect(app.spec.template.spec.dnsPolicy).toBe('ClusterFirst');
    expect(app.spec.template.spec.containers[0].terminationMessagePath).toBe('/dev/termination-log');
    expect(managers(app).filter((m) => m.startsWith(PRODUCT_NAMES.fieldManager))).toEqual([`${PRODUCT_NAMES.fieldManager}/Apply`]);
    // The old port stays with the POST's fields until they are taken over: applied as is, the Service would hold two ports named web.
    const service = await eventually('the Service on the new port', async () => {
      const live = await child<KubeJson & { spec: { ports: { name: string; port: number }[] } }>('v1', 'Service', 'made');
      return live?.spec.ports.some((p) => p.port === 8002) ? live : undefined;
    });
    expect(service.spec.ports.map((p) => [p.name, p.port])).toEqual([['web', 8002]]);
    expect(served.logLines.filter((line) => line.msg === 'reconcile failed; retrying')).toEqual([]);
  });

  it('is left as it is when someone else made an object of its name', async () => {
    await served.objects.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'taken', namespace: served.namespace }, data: { mine: 'yes' } });
    const before = (await configMap('taken'))!;
    const taken = await served.objects.create<KubeJson>(owner('taken', 1));
    const verdict = await whenReady(served.objects, taken, 'False', 'Conflict');
    expect(verdict.status?.conditions?.[0].message).toContain(`ConfigMap ${served.namespace}/taken`);
    const after = (await configMap('taken'))!;
    expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
    expect(after.data).toEqual({ mine: 'yes' });
    expect(managers(after)).toEqual(managers(before));
  });
});
