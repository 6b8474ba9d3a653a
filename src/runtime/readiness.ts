import { ChildState, KubeJson } from '../core/contract/kind';
import { describeChild } from './ownership';

type Status = Record<string, unknown> & { conditions?: { type: string; status: string; reason?: string; message?: string }[] };
type Verdict = { ready: true } | { ready: false; message: string; failed?: boolean };

const READY: Verdict = { ready: true };
const waiting = (message: string): Verdict => ({ ready: false, message });
const num = (value: unknown, fallback = 0): number => (typeof value === 'number' ? value : fallback);

/**
 * Whether a child does its job yet, by the rules kstatus (what Flux and `kubectl wait` use)
 * applies to built-in kinds. One deliberate difference: a Job is ready when it completed,
 * where kstatus calls a running Job current, since an owner usually waits for its Job's work.
 */
export function childState(child: KubeJson): ChildState {
  const verdict = judge(child);
  const { name, namespace } = child.metadata;
  const which = { child: describeChild(child), kind: child.kind, name, ...(namespace ? { namespace } : {}) };
  return verdict.ready ? { ...which, ready: true } : { ...which, ready: false, message: verdict.message, ...(verdict.failed ? { failed: true } : {}) };
}

function judge(child: KubeJson): Verdict {
  const status = (child.status ?? {}) as Status;
  const spec = (child.spec ?? {}) as Record<string, unknown>;
  const generation = child.metadata.generation;
  if (generation !== undefined && status.observedGeneration !== undefined && num(status.observedGeneration) < generation) {
    return waiting('its controller has not observed the latest change yet');
  }
  const rule = RULES[child.kind];
  if (rule) return rule(spec, status, child);
  return byConditions(status);
}

const RULES: Record<string, (spec: Record<string, unknown>, status: Status, child: KubeJson) => Verdict> = {
  Deployment: (spec, status) => {
    if (status.observedGeneration === undefined) return waiting('not observed by its controller yet');
    const wanted = num(spec.replicas, 1);
    if (num(status.updatedReplicas) < wanted) return waiting(`${num(status.updatedReplicas)} of ${wanted} replicas updated`);
    if (num(status.replicas) > wanted) return waiting(`${num(status.replicas) - wanted} old replicas terminating`);
    if (num(status.availableReplicas) < wanted) return waiting(`${num(status.availableReplicas)} of ${wanted} replicas available`);
    return byConditions(status);
  },
  StatefulSet: (spec, status) => {
    if (status.observedGeneration === undefined) return waiting('not observed by its controller yet');
    const wanted = num(spec.replicas, 1);
    if (num(status.readyReplicas) < wanted) return waiting(`${num(status.readyReplicas)} of ${wanted} replicas ready`);
    const strategy = spec.updateStrategy as { type?: string; rollingUpdate?: { partition?: number } } | undefined;
    if (strategy?.type === 'OnDelete') return READY;
    const partition = num(strategy?.rollingUpdate?.partition);
    if (num(status.updatedReplicas) < wanted - partition) return waiting(`${num(status.updatedReplicas)} of ${wanted - partition} replicas updated`);
    if (partition === 0 && status.updateRevision && status.currentRevision !== status.updateRevision) return waiting('rolling out a new revision');
    if (num(status.replicas) > wanted) return waiting(`${num(status.replicas) - wanted} old replicas terminating`);
    return READY;
  },
  DaemonSet: (_spec, status) => {
    if (status.observedGeneration === undefined) return waiting('not observed by its controller yet');
    const desired = num(status.desiredNumberScheduled);
    if (num(status.updatedNumberScheduled) < desired) return waiting(`${num(status.updatedNumberScheduled)} of ${desired} nodes updated`);
    if (num(status.numberAvailable) < desired) return waiting(`${num(status.numberAvailable)} of ${desired} nodes available`);
    if (num(status.numberReady) < desired) return waiting(`${num(status.numberReady)} of ${desired} nodes ready`);
    return READY;
  },
  ReplicaSet: (spec, status) => {
    const wanted = num(spec.replicas, 1);
    if (num(status.availableReplicas) < wanted) return waiting(`${num(status.availableReplicas)} of ${wanted} replicas available`);
    return READY;
  },
  Job: (_spec, status) => {
    const condition = (type: string) => status.conditions?.find((c) => c.type === type && c.status === 'True');
    const failed = condition('Failed');
    if (failed) return { ready: false, failed: true, message: `failed${failed.reason ? ` (${failed.reason})` : ''}${failed.message ? `: ${failed.message}` : ''}` };
    if (condition('Complete')) return READY;
    return waiting(status.startTime ? `running (${num(status.active)} active, ${num(status.succeeded)} succeeded)` : 'not started yet');
  },
  PersistentVolumeClaim: (_spec, status) => (status.phase === 'Bound' ? READY : waiting(`not bound yet (${String(status.phase ?? 'Pending')})`)),
  Pod: (_spec, status) => {
    if (status.phase === 'Succeeded') return READY;
    if (status.phase === 'Failed') return { ready: false, failed: true, message: 'failed' };
    return status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ? READY : waiting(`not ready (${String(status.phase ?? 'Pending')})`);
  },
  Service: (spec, status) => {
    if (spec.type !== 'LoadBalancer') return READY;
    const ingress = (status.loadBalancer as { ingress?: unknown[] } | undefined)?.ingress;
    return ingress?.length ? READY : waiting('no load balancer address yet');
  },
};

/** Any other kind: ready unless its conditions say otherwise (Ready=False, Reconciling=True, Stalled=True). */
function byConditions(status: Status): Verdict {
  const has = (type: string, value: string) => status.conditions?.find((c) => c.type === type && c.status === value);
  const stalled = has('Stalled', 'True');
  if (stalled) return { ready: false, failed: true, message: stalled.message ?? 'stalled' };
  const reconciling = has('Reconciling', 'True');
  if (reconciling) return waiting(reconciling.message ?? 'reconciling');
  const notReady = has('Ready', 'False');
  if (notReady) return waiting(notReady.message ?? 'not ready');
  return READY;
}
