import { ApiObject } from 'cdk8s';
import { FaultProxy } from '../support/fault-proxy-server';
import { KubeObject } from '../../src/kube/objects';
import { isNotFound, KubeRest } from '../../src/kube/rest';
import { createTestNamespace, deleteNamespace, eventually, testKubeConfig } from '../../src/testing/cluster';
import { startTestFaultProxy } from '../support/fault-proxy';
import { deleteWithPropagation, eventsIn, gone, readyOf, Resource, whenReady } from '../support/resources';
import { childrenOf, defineTestKind, metricValue, serveTestKind, serveTestKindForSuite, ServedTestKind } from '../../src/testing/test-kind';

// The chaos soak found write storms of children made again as soon as they were removed: an
// ExchangeRate's ConfigMap 87 times in a minute, an upgrade Job 44 times. The write budget
// counted only updates, and a reconcile with an out-of-date owner (its deletion not yet seen)
// made again each child a foreground deletion removed. Both are reproduced here with test kinds.

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const withConfigMap = (kindName: string) =>
  defineTestKind(kindName, {
    manages: [childrenOf('', 'configmaps')],
    render: (scope, resource) => void new ApiObject(scope, 'config', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: resource.metadata.name }, data: { size: String(resource.spec.size) } }),
  });

describe('a child removed as soon as it exists', () => {
  const served = serveTestKindForSuite(withConfigMap('Vanishing'), 'vanishing');

  it('is made again at most 10 times a minute, and the owner says it is missing and why', async () => {
    const object = { apiVersion: 'vanishing.test.cdk8s-operators.io/v1', kind: 'Vanishing', metadata: { name: 'vanishing', namespace: served.namespace }, spec: { size: 1 } };
    const child: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'vanishing', namespace: served.namespace } };
    await served.objects.apply(object);
    await whenReady(served.objects, object, 'True');
    const writes = () => metricValue(served.metrics, 'cdk8s_operators_child_writes_total', { kind: 'Vanishing', action: 'apply' });
    // Something else removes the child whenever it sees it.
    let removing = true;
    const remover = (async () => {
      while (removing) {
        await served.objects.delete(child).catch((err) => (isNotFound(err) ? undefined : Promise.reject(err)));
        await sleep(50);
      }
    })();
    try {
      const missing = await eventually('the owner to say its child is missing', async () => {
        const ready = readyOf(await served.objects.get<Resource>(object));
        return ready?.status === 'False' && ready.message.includes('missing') ? ready : undefined;
      });
      expect(missing.reason).toBe('ChildNotReady');
      expect(missing.message).toContain(`ConfigMap ${served.namespace}/vanishing: missing: ConfigMap ${served.namespace}/vanishing was written 10 times within 60 s and is gone again`);
      await sleep(3000);
      expect(writes()).toBe(10);
    } finally {
      removing = false;
      await remover;
    }
    const held = (await eventsIn(served.objects, served.namespace)).filter((e) => e.reason === 'ChildWritesHeld');
    expect(held).toHaveLength(1);
    expect(held[0].note).toContain('something removes it as soon as it exists');
  });
});

describe('an owner deleted in the foreground while its own watch is stalled', () => {
  let namespace: string;
  let proxy: FaultProxy;
  let served: ServedTestKind;
  const fleeting = withConfigMap('Fleeting');

  beforeAll(async () => {
    namespace = await createTestNamespace(testKubeConfig(), 'fleeting');
    const started = await startTestFaultProxy('controller');
    proxy = started.proxy;
    served = await serveTestKind(fleeting, namespace, undefined, new KubeRest(started.kubeConfig));
  });
  afterAll(async () => {
    await served?.stop();
    await proxy?.close();
    if (namespace) await deleteNamespace(testKubeConfig(), namespace);
  });

  it('does not make its children again (the garbage collector removes them, the deletion ends)', async () => {
    const object = { apiVersion: 'fleeting.test.cdk8s-operators.io/v1', kind: 'Fleeting', metadata: { name: 'fleeting', namespace }, spec: { size: 1 } };
    await served.objects.apply(object);
    await whenReady(served.objects, object, 'True');
    // From now on the controller's watch of Fleetings hears nothing: its cache keeps the owner
    // as it was, while the watch of ConfigMaps sees the garbage collector's deletions.
    proxy.set([{ path: /\/fleetings$/, fault: { kind: 'stall' } }]);
    proxy.cutWatches();
    await eventually('the Fleetings watch to be stalled', async () => (proxy.answered['stalled watch'] ? true : undefined));
    await sleep(1500);
    const from = proxy.writes.length;

    await deleteWithPropagation(served.objects, object, 'Foreground');
    await eventually('the foreground deletion to finish', async () => ((await gone(served.objects, object)) ? true : undefined), 30_000);
    await sleep(2000);
    const madeAgain = proxy.writes.slice(from).filter((w) => w.object.endsWith('/configmaps/fleeting'));
    expect(madeAgain.map((w) => w.method)).toEqual([]);
    expect(served.logLines.some((l) => l.msg === 'a child of ours is gone and the cached owner is out of date: reading it again')).toBe(true);
  });
});
