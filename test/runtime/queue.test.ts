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

  it('wakes waiting workers with undefined on shut down', async () => {
    const queue = new WorkQueue();
    const waiting = queue.next();
    queue.shutDown();
    await expect(waiting).resolves.toBeUndefined();
  });
});
