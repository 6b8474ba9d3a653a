import { KubeJson } from '../../src/core/contract/kind';
import { childState } from '../../src/runtime/readiness';

const object = (kind: string, body: Record<string, unknown>, generation = 1): KubeJson => ({ apiVersion: 'v1', kind, metadata: { name: 'x', namespace: 'ns', generation }, ...body });

describe('childState: the kstatus rules for built-in kinds', () => {
  it.each<[string, KubeJson, boolean, string | null]>([
    ['a ConfigMap', object('ConfigMap', { data: {} }), true, null],
    ['a StatefulSet with every replica ready and updated', object('StatefulSet', { spec: { replicas: 2 }, status: { observedGeneration: 1, replicas: 2, readyReplicas: 2, updatedReplicas: 2, currentRevision: 'a', updateRevision: 'a' } }), true, null],
    ['a StatefulSet short of ready replicas', object('StatefulSet', { spec: { replicas: 3 }, status: { observedGeneration: 1, replicas: 3, readyReplicas: 1, updatedReplicas: 3 } }), false, '1 of 3 replicas ready'],
    ['a StatefulSet whose controller lags its generation', object('StatefulSet', { spec: { replicas: 1 }, status: { observedGeneration: 1, readyReplicas: 1, updatedReplicas: 1 } }, 2), false, 'its controller has not observed the latest change yet'],
    ['a StatefulSet rolling a new revision', object('StatefulSet', { spec: { replicas: 1 }, status: { observedGeneration: 1, replicas: 1, readyReplicas: 1, updatedReplicas: 1, currentRevision: 'a', updateRevision: 'b' } }), false, 'rolling out a new revision'],
    ['a DaemonSet on every node', object('DaemonSet', { status: { observedGeneration: 1, desiredNumberScheduled: 2, updatedNumberScheduled: 2, numberAvailable: 2, numberReady: 2 } }), true, null],
    ['a DaemonSet pending on a node', object('DaemonSet', { status: { observedGeneration: 1, desiredNumberScheduled: 2, updatedNumberScheduled: 2, numberAvailable: 1, numberReady: 1 } }), false, '1 of 2 nodes available'],
    ['a Deployment available', object('Deployment', { spec: { replicas: 1 }, status: { observedGeneration: 1, replicas: 1, updatedReplicas: 1, availableReplicas: 1, readyReplicas: 1 } }), true, null],
    ['a Deployment not yet observed', object('Deployment', { spec: {} }), false, 'not observed by its controller yet'],
    ['a completed Job', object('Job', { status: { conditions: [{ type: 'Complete', status: 'True' }] } }), true, null],
    ['a running Job', object('Job', { status: { startTime: '2026-11-23T00:00:00Z', active: 1 } }), false, 'running (1 active, 0 succeeded)'],
    ['a bound claim', object('PersistentVolumeClaim', { status: { phase: 'Bound' } }), true, null],
    ['a pending claim', object('PersistentVolumeClaim', { status: { phase: 'Pending' } }), false, 'not bound yet (Pending)'],
    ['a ClusterIP Service', object('Service', { spec: { type: 'ClusterIP' } }), true, null],
    ['a LoadBalancer Service without an address', object('Service', { spec: { type: 'LoadBalancer' }, status: {} }), false, 'no load balancer address yet'],
    ['a custom resource that is not Ready', object('Widget', { status: { conditions: [{ type: 'Ready', status: 'False', message: 'warming up' }] } }), false, 'warming up'],
  ])('%s', (_name, child, ready, message) => {
    const state = childState(child);
    expect(state.ready).toBe(ready);
    expect(state.message).toBe(message ?? undefined);
    expect(state).toMatchObject({ child: `${child.kind} ns/x`, kind: child.kind, name: 'x', namespace: 'ns' });
  });

  it('marks a failed Job as failed, with its reason', () => {
    const state = childState(object('Job', { status: { conditions: [{ type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' }] } }));
    expect(state).toEqual({ child: 'Job ns/x', kind: 'Job', name: 'x', namespace: 'ns', ready: false, failed: true, message: 'failed (BackoffLimitExceeded): Job has reached the specified backoff limit' });
  });
});
