import { ApiObject } from 'cdk8s';
import { KubeJson, ObservationError, ObservationProblem } from '../../src/core/contract/kind';
import { eventually } from '../../src/testing/cluster';
import { whenReady } from '../support/resources';
import { childrenOf, defineTestKind, serveTestKindForSuite } from '../../src/testing/test-kind';

/**
 * A kind with one ConfigMap per unit of size, whose observation finds size 1 too small: the
 * object `troubled` reports it as a problem (the children still follow the spec), `thrower`
 * throws an ObservationError (its children are left as they are, as before).
 */
const troubledKind = defineTestKind('Troubled', {
  manages: [childrenOf('', 'configmaps')],
  controller: {
    failureReasons: ['TooSmall'],
    observer: () => async (resource) => {
      const problem: ObservationProblem | undefined = resource.spec.size === 1 ? { reason: 'TooSmall', message: 'spec.size: 1 is too small' } : undefined;
      if (problem && resource.metadata.name === 'thrower') throw new ObservationError(problem.reason, problem.message, false);
      return { problem };
    },
    problem: (_resource, observation) => (observation as { problem?: ObservationProblem } | undefined)?.problem,
  },
  render: (scope, resource) => {
    for (let i = 0; i < resource.spec.size; i++) new ApiObject(scope, `c${i}`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${resource.metadata.name}-${i}` }, data: { index: String(i) } });
  },
});

describe('an observation that finds a problem', () => {
  const served = serveTestKindForSuite(troubledKind, 'observation-problem');
  const object = (name: string, size: number) => ({ apiVersion: 'troubled.test.cdk8s-operators.io/v1', kind: 'Troubled', metadata: { name, namespace: served.namespace }, spec: { size } });
  const exists = async (name: string) => (await served.objects.find<KubeJson>({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: served.namespace } })) !== undefined;

  it('still renders and prunes the children, and shows the problem as Ready=False and Stalled', async () => {
    await served.objects.apply(object('troubled', 2));
    await whenReady(served.objects, object('troubled', 2), 'True');
    await served.objects.apply(object('troubled', 1));
    const failing = await whenReady(served.objects, object('troubled', 1), 'False', 'TooSmall');
    expect(failing.status?.conditions).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: 'Ready', status: 'False', reason: 'TooSmall', message: 'spec.size: 1 is too small' }),
        expect.objectContaining({ type: 'Stalled', status: 'True', reason: 'TooSmall' }),
      ]),
    );
    expect([await exists('troubled-0'), await exists('troubled-1')]).toEqual([true, false]);
    await served.objects.apply(object('troubled', 2));
    await whenReady(served.objects, object('troubled', 2), 'True');
    expect(await exists('troubled-1')).toBe(true);
  });

  it('thrown as an ObservationError, leaves the children as they are', async () => {
    await served.objects.apply(object('thrower', 2));
    await whenReady(served.objects, object('thrower', 2), 'True');
    await served.objects.apply(object('thrower', 1));
    await whenReady(served.objects, object('thrower', 1), 'False', 'TooSmall');
    await eventually('thrower-1 still there', async () => ((await exists('thrower-1')) ? true : undefined));
  });
});
