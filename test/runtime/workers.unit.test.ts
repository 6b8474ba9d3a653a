import { ApiObject } from 'cdk8s';
import type { KindServer } from '../../src/runtime/kind-server';
import { createLogger } from '../../src/runtime/log';
import { EngineMetrics } from '../../src/runtime/engine-metrics';
import { Metrics } from '../../src/runtime/metrics';
import { WorkQueue } from '../../src/runtime/queue';
import { itemKey, queueItem } from '../../src/runtime/queue-item';
import { HELD_WORK_RETRY_MS, runWorker } from '../../src/runtime/workers';
import { defineTestKind } from '../../src/testing/test-kind';

const kind = defineTestKind('Held', { render: (scope, resource) => void new ApiObject(scope, 'map', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: resource.metadata.name } }) });

describe('runWorker', () => {
  it('holds work while the replica may not work (a late membership renewal), and does it once it may again', async () => {
    const queue = new WorkQueue();
    const reconciled: string[] = [];
    // The worker loop's only use of a kind server: its kind and one reconcile per item.
    const server = {
      kind,
      reconcile: async (item: { name: string }) => {
        reconciled.push(item.name);
        return {};
      },
    } as unknown as KindServer;
    let may = false;
    const worker = runWorker({ queue, serverOf: () => server, metrics: new EngineMetrics(new Metrics({ prefix: 'test' }), [kind], 1), log: createLogger({ level: 'error', write: () => undefined }), mayWork: () => may });
    queue.add(itemKey(queueItem('helds.held.test.cdk8s-operators.io', { namespace: 'team', name: 'a' })));
    await new Promise((resolve) => setTimeout(resolve, HELD_WORK_RETRY_MS / 2));
    expect(reconciled).toEqual([]);
    may = true;
    await new Promise((resolve) => setTimeout(resolve, HELD_WORK_RETRY_MS * 2));
    expect(reconciled).toEqual(['a']);
    queue.shutDown();
    await worker;
  });
});
