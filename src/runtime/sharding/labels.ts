import { ENGINE_DOMAIN } from '../../core/install/identity';
import type { KubeJson } from '../../core/contract/kube-json';

/** On an object and each of its children: the shard (replica) that serves it. Objects without it wait for the sharder. */
export const SHARD_LABEL = `${ENGINE_DOMAIN}/shard`;
/** Set by the sharder on an object that is to move: its shard stops working on it, then removes both labels (the acknowledgement). */
export const DRAIN_LABEL = `${ENGINE_DOMAIN}/shard-drain`;

/** The two labels sharding sets, the only ones the sharder's cache keeps. */
const SHARD_LABELS = [SHARD_LABEL, DRAIN_LABEL] as const;

/**
 * Label writes in flight at once, for the leader's relabelling and a replica's takeover alike, so
 * a member leaving does not send thousands of PATCHes together; 8 relabelled about 42 objects a
 * second at 100,000, 32 about 160 (docs/benchmarks.md).
 */
export const RELABEL_WRITES_IN_FLIGHT = 32;

export function labelsOf(object: Pick<KubeJson, 'metadata'>): Record<string, string> {
  return (object.metadata.labels ?? {}) as Record<string, string>;
}

export function isDraining(object: Pick<KubeJson, 'metadata'>): boolean {
  return labelsOf(object)[DRAIN_LABEL] !== undefined;
}

/** A JSON Patch path to a label (RFC 6901 escapes `/` in the key). */
export function labelPath(label: string): string {
  return `/metadata/labels/${label.replace(/~/g, '~0').replace(/\//g, '~1')}`;
}

/** A copy of a rendered child that carries its owner's shard label (top-level labels only: pod templates and selectors stay as rendered, since selectors are immutable). */
export function withShard<T extends Pick<KubeJson, 'metadata'>>(child: T, shard: string | undefined): T {
  if (!shard) return child;
  return { ...child, metadata: { ...child.metadata, labels: { ...child.metadata.labels, [SHARD_LABEL]: shard } } };
}

/**
 * What the sharder reads of a served object: its name, version, deletion and the two shard
 * labels. The leader caches every served object, so the rest of its metadata (uid, creation
 * time, generation, other labels, annotations) is not kept.
 */
export function shardMetadata<T extends KubeJson>(object: T): T {
  const { name, namespace, resourceVersion, deletionTimestamp } = object.metadata;
  const labels = labelsOf(object);
  const kept: Record<string, string> = {};
  for (const label of SHARD_LABELS) if (labels[label] !== undefined) kept[label] = labels[label];
  const metadata = { name, resourceVersion, labels: kept, ...(namespace ? { namespace } : {}), ...(deletionTimestamp ? { deletionTimestamp } : {}) };
  return { apiVersion: object.apiVersion, kind: object.kind, metadata } as T;
}

/** The field manager of a sharded replica's own writes to an owner (status, finalizers), so a write can be told apart by replica: the operator's, per shard. */
export function shardFieldManager(fieldManager: string, shard: string): string {
  return `${fieldManager}-shard-${shard}`;
}
