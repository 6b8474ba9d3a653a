import { DRAIN_LABEL, SHARD_LABEL, shardMetadata } from '../../../src/runtime/sharding/labels';

describe('shardMetadata', () => {
  const object = {
    apiVersion: 'meta.k8s.io/v1',
    kind: 'PartialObjectMetadata',
    metadata: {
      name: 'rate-1',
      namespace: 'team-a',
      uid: '3f0c2a9e-0000-4000-8000-000000000001',
      resourceVersion: '4711',
      generation: 3,
      creationTimestamp: '2026-11-27T00:00:00Z',
      labels: { app: 'rates', [SHARD_LABEL]: 'shard-a', [DRAIN_LABEL]: 'shard-b' },
      annotations: { note: 'x'.repeat(500) },
    },
  };

  it('keeps what the sharder reads: the name, the version and the two shard labels', () => {
    expect(shardMetadata(object)).toEqual({
      apiVersion: 'meta.k8s.io/v1',
      kind: 'PartialObjectMetadata',
      metadata: { name: 'rate-1', namespace: 'team-a', resourceVersion: '4711', labels: { [SHARD_LABEL]: 'shard-a', [DRAIN_LABEL]: 'shard-b' } },
    });
  });

  it('keeps a deletion, and no labels where the object has none of the two', () => {
    const deleting = { ...object, metadata: { name: 'cluster-wide', resourceVersion: '9', deletionTimestamp: '2026-11-27T00:01:00Z', labels: { app: 'rates' } } };
    expect(shardMetadata(deleting).metadata).toEqual({ name: 'cluster-wide', resourceVersion: '9', deletionTimestamp: '2026-11-27T00:01:00Z', labels: {} });
  });
});
