import { ApiObject } from 'cdk8s';
import { eventually } from '../../src/testing/cluster';
import { eventsIn, gone, whenReady } from '../support/resources';
import { childrenOf, defineTestKind, serveTestKindForSuite } from '../../src/testing/test-kind';

/** A kind that records Events of its own: one while it is served at a size, one when it is deleted. */
const announcedKind = defineTestKind('Announced', {
  manages: [childrenOf('', 'configmaps')],
  finalizer: 'announced.test.cdk8s-operators.io/goodbye',
  render: (scope, resource) => void new ApiObject(scope, 'config', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: resource.metadata.name }, data: { size: String(resource.spec.size) } }),
  controller: {
    events: (resource, _observation, outcome) =>
      resource.metadata.deletionTimestamp
        ? [{ type: 'Warning', reason: 'Deleting', message: `${resource.metadata.name} is being deleted from namespace ${resource.metadata.namespace}` }]
        : [{ type: 'Normal', reason: 'Serving', message: `serving size ${resource.spec.size} with ${outcome?.served.length} children` }],
  },
});

describe('a kind\u2019s own Events', () => {
  const served = serveTestKindForSuite(announcedKind, 'kind-events');
  const object = (size: number) => ({ apiVersion: 'announced.test.cdk8s-operators.io/v1', kind: 'Announced', metadata: { name: 'hello', namespace: served.namespace }, spec: { size } });
  const notes = async (reason: string) => (await eventsIn(served.objects, served.namespace)).filter((e) => e.reason === reason).map((e) => `${e.type}: ${e.note}`);

  it('records each distinct event once per object, however often it reconciles, and one on deletion', async () => {
    await served.objects.apply(object(1));
    await whenReady(served.objects, object(1), 'True');
    for (let n = 0; n < 5; n++) {
      await served.objects.rest.request('PATCH', `/apis/announced.test.cdk8s-operators.io/v1/namespaces/${served.namespace}/announceds/hello`, { body: { metadata: { labels: { n: String(n) } } }, contentType: 'application/merge-patch+json' });
    }
    await served.objects.apply(object(2));
    await whenReady(served.objects, object(2), 'True');
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect((await notes('Serving')).sort()).toEqual(['Normal: serving size 1 with 1 children', 'Normal: serving size 2 with 1 children']);

    await served.objects.delete(object(2));
    await eventually('the object to go', async () => ((await gone(served.objects, object(2))) ? true : undefined));
    await eventually('the Deleting event', async () => ((await notes('Deleting')).length ? true : undefined));
    expect(await notes('Deleting')).toEqual([`Warning: hello is being deleted from namespace ${served.namespace}`]);
  });
});
