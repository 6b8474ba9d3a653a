import { ApiObject } from 'cdk8s';
import { eventually } from '../../src/testing/cluster';
import { eventsIn, readyOf, whenReady } from '../support/resources';
import { childrenOf, defineTestKind, serveTestKindForSuite } from '../../src/testing/test-kind';

/** Renders a ConfigMap of its own name; says a conflicting child by its name alone. */
const discreetKind = defineTestKind('DiscreetConflict', {
  manages: [childrenOf('', 'configmaps')],
  controller: { describeConflict: (_resource, child) => `${child.kind} ${child.metadata.name} somewhere` },
  render: (scope, resource) => {
    new ApiObject(scope, 'config', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: resource.metadata.name }, data: { size: String(resource.spec.size) } });
  },
});

describe('a kind that says how its conflicts are named', () => {
  const served = serveTestKindForSuite(discreetKind, 'describe-conflict');

  it('has the Ready message and its Warning Event name a child left alone as the kind says, not by its namespace', async () => {
    await served.objects.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'taken', namespace: served.namespace }, data: { mine: 'yes' } });
    const owner = { apiVersion: 'discreetconflict.test.cdk8s-operators.io/v1', kind: 'DiscreetConflict', metadata: { name: 'taken', namespace: served.namespace }, spec: { size: 1 } };
    await served.objects.create(owner);
    const conflicted = await whenReady(served.objects, owner, 'False', 'Conflict');
    expect(readyOf(conflicted)!.message).toBe('left alone ConfigMap taken somewhere: they exist and DiscreetConflict does not manage them');
    const event = await eventually('a Warning Event', async () => (await eventsIn(served.objects, served.namespace)).find((e) => e.regarding.name === 'taken' && e.reason === 'Conflict'));
    expect(event.note).not.toContain(served.namespace);
  });
});
