import { Manager, Runnable } from '../../src/runtime/manager';

/** A runnable that writes what happens to it into `log`; its start waits for `gate` when given. */
function runnable(name: string, needsLeader: boolean, log: string[], gate?: Promise<void>): Runnable {
  return {
    name,
    needsLeader,
    start: async () => {
      log.push(`start ${name}`);
      await gate;
      log.push(`started ${name}`);
    },
    stop: () => void log.push(`stop ${name}`),
  };
}

describe('Manager', () => {
  test('starts the runnables that need no leader in order, each after the one before started', async () => {
    const log: string[] = [];
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const manager = new Manager().add(runnable('health', false, log, gate)).add(runnable('webhook', false, log));
    const starting = manager.start();
    await Promise.resolve();
    expect(log).toEqual(['start health']);
    open();
    await starting;
    expect(log).toEqual(['start health', 'started health', 'start webhook', 'started webhook']);
  });

  test('starts the runnables that need the leader only once it leads, and only once', async () => {
    const log: string[] = [];
    const manager = new Manager().add(runnable('controller', true, log)).add(runnable('health', false, log)).add(runnable('migration', true, log));
    await manager.start();
    expect(log).toEqual(['start health', 'started health']);
    await manager.lead();
    await manager.lead();
    expect(log.filter((l) => l.startsWith('start '))).toEqual(['start health', 'start controller', 'start migration']);
  });

  test('stops what started in the reverse order of starting, leader runnables first', async () => {
    const log: string[] = [];
    const manager = new Manager().add(runnable('health', false, log)).add(runnable('controller', true, log)).add(runnable('election', false, log)).add(runnable('migration', true, log));
    await manager.start();
    await manager.lead();
    log.length = 0;
    await manager.stop();
    expect(log).toEqual(['stop migration', 'stop controller', 'stop election', 'stop health']);
  });

  test('a runnable that never started is not stopped, and after a stop nothing starts', async () => {
    const log: string[] = [];
    const manager = new Manager().add(runnable('health', false, log)).add(runnable('controller', true, log));
    await manager.start();
    await manager.stop();
    await manager.lead();
    await manager.start();
    expect(log).toEqual(['start health', 'started health', 'stop health']);
  });

  test('a stop during a start stops that runnable too, and the ones after it never start', async () => {
    const log: string[] = [];
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const manager = new Manager().add(runnable('health', false, log)).add(runnable('webhook', false, log, gate)).add(runnable('election', false, log));
    const starting = manager.start();
    await new Promise((resolve) => setImmediate(resolve));
    const stopping = manager.stop();
    open();
    await Promise.all([starting, stopping, manager.stop()]);
    expect(log).toEqual(['start health', 'started health', 'start webhook', 'stop webhook', 'stop health', 'started webhook']);
  });
});
