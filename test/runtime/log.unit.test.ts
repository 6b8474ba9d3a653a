import { createLogger, LogLevel } from '../../src/runtime/log';

/** A logger that collects its lines, parsed. */
function capture(level?: LogLevel, base?: Record<string, unknown>) {
  const lines: string[] = [];
  const log = createLogger({ level, base, write: (line) => lines.push(line) });
  return { log, lines, parsed: () => lines.map((l) => JSON.parse(l)) };
}

describe('createLogger', () => {
  it('writes one JSON object per line: level, time, the fields, msg', () => {
    const { log, lines } = capture();
    log.info('reconciled', { kind: 'Database', generation: 3, ok: true });
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain('\n');
    const line = JSON.parse(lines[0]);
    expect(Object.keys(line)).toEqual(['level', 'time', 'kind', 'generation', 'ok', 'msg']);
    expect(line).toMatchObject({ level: 'info', msg: 'reconciled', kind: 'Database', generation: 3, ok: true });
    expect(new Date(line.time).toISOString()).toBe(line.time);
  });

  it('carries base and child fields on every line; a line field wins over a child field', () => {
    const { log, lines, parsed } = capture('info', { app: 'operator' });
    const child = log.child({ kind: 'Database', namespace: 'team-a', name: 'orders' });
    child.info('applied');
    child.child({ step: 'backup' }).warn('slow', { name: 'orders-backup' });
    // Merged, not repeated: a line never holds a key twice.
    expect(lines[1].match(/"name"/g)).toHaveLength(1);
    log.info('unrelated');
    expect(parsed()).toMatchObject([
      { msg: 'applied', app: 'operator', kind: 'Database', namespace: 'team-a', name: 'orders' },
      { level: 'warn', msg: 'slow', app: 'operator', kind: 'Database', namespace: 'team-a', name: 'orders-backup', step: 'backup' },
      { msg: 'unrelated', app: 'operator' },
    ]);
    expect(parsed()[2]).not.toHaveProperty('kind');
  });

  it('keeps time, level and msg when a field has the same name', () => {
    const { log, parsed } = capture();
    log.info('real', { msg: 'field', level: 'x' });
    expect(parsed()[0]).toMatchObject({ msg: 'real', level: 'info', 'fields.msg': 'field', 'fields.level': 'x' });
  });

  it('writes Errors as {message, name}, without the stack unless asked', () => {
    const { log, parsed } = capture();
    const error = new TypeError('boom');
    log.error('failed', { error, nested: { cause: new RangeError('deep') } });
    expect(parsed()[0]).toEqual(expect.objectContaining({ error: { message: 'boom', name: 'TypeError' }, nested: { cause: { message: 'deep', name: 'RangeError' } } }));

    const lines: string[] = [];
    createLogger({ stacks: true, write: (l) => lines.push(l) }).error('failed', { error });
    expect(JSON.parse(lines[0]).error.stack).toContain('boom');
  });

  it('redacts fields named like secrets, case-insensitively and at any depth', () => {
    const { log, lines, parsed } = capture();
    log.child({ apiToken: 't0k3n' }).info('request', {
      password: 'hunter2',
      DB_PASSWORD: 'hunter3',
      clientSecret: { value: 'shh' },
      headers: { Authorization: 'Bearer abc', accept: 'json' },
      user: 'alice',
    });
    expect(parsed()[0]).toMatchObject({
      apiToken: '[redacted]',
      password: '[redacted]',
      DB_PASSWORD: '[redacted]',
      clientSecret: '[redacted]',
      headers: { Authorization: '[redacted]', accept: 'json' },
      user: 'alice',
    });
    for (const secret of ['t0k3n', 'hunter2', 'hunter3', 'shh', 'Bearer abc']) expect(lines[0]).not.toContain(secret);
  });

  it('writes only lines at or above its level; the default level is info', () => {
    const levels: LogLevel[] = ['debug', 'info', 'warn', 'error'];
    const seen = (level?: LogLevel) => {
      const { log, parsed } = capture(level);
      for (const l of levels) log[l](l);
      log.child({ a: 1 }).debug('child debug');
      return parsed().map((line) => line.msg);
    };
    expect(seen()).toEqual(['info', 'warn', 'error']);
    expect(seen('debug')).toEqual(['debug', 'info', 'warn', 'error', 'child debug']);
    expect(seen('warn')).toEqual(['warn', 'error']);
    expect(seen('error')).toEqual(['error']);
    expect(() => createLogger({ level: 'verbose' as LogLevel })).toThrow('log level must be one of debug, info, warn, error, got "verbose"');
  });

  it('never throws on values JSON cannot write: cycles, bigints, functions; writes a shared object twice', () => {
    const { log, parsed } = capture();
    const cycle: Record<string, unknown> = { name: 'a' };
    cycle.self = cycle;
    const shared = { x: 1 };
    log.info('odd', { cycle, big: 10n, fn: () => 1, when: new Date(0), url: new URL('https://example.com/x'), pair: [shared, shared] });
    expect(parsed()[0]).toMatchObject({
      cycle: { name: 'a', self: '[circular]' },
      big: '10',
      when: '1970-01-01T00:00:00.000Z',
      url: 'https://example.com/x',
      pair: [{ x: 1 }, { x: 1 }],
    });
    expect(parsed()[0]).not.toHaveProperty('fn');
  });

  it('writes to standard output by default', () => {
    const write = jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
    try {
      createLogger().info('hello');
      expect(write).toHaveBeenCalledTimes(1);
      const text = String(write.mock.calls[0][0]);
      expect(text.endsWith('\n')).toBe(true);
      expect(JSON.parse(text).msg).toBe('hello');
    } finally {
      write.mockRestore();
    }
  });
});
