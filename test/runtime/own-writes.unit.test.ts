import { KubeObject } from '../../src/kube/objects';
import { OwnWrites } from '../../src/runtime/own-writes';

type Obj = KubeObject & { status?: { ready?: boolean } };
const version = (resourceVersion: string, extra: Partial<Obj> = {}): Obj => ({
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name: 'w', namespace: 'ns', resourceVersion, ...extra.metadata },
  ...(extra.status ? { status: extra.status } : {}),
});

describe('OwnWrites: our writes read back until the watch delivers them', () => {
  it('answers our write while the cache still holds the version it was made on, the cache once the watch moved on', () => {
    const writes = new OwnWrites<Obj>();
    writes.record(version('1'), version('2', { status: { ready: true } }));
    expect(writes.latest('ns/w', version('1'))?.metadata.resourceVersion).toBe('2');
    writes.seen(version('2', { status: { ready: true } }));
    expect(writes.latest('ns/w', version('2'))?.metadata.resourceVersion).toBe('2');
    // Someone else wrote after us: the cache is newer than our write.
    writes.seen(version('3'));
    expect(writes.latest('ns/w', version('3'))?.metadata.resourceVersion).toBe('3');
  });

  it('keeps the last of two writes in one reconcile (a finalizer, then status) while the watch delivers the first', () => {
    const writes = new OwnWrites<Obj>();
    const finalized = version('2', { metadata: { name: 'w', finalizers: ['example.com/f'] } });
    writes.record(version('1'), finalized);
    // The reconcile goes on with what the finalizer write answered; status is written on that.
    writes.record(finalized, version('3', { status: { ready: true } }));
    writes.seen(finalized);
    expect(writes.latest('ns/w', finalized)?.status).toEqual({ ready: true });
    writes.seen(version('3', { status: { ready: true } }));
    expect(writes.latest('ns/w', version('3'))?.metadata.resourceVersion).toBe('3');
  });

  it('never answers a write for a cache that has no object (deleted meanwhile)', () => {
    const writes = new OwnWrites<Obj>();
    writes.record(version('1'), version('2'));
    expect(writes.latest('ns/w', undefined)).toBeUndefined();
  });
});
