/**
 * The controller's options, each settable by a flag (--workers=4) or by the environment
 * variable of the same name (WORKERS=4): flags suit a terminal, variables suit a Deployment.
 */

export interface OptionSpec {
  /** The flag without --, in kebab-case; its variable is envName(name). */
  readonly name: string;
  /** One line for --help. */
  readonly description: string;
  /** duration gives milliseconds ("90s", "5m", "1h30m"); list gives the comma-separated items. */
  readonly type: 'string' | 'integer' | 'boolean' | 'duration' | 'list';
  /** The value when neither flag nor variable is given, written as a user would write it. Default: none (undefined). */
  readonly default?: string;
  /** integer only: the smallest value taken. Default: 1 (a count of workers or seconds is positive); use 0 for a port that may be "any". */
  readonly min?: number;
}

export type OptionValues = Record<string, string | number | boolean | string[] | undefined>;

/** A bad command line or environment, for one line on stderr and a non-zero exit. */
export class OptionError extends Error {}

/** exchange-rate-url -> EXCHANGE_RATE_URL */
export function envName(option: string): string {
  return option.replace(/-/g, '_').toUpperCase();
}

/** Options whose values must never appear in an error or in --help. */
function isSecret(spec: OptionSpec): boolean {
  return /password|token|secret/i.test(spec.name);
}

/**
 * The value of every option, keyed by its name: the flag beats the variable, which beats the
 * default. Flags: --name=value, --name value, and a bare --name for booleans. --help or -h
 * anywhere gives { help: true } and nothing else, so a broken setting never hides the help.
 */
export function parseOptions(specs: readonly OptionSpec[], argv: string[], env: Record<string, string | undefined>): OptionValues {
  if (argv.includes('--help') || argv.includes('-h')) return { help: true };
  const flags = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith('--')) throw new OptionError(`unexpected argument "${arg}": options are written --name=value (see --help)`);
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq < 0 ? undefined : eq);
    const spec = specs.find((s) => s.name === name);
    if (!spec) throw new OptionError(`unknown flag --${name}${suggestion(name, specs)}; see --help`);
    if (eq >= 0) flags.set(name, arg.slice(eq + 1));
    else if (spec.type === 'boolean') flags.set(name, 'true');
    else if (i + 1 < argv.length && !argv[i + 1].startsWith('--')) flags.set(name, argv[++i]);
    else throw new OptionError(`--${name}: missing value (expected ${EXPECTED[spec.type](spec)})`);
  }
  const values: OptionValues = {};
  for (const spec of specs) {
    const fromEnv = env[envName(spec.name)];
    // An empty variable counts as unset: `env: [{name: X, value: ""}]` in a Deployment means "no value", not "an empty string".
    if (flags.has(spec.name)) values[spec.name] = parse(spec, flags.get(spec.name)!, `--${spec.name}`);
    else if (fromEnv !== undefined && fromEnv !== '') values[spec.name] = parse(spec, fromEnv, envName(spec.name));
    else if (spec.default !== undefined) values[spec.name] = parse(spec, spec.default, `the default of --${spec.name}`);
    else values[spec.name] = undefined;
  }
  return values;
}

/** Every option with its variable, type, default and description. */
export function helpText(command: string, specs: readonly OptionSpec[]): string {
  const lines = [`usage: ${command} [options]`, '', 'Every option can also be set by the environment variable shown; a flag beats the variable, which beats the default.', ''];
  for (const spec of specs) {
    const flag = spec.type === 'boolean' ? `--${spec.name}[=true|false]` : `--${spec.name}=<${spec.type}>`;
    const defaultText = spec.default === undefined ? 'no default' : `default ${isSecret(spec) ? '(hidden)' : JSON.stringify(spec.default)}`;
    lines.push(`  ${flag}`, `      ${spec.description}`, `      env ${envName(spec.name)}; ${EXPECTED[spec.type](spec)}; ${defaultText}`);
  }
  lines.push('  -h, --help', '      Show this help.');
  return lines.join('\n');
}

const EXPECTED: Record<OptionSpec['type'], (spec: OptionSpec) => string> = {
  string: () => 'a string',
  integer: (spec) => {
    const min = spec.min ?? 1;
    return min === 1 ? 'a positive integer' : min === 0 ? 'a non-negative integer' : `an integer >= ${min}`;
  },
  boolean: () => 'true or false',
  duration: () => 'a duration like 500ms, 30s, 5m or 1h30m',
  list: () => 'a comma-separated list',
};

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

function parse(spec: OptionSpec, text: string, source: string): string | number | boolean | string[] {
  const fail = (): never => {
    const shown = isSecret(spec) ? 'a value not shown here because the option is secret' : JSON.stringify(text);
    throw new OptionError(`${source}: expected ${EXPECTED[spec.type](spec)}, got ${shown}`);
  };
  switch (spec.type) {
    case 'string':
      return text;
    case 'list':
      return text.split(',').map((item) => item.trim()).filter((item) => item !== '');
    case 'boolean': {
      const lower = text.trim().toLowerCase();
      return lower === 'true' ? true : lower === 'false' ? false : fail();
    }
    case 'integer': {
      const n = /^\s*-?\d+\s*$/.test(text) ? Number(text) : NaN;
      return Number.isSafeInteger(n) && n >= (spec.min ?? 1) ? n : fail();
    }
    case 'duration': {
      // Go's time.ParseDuration without its sign and sub-millisecond units; a bare 0 is the one unitless duration.
      const trimmed = text.trim();
      if (trimmed === '0') return 0;
      const parts = [...trimmed.matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)];
      if (!parts.length || parts.map((p) => p[0]).join('') !== trimmed) return fail();
      return Math.round(parts.reduce((total, [, amount, unit]) => total + Number(amount) * UNIT_MS[unit], 0));
    }
  }
}

/** " (did you mean --workers?)" for a typo within two edits of a known flag. */
function suggestion(name: string, specs: readonly OptionSpec[]): string {
  const near = specs.map((s) => ({ s, d: distance(name, s.name) })).filter((x) => x.d <= 2).sort((a, b) => a.d - b.d)[0];
  return near ? ` (did you mean --${near.s.name}?)` : '';
}

function distance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length];
}
