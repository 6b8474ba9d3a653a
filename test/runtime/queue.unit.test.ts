import { WorkQueue } from '../../src/runtime/queue';

describe('WorkQueue', () => {
  it('hands out a key once however often it was added', async () => {
    const queue = new WorkQueue();
    for (const key of ['a', 'b', 'a', 'a', 'b', 'c']) queue.add(key);
    expect(queue.depth).toBe(3);
    expect([await queue.next(), await queue.next(), await queue.next()]).toEqual(['a', 'b', 'c']);
  });

  it('hands out keys first in, first out across thousands waiting, added while others are taken', async () => {
    const queue = new WorkQueue();
    const keys = Array.from({ length: 10_000 }, (_, i) => `ns/k-${i}`);
    keys.slice(0, 6_000).forEach((key) => queue.add(key));
    const taken: string[] = [];
    for (let i = 0; i < 3_500; i++) taken.push((await queue.next())!);
    keys.slice(6_000).forEach((key) => queue.add(key));
    expect(queue.depth).toBe(6_500);
    while (queue.depth) taken.push((await queue.next())!);
    expect(taken).toEqual(keys);
    // A key taken and done may come again, behind the others.
    taken.forEach((key) => queue.done(key));
    queue.add('ns/k-0');
    queue.add('ns/again');
    expect([await queue.next(), await queue.next()]).toEqual(['ns/k-0', 'ns/again']);
  });

  it('never gives a key to a second worker while the first has it, and queues it again for after', async () => {
    const queue = new WorkQueue();
    queue.add('a');
    const first = await queue.next();
    queue.add('a'); // an event during the reconcile
    expect(queue.depth).toBe(0);
    let second: string | undefined;
    void queue.next().then((k) => (second = k));
    await new Promise((r) => setTimeout(r, 20));
    expect(second).toBeUndefined();
    queue.done(first!);
    await new Promise((r) => setTimeout(r, 0));
    expect(second).toBe('a');
    queue.shutDown();
  });

  it('backs off exponentially per key up to a ceiling, and forgets on success', () => {
    const queue = new WorkQueue({ baseMs: 100, maxMs: 1000 });
    expect([1, 2, 3, 4, 5, 6].map(() => queue.addWithBackoff('a'))).toEqual([100, 200, 400, 800, 1000, 1000]);
    expect(queue.addWithBackoff('b')).toBe(100);
    queue.forget('a');
    expect(queue.addWithBackoff('a')).toBe(100);
    queue.shutDown();
  });

  it('requeues after a delay, keeping the earliest schedule for a key', async () => {
    const queue = new WorkQueue();
    queue.addAfter('a', 50);
    queue.addAfter('a', 5000);
    const started = Date.now();
    expect(await queue.next()).toBe('a');
    expect(Date.now() - started).toBeLessThan(1000);
    queue.shutDown();
  });

  it('hands out resyncs (low) only when no event or retry (normal) waits, each line first in, first out', async () => {
    const queue = new WorkQueue();
    for (const key of ['r1', 'r2', 'r3']) queue.add(key, 'low');
    queue.add('e1');
    queue.add('r1', 'low'); // waiting already
    queue.add('e2');
    expect(queue.depth).toBe(5);
    const first = [await queue.next(), await queue.next(), await queue.next()];
    expect(first).toEqual(['e1', 'e2', 'r1']);
    queue.add('e3'); // arrives while resyncs wait: goes before them
    expect([await queue.next(), await queue.next(), await queue.next()]).toEqual(['e3', 'r2', 'r3']);
    expect(queue.depth).toBe(0);
  });

  it('moves a waiting resync up when an event names the key, and hands it out once', async () => {
    const added: string[] = [];
    const queue = new WorkQueue(undefined, { added: (k) => added.push(k), retried: () => undefined, taken: () => undefined, finished: () => undefined });
    for (const key of ['r1', 'r2', 'r3']) queue.add(key, 'low');
    queue.add('r3'); // an event for r3
    expect(queue.depth).toBe(3);
    expect(await queue.next()).toBe('r3');
    queue.done('r3');
    queue.add('r3', 'low'); // its next resync, behind the others
    expect([await queue.next(), await queue.next(), await queue.next()]).toEqual(['r1', 'r2', 'r3']);
    expect(queue.depth).toBe(0);
    expect(added).toEqual(['r1', 'r2', 'r3', 'r3']); // moving up is not a second add
  });

  it('drops a resync of a key in process (that reconcile is the fresh look), not an event', async () => {
    const queue = new WorkQueue();
    queue.add('a');
    const key = (await queue.next())!;
    queue.add('a', 'low');
    queue.done(key);
    expect(queue.depth).toBe(0);
    queue.add('a');
    await queue.next();
    queue.add('a');
    queue.done('a');
    expect(queue.depth).toBe(1);
  });

  it('schedules a resync for later in the low line', async () => {
    const queue = new WorkQueue();
    queue.addAfter('r', 20, 'low');
    await new Promise((r) => setTimeout(r, 60));
    queue.add('e');
    expect([await queue.next(), await queue.next()]).toEqual(['e', 'r']);
    queue.shutDown();
  });

  it('keeps first in, first out in the low line across thousands, with keys moved up meanwhile', async () => {
    const queue = new WorkQueue();
    const keys = Array.from({ length: 5_000 }, (_, i) => `k-${i}`);
    keys.forEach((key) => queue.add(key, 'low'));
    const moved = keys.filter((_, i) => i % 7 === 0);
    moved.forEach((key) => queue.add(key));
    const taken: string[] = [];
    while (queue.depth) taken.push((await queue.next())!);
    expect(taken).toEqual([...moved, ...keys.filter((_, i) => i % 7 !== 0)]);
  });

  it('wakes waiting workers with undefined on shut down', async () => {
    const queue = new WorkQueue();
    const waiting = queue.next();
    queue.shutDown();
    await expect(waiting).resolves.toBeUndefined();
  });
});
