import { ApiObject } from 'cdk8s';
import { ObservationError } from '../../src/core/contract/kind';
import { WorkQueue } from '../../src/runtime/queue';
import { eventually } from '../../src/testing/cluster';
import { whenReady } from '../support/resources';
import { childrenOf, defineTestKind, metricValue, serveTestKindForSuite } from '../../src/testing/test-kind';

/** A kind that exports its size as a gauge, alerts on it, and fails its observation when the size is 13. */
const gaugedKind = defineTestKind('Gauged', {
  manages: [childrenOf('', 'configmaps')],
  monitoring: {
    gauges: [
      { name: 'size', help: 'The object\u2019s spec.size.', value: (o) => (o.spec as { size: number }).size },
      { name: 'broken', help: 'A gauge that throws on every object: no series, and the scrape still works.', value: () => { throw new Error('cannot read'); } },
    ],
  },
  controller: {
    failureReasons: ['Unlucky'],
    observer: () => async (resource) => {
      if (resource.spec.size === 13) throw new ObservationError('Unlucky', 'size 13 is refused', false);
    },
  },
  render: (scope, resource) => void new ApiObject(scope, 'config', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: resource.metadata.name }, data: { size: String(resource.spec.size) } }),
});

describe('the per-object series and controller-runtime\u2019s metrics, served by the real engine', () => {
  const served = serveTestKindForSuite(gaugedKind, 'object-metrics');
  const object = (name: string, size: number) => ({ apiVersion: 'gauged.test.cdk8s-operators.io/v1', kind: 'Gauged', metadata: { name, namespace: served.namespace }, spec: { size } });

  it('exports each object\u2019s conditions and its kind\u2019s gauges, and drops them when the object goes', async () => {
    await served.objects.apply(object('fine', 3));
    await served.objects.apply(object('unlucky', 13));
    await whenReady(served.objects, object('fine', 3), 'True');
    await whenReady(served.objects, object('unlucky', 13), 'False', 'Unlucky');
    const text = served.metrics.render();
    expect(text).toContain(`cdk8s_operators_object_condition{kind="Gauged",namespace="${served.namespace}",name="fine",type="Ready",status="True",reason="Reconciled"} 1`);
    expect(text).toContain(`cdk8s_operators_object_condition{kind="Gauged",namespace="${served.namespace}",name="unlucky",type="Stalled",status="True",reason="Unlucky"} 1`);
    expect(text).toContain(`cdk8s_operators_gauged_size{namespace="${served.namespace}",name="fine"} 3`);
    expect(text).toContain(`cdk8s_operators_gauged_size{namespace="${served.namespace}",name="unlucky"} 13`);
    expect(text).toContain('# TYPE cdk8s_operators_gauged_broken gauge');
    expect(text).not.toMatch(/^cdk8s_operators_gauged_broken\{/m);

    await served.objects.delete(object('unlucky', 13));
    await eventually('the deleted object\u2019s series to go', async () => (served.metrics.render().includes('name="unlucky"') ? undefined : true));
    expect(served.metrics.render()).toContain(`cdk8s_operators_gauged_size{namespace="${served.namespace}",name="fine"} 3`);
  });

  it('counts reconciles, workers and the queue under controller-runtime\u2019s names, the controller named by the kind in lower case', async () => {
    await whenReady(served.objects, object('fine', 3), 'True');
    expect(metricValue(served.metrics, 'controller_runtime_reconcile_total', { controller: 'gauged', result: 'success' })).toBeGreaterThan(0);
    expect(metricValue(served.metrics, 'controller_runtime_reconcile_errors_total', { controller: 'gauged' })).toBe(0);
    expect(metricValue(served.metrics, 'controller_runtime_max_concurrent_reconciles', { controller: 'gauged' })).toBe(2);
    expect(metricValue(served.metrics, 'workqueue_adds_total', { name: 'gauged', controller: 'gauged' })).toBeGreaterThan(0);
    expect(metricValue(served.metrics, 'workqueue_queue_duration_seconds_count', { name: 'gauged', controller: 'gauged' })).toBeGreaterThan(0);
    const text = served.metrics.render();
    expect(text).toContain('workqueue_depth{name="gauged",controller="gauged",priority=""}');
    expect(text).toMatch(/^controller_runtime_reconcile_time_seconds_bucket\{controller="gauged",le="60"\} [1-9]/m);
    // Every collection watched has its restart counter, at 0 until a watch starts over.
    expect(text).toContain('cdk8s_operators_watch_restarts_total{resource="gaugeds.gauged.test.cdk8s-operators.io",reason="error"} 0');
    expect(text).toContain('cdk8s_operators_watch_restarts_total{resource="configmaps",reason="silent"} 0');
  });
});

describe('WorkQueue hooks', () => {
  it('count a key once while it waits, again when added during its processing, a retry per backoff, and time its wait and work', async () => {
    const seen: string[] = [];
    const queue = new WorkQueue({ baseMs: 1, maxMs: 1 }, {
      added: (k) => seen.push(`added ${k}`),
      retried: (k) => seen.push(`retried ${k}`),
      taken: (k, s) => seen.push(`taken ${k} ${s >= 0}`),
      finished: (k, s) => seen.push(`finished ${k} ${s >= 0}`),
    });
    queue.add('a');
    queue.add('a');
    expect([...queue.pending()]).toEqual(['a']);
    expect(await queue.next()).toBe('a');
    expect([...queue.inProcess().keys()]).toEqual(['a']);
    queue.add('a');
    queue.add('a');
    queue.done('a');
    expect(await queue.next()).toBe('a');
    queue.addWithBackoff('a');
    queue.done('a');
    expect(await queue.next()).toBe('a');
    queue.done('a');
    queue.shutDown();
    expect(seen).toEqual(['added a', 'taken a true', 'added a', 'finished a true', 'taken a true', 'retried a', 'finished a true', 'added a', 'taken a true', 'finished a true']);
  });
});
