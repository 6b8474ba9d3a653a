import { ApiObject } from 'cdk8s';
import { CustomResource } from '../../src/core/contract/kind';
import { childLabels, isEngineLabel, MANAGED_BY_LABEL, OWNER_KIND_LABEL, OWNER_NAME_LABEL, OWNER_NAMESPACE_LABEL, PART_OF_LABEL, withoutEngineLabels } from '../../src/core/kit/names';
import { renderChildren } from '../../src/core/render';
import { defineTestKind, TestSpec } from '../../src/testing/test-kind';

/** Labels that say "I am Database victim's child in team-b": what a forged child would carry. */
const FORGED = {
  [MANAGED_BY_LABEL]: 'someone-else',
  [PART_OF_LABEL]: 'someone-else',
  [OWNER_KIND_LABEL]: 'databases.postgres-operator.example',
  [OWNER_NAME_LABEL]: 'victim',
  [OWNER_NAMESPACE_LABEL]: 'team-b',
  'cdk8s-operators.io/shard': 'shard-9',
};

/** A kind whose constructs label their child as another owner's, and bring a label of their own. */
const forgerKind = defineTestKind('Forger', {
  render: (scope, resource) => {
    new ApiObject(scope, 'config', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: resource.metadata.name, labels: { ...FORGED, app: 'mine' } }, data: {} });
  },
});

describe('the labels the engine gives every child', () => {
  const owner = { apiVersion: 'forger.test.cdk8s-operators.io/v1', kind: 'Forger', metadata: { name: 'forger', namespace: 'team-a' }, spec: { size: 1 } } as CustomResource<TestSpec>;

  it('are set last: a construct cannot label its child as another owner\u2019s, yet keeps its own labels', () => {
    const [child] = renderChildren(forgerKind, owner);
    expect(child.metadata.labels).toEqual({ ...childLabels(forgerKind, owner), app: 'mine' });
  });

  it('are the only engine labels a child of a cluster-scoped owner carries (no forged owner namespace)', () => {
    const clusterKind = { ...forgerKind, scope: 'Cluster' as const };
    const clusterOwner = { ...owner, metadata: { name: 'forger' } };
    const [child] = renderChildren(clusterKind, clusterOwner);
    expect(child.metadata.labels).toEqual({ ...childLabels(clusterKind, clusterOwner), app: 'mine' });
    expect(child.metadata.labels).not.toHaveProperty(OWNER_NAMESPACE_LABEL);
  });

  it('are told apart from anyone else\u2019s by withoutEngineLabels', () => {
    expect(Object.keys(FORGED).every(isEngineLabel)).toBe(true);
    expect(withoutEngineLabels({ ...FORGED, app: 'mine', 'app.kubernetes.io/name': 'x' })).toEqual({ app: 'mine', 'app.kubernetes.io/name': 'x' });
    expect(withoutEngineLabels(undefined)).toEqual({});
  });
});
