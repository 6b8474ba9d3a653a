import { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import { eventually } from '../../src/testing/cluster';
import { whenReady } from '../support/resources';
import { childrenOf, defineTestKind, metricValue, serveTestKindForSuite } from '../../src/testing/test-kind';

const CONFIGMAPS = { apiGroup: '', resource: 'configmaps' };
const configMap = (scope: Construct, id: string, name: string) => new ApiObject(scope, id, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { made: id } });

/** A kind that renders one child and reads nothing: the echo of its write tells it nothing. */
const plainKind = defineTestKind('Plain', {
  manages: [childrenOf('', 'configmaps')],
  render: (scope, resource) => void configMap(scope, 'only', resource.metadata.name),
});

/** A kind whose observer reads its own children: its second child needs the first one cached. */
const chainedKind = defineTestKind('Chained', {
  manages: [childrenOf('', 'configmaps')],
  controller: {
    observer:
      ({ caches }) =>
      async (resource) => ({ first: caches.get(CONFIGMAPS, `${resource.metadata.namespace}/${resource.metadata.name}-first`) !== undefined }),
  },
  render: (scope, resource, observation) => {
    configMap(scope, 'first', `${resource.metadata.name}-first`);
    if ((observation as { first?: boolean } | undefined)?.first) configMap(scope, 'second', `${resource.metadata.name}-second`);
  },
});

describe('the echo of our own child write', () => {
  describe('for a kind that reads no children', () => {
    const served = serveTestKindForSuite(plainKind, 'echo-plain');

    it('queues no second reconcile', async () => {
      const object = { apiVersion: 'plain.test.cdk8s-operators.io/v1', kind: 'Plain', metadata: { name: 'once', namespace: served.namespace }, spec: { size: 1 } };
      await served.objects.apply(object);
      await whenReady(served.objects, object, 'True');
      await eventually('the child cached and its echo come', async () => ((await served.objects.find({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'once', namespace: served.namespace } })) ? true : undefined));
      await new Promise((resolve) => setTimeout(resolve, 2000));
      expect(metricValue(served.metrics, 'controller_runtime_reconcile_total', { controller: 'plain', result: 'success' })).toBe(1);
    });
  });

  describe('for a kind whose observer reads its children', () => {
    const served = serveTestKindForSuite(chainedKind, 'echo-chained');

    it('reconciles again once its write is cached, so a render that depends on it goes on', async () => {
      const object = { apiVersion: 'chained.test.cdk8s-operators.io/v1', kind: 'Chained', metadata: { name: 'chain', namespace: served.namespace }, spec: { size: 1 } };
      await served.objects.apply(object);
      await eventually('the second child', async () => served.objects.find({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'chain-second', namespace: served.namespace } }));
    });
  });
});
