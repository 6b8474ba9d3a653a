import { UserError } from '../../src/core/errors';
import { envName, helpOf, OptionSpec, OptionValues, parseCommandLine, specCommand } from '../../src/commands/command-line';

const SPECS: readonly OptionSpec[] = [
  { name: 'exchange-rate-url', description: 'Where rates come from.', type: 'string', default: 'https://rates.example/v1' },
  { name: 'workers', description: 'Resources reconciled in parallel.', type: 'integer', default: '2' },
  { name: 'health-port', description: 'Port of /healthz, /readyz and /metrics.', type: 'integer', default: '8080', min: 0 },
  { name: 'leader-elect', description: 'Run leader election.', type: 'boolean', default: 'false' },
  { name: 'resync', description: 'How often every resource is reconciled anyway.', type: 'duration', default: '10m' },
  { name: 'namespaces', description: 'Namespaces to watch; empty for all.', type: 'list' },
  { name: 'api-token', description: 'Token for the rates API.', type: 'string' },
  { name: 'secret-rotation', description: 'How often to rotate.', type: 'duration', default: '24h' },
  { name: 'log-level', description: 'How much to log.', type: 'string', default: 'info', choices: ['debug', 'info'] },
];

/** The values, or { help: true } when parseCommandLine says the help was asked for. */
function parseOptions(specs: readonly OptionSpec[], argv: string[], env: Record<string, string | undefined>): OptionValues {
  return parseCommandLine(specCommand('test', '', specs), specs, argv, env)?.values ?? { help: true };
}
const parse = (argv: string[], env: Record<string, string | undefined> = {}) => parseOptions(SPECS, argv, env);
const failure = (argv: string[], env: Record<string, string | undefined> = {}) => {
  try {
    parse(argv, env);
  } catch (err) {
    expect(err).toBeInstanceOf(UserError);
    return (err as Error).message;
  }
  throw new Error(`expected ${JSON.stringify({ argv, env })} to fail`);
};

describe('envName', () => {
  it('upper-cases and turns dashes into underscores', () => {
    expect(envName('exchange-rate-url')).toBe('EXCHANGE_RATE_URL');
    expect(envName('workers')).toBe('WORKERS');
    expect(envName('secret-copy', 'CDK8S_OPERATORS_')).toBe('CDK8S_OPERATORS_SECRET_COPY');
  });
});

describe('parseOptions', () => {
  it('gives every default, parsed, and undefined where there is none', () => {
    expect(parse([])).toEqual({
      'exchange-rate-url': 'https://rates.example/v1',
      workers: 2,
      'health-port': 8080,
      'leader-elect': false,
      resync: 600_000,
      namespaces: undefined,
      'api-token': undefined,
      'secret-rotation': 86_400_000,
      'log-level': 'info',
    });
  });

  it('parses every type from flags', () => {
    const values = parse(['--exchange-rate-url=http://x/y?a=b', '--workers', '8', '--health-port=0', '--leader-elect', '--resync=1h30m', '--namespaces', ' a, b,,c ']);
    expect(values).toMatchObject({ 'exchange-rate-url': 'http://x/y?a=b', workers: 8, 'health-port': 0, 'leader-elect': true, resync: 5_400_000, namespaces: ['a', 'b', 'c'] });
  });

  it('parses booleans: bare flag, =true/=false in any case, and from the environment', () => {
    expect(parse(['--leader-elect=false'])['leader-elect']).toBe(false);
    expect(parse(['--leader-elect=TRUE'])['leader-elect']).toBe(true);
    expect(parse([], { LEADER_ELECT: 'true' })['leader-elect']).toBe(true);
    expect(parse(['--leader-elect=false'], { LEADER_ELECT: 'true' })['leader-elect']).toBe(false);
    expect(parse(['--leader-elect', 'false', '--workers=3'])).toMatchObject({ 'leader-elect': false, workers: 3 });
    expect(parse(['--leader-elect', '--workers=3'])).toMatchObject({ 'leader-elect': true, workers: 3 });
  });

  it('takes one of the choices of a string', () => {
    expect(parse(['--log-level=debug'])['log-level']).toBe('debug');
    expect(parse([], { LOG_LEVEL: 'debug' })['log-level']).toBe('debug');
  });

  it('reads only the environment it is given, not the process’s', () => {
    process.env.WORKERS = '7';
    try {
      expect(parse([], {}).workers).toBe(2);
    } finally {
      delete process.env.WORKERS;
    }
  });

  it('parses durations like Go: units ms, s, m, h, combined and fractional, and a bare 0', () => {
    const ms = (text: string) => parse([`--resync=${text}`]).resync;
    expect([ms('500ms'), ms('30s'), ms('5m'), ms('2h'), ms('1m30s'), ms('1.5s'), ms('1h2m3s4ms'), ms('0')]).toEqual([500, 30_000, 300_000, 7_200_000, 90_000, 1500, 3_723_004, 0]);
  });

  it('takes an empty list and an empty string from a flag', () => {
    expect(parse(['--namespaces='])).toMatchObject({ namespaces: [] });
    expect(parse(['--exchange-rate-url='])).toMatchObject({ 'exchange-rate-url': '' });
  });

  it('takes a flag over the environment over the default; an empty variable counts as unset', () => {
    expect(parse([], { WORKERS: '4' }).workers).toBe(4);
    expect(parse(['--workers=6'], { WORKERS: '4' }).workers).toBe(6);
    expect(parse([], { WORKERS: '' }).workers).toBe(2);
    expect(parse([], { NAMESPACES: 'x,y' }).namespaces).toEqual(['x', 'y']);
    expect(parse(['--workers=3', '--workers=5']).workers).toBe(5);
  });

  it('never reads a variable that is wrong only in the environment when the flag is given', () => {
    expect(parse(['--workers=3'], { WORKERS: 'many' }).workers).toBe(3);
  });

  it('answers --help and -h with { help: true } even next to bad options', () => {
    expect(parse(['--help'])).toEqual({ help: true });
    expect(parse(['--nope', '-h'], { WORKERS: 'many' })).toEqual({ help: true });
  });

  describe('errors', () => {
    it('names an unknown flag, suggests a near one and --help', () => {
      expect(failure(['--wokers=3'])).toBe('unknown flag --wokers (did you mean --workers?); see --help');
      expect(failure(['--verbose'])).toBe('unknown flag --verbose; see --help');
    });

    it('names a flag without its value and what was expected', () => {
      expect(failure(['--workers'])).toBe('--workers: missing value (expected a positive integer)');
      expect(failure(['--api-token'])).toBe('--api-token: missing value (expected a string)');
      // As in every commander program, a value may start with a dash (--offset -1): the next argument is the value.
      expect(failure(['--resync', '--workers=2'])).toBe('--resync: expected a duration like 500ms, 30s, 5m or 1h30m, got "--workers=2"');
    });

    it('names the flag or variable, what was expected and what was given, for every type', () => {
      expect(failure(['--workers=many'])).toBe('--workers: expected a positive integer, got "many"');
      expect(failure(['--workers=0'])).toBe('--workers: expected a positive integer, got "0"');
      expect(failure(['--workers=2.5'])).toBe('--workers: expected a positive integer, got "2.5"');
      expect(failure(['--health-port=-1'])).toBe('--health-port: expected a non-negative integer, got "-1"');
      expect(failure([], { WORKERS: 'many' })).toBe('WORKERS: expected a positive integer, got "many"');
      expect(failure(['--leader-elect=yes'])).toBe('--leader-elect: expected true or false, got "yes"');
      expect(failure([], { LEADER_ELECT: '1' })).toBe('LEADER_ELECT: expected true or false, got "1"');
      expect(failure(['--resync=10'])).toBe('--resync: expected a duration like 500ms, 30s, 5m or 1h30m, got "10"');
      expect(failure([], { RESYNC: '5 minutes' })).toBe('RESYNC: expected a duration like 500ms, 30s, 5m or 1h30m, got "5 minutes"');
      expect(failure(['--resync=-5s'])).toBe('--resync: expected a duration like 500ms, 30s, 5m or 1h30m, got "-5s"');
      expect(failure(['--log-level=loud'])).toBe('--log-level: expected one of debug, info, got "loud"');
      expect(failure([], { LOG_LEVEL: 'loud' })).toBe('LOG_LEVEL: expected one of debug, info, got "loud"');
    });

    it('names an unexpected positional argument', () => {
      expect(failure(['--workers=3', 'stray'])).toBe('unexpected argument "stray": options are written --name=value (see --help)');
      // A bare boolean flag takes the next argument only when it is true or false.
      expect(failure(['--leader-elect', 'yes'])).toBe('unexpected argument "yes": options are written --name=value (see --help)');
    });

    it('names a bad default as the default, so a programming error is told apart from a user error', () => {
      expect(() => parseOptions([{ name: 'n', description: 'N.', type: 'integer', default: 'x' }], [], {})).toThrow('the default of --n: expected a positive integer, got "x"');
    });

    it('never echoes the value of an option named like a password, token or secret', () => {
      const message = failure(['--secret-rotation=hunter2']);
      expect(message).toBe('--secret-rotation: expected a duration like 500ms, 30s, 5m or 1h30m, got a value not shown here because the option is secret');
      expect(failure([], { SECRET_ROTATION: 'hunter2' })).not.toContain('hunter2');
      expect(failure(['--api-tokn=hunter2'])).toBe('unknown flag --api-tokn (did you mean --api-token?); see --help');
      expect(failure(['--api-token'])).toBe('--api-token: missing value (expected a string)');
    });
  });
});

describe('help', () => {
  const help = () => helpOf(specCommand('cdk8s-operators controller', 'Runs the controller.', SPECS));

  it('lists every option with its variable, type, default and description', () => {
    const text = help();
    expect(text).toMatch(/^usage: cdk8s-operators controller \[options\]\n\nRuns the controller\.\n\noptions:\n/);
    expect(text).toContain('Every option can also be set by the environment variable shown; a flag beats the variable, which beats the default.');
    const line = (flag: string) => text.slice(text.indexOf(flag)).split(/\n {2}-/)[0].replace(/\s+/g, ' ');
    expect(line('--exchange-rate-url <string>')).toBe('--exchange-rate-url <string> Where rates come from. (a string) (default: "https://rates.example/v1", env: EXCHANGE_RATE_URL)');
    expect(line('--workers <integer>')).toBe('--workers <integer> Resources reconciled in parallel. (a positive integer) (default: "2", env: WORKERS)');
    expect(line('--health-port <integer>')).toContain('(a non-negative integer) (default: "8080", env: HEALTH_PORT)');
    expect(line('--leader-elect [boolean]')).toContain('(true or false) (default: "false", env: LEADER_ELECT)');
    expect(line('--resync <duration>')).toContain('(a duration like 500ms, 30s, 5m or 1h30m) (default: "10m", env: RESYNC)');
    expect(line('--namespaces <list>')).toContain('(a comma-separated list) (env: NAMESPACES)');
    expect(line('--log-level <string>')).toContain('(choices: "debug", "info", default: "info", env: LOG_LEVEL)');
    expect(line('-h, --help')).toMatch(/^-h, --help show this help /);
  });

  it('never shows the default of a secret option', () => {
    expect(help().slice(help().indexOf('--secret-rotation')).replace(/\s+/g, ' ')).toContain('(default: (hidden), env: SECRET_ROTATION)');
    expect(help()).not.toContain('24h');
  });

  it('is asked for by parseCommandLine with undefined', () => {
    expect(parseCommandLine(specCommand('x', '', SPECS), SPECS, ['--workers=many', '--help'], {})).toBeUndefined();
  });
});
