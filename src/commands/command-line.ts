/**
 * The one argument parser of every command (controller, ui, render, diff, synth, the
 * benchmarks), on commander. Options declared as OptionSpec (the engine's, and each kind's
 * KindController.options) are settable by a flag (--workers=4) or by the environment variable
 * of the same name (WORKERS=4): flags suit a terminal, variables suit a Deployment.
 */
import { Command, CommanderError, Option } from 'commander';
import { DURATION_EXPECTED, durationMs } from '../core/kit/duration';
import { UserError } from '../core/errors';
import type { OptionSpec } from '../core/contract/options';

export type { OptionSpec } from '../core/contract/options';

export type OptionValues = Record<string, string | number | boolean | string[] | undefined>;

/** What a command line held: the options' values by name, and the arguments that are not options. */
export interface CommandLine {
  readonly values: OptionValues;
  readonly operands: string[];
}

/** --kubeconfig of every command that talks to a cluster. */
export const KUBECONFIG_OPTION: OptionSpec = {
  name: 'kubeconfig',
  type: 'string',
  description: 'A kubeconfig file; without it, the Pod\u2019s service account in a cluster, else $KUBECONFIG or ~/.kube/config.',
};

import { envName } from '../core/contract/options';

export { envName };

/** Options whose values must never appear in an error or in --help (a switch holds no secret, whatever its name says). */
function isSecret(spec: OptionSpec): boolean {
  return spec.type !== 'boolean' && /password|token|secret/i.test(spec.name);
}

const ENV_NOTE = 'Every option can also be set by the environment variable shown; a flag beats the variable, which beats the default.';

/**
 * A command with the house style: lower-case titles as the usage line had before, `-h,
 * --help`, errors thrown (not printed, not exiting) so that src/cli.ts reports them once.
 */
export function newCommand(name: string, description: string): Command {
  return new Command(name)
    .description(description)
    .helpOption('-h, --help', 'show this help')
    .configureHelp({ styleTitle: (title) => title.toLowerCase(), helpWidth: 100 })
    .exitOverride()
    .configureOutput({ writeOut: () => undefined, writeErr: () => undefined, outputError: () => undefined });
}

/**
 * A command whose options are these specs, their variables named envName(name, envPrefix), or
 * without variables for a null prefix; more options may be added to it.
 */
export function specCommand(name: string, description: string, specs: readonly OptionSpec[], envPrefix: string | null = ''): Command {
  const command = newCommand(name, description);
  for (const spec of specs) command.addOption(toOption(spec, envPrefix));
  if (specs.length && envPrefix !== null) command.addHelpText('after', `\n${ENV_NOTE}`);
  return command;
}

function toOption(spec: OptionSpec, envPrefix: string | null): Option {
  // A boolean's value is optional: a bare --leader-election means true.
  const option = new Option(spec.type === 'boolean' ? `--${spec.name} [boolean]` : `--${spec.name} <${spec.type}>`, spec.choices ? spec.description : `${spec.description} (${expected(spec)})`);
  // For --help only: commander reads process.env itself, and counts an empty variable as set (see parseCommandLine).
  if (envPrefix !== null) option.env(envName(spec.name, envPrefix));
  if (spec.default !== undefined) option.default(spec.default, isSecret(spec) ? '(hidden)' : JSON.stringify(spec.default));
  if (spec.choices) option.argChoices = [...spec.choices];
  return option;
}

/** The help of a command, as --help prints it (with the text added after it). */
export function helpOf(command: Command): string {
  let text = '';
  command.configureOutput({ writeOut: (chunk) => (text += chunk) }).outputHelp();
  return text.trimEnd();
}

/**
 * Parses `argv` with `command`; undefined when --help or -h is anywhere (the caller prints
 * helpOf), so that a broken setting never hides the help. Each spec's value comes from its
 * flag, else its variable in `env` (an empty one counts as unset: `env: [{name: X, value:
 * ""}]` in a Deployment means "no value"), else its default, converted to its type; a bad
 * value is a UserError naming where it came from. A secret option's value is never shown.
 */
export function parseCommandLine(command: Command, specs: readonly OptionSpec[], argv: readonly string[], env: Record<string, string | undefined>): CommandLine | undefined {
  if (argv.includes('--help') || argv.includes('-h')) return undefined;
  // A bare boolean flag takes the next argument only when it is true or false: `--examples out` is --examples and the folder out.
  const booleans = new Set(specs.filter((s) => s.type === 'boolean').map((s) => `--${s.name}`));
  // An unknown --flag=value goes to commander without its value: the suggestion is for the flag, and the value may be a secret.
  const known = new Set(command.options.map((o) => o.long));
  const args = argv.map((arg, i) => {
    if (booleans.has(arg) && !/^(true|false)$/i.test(argv[i + 1] ?? '')) return `${arg}=true`;
    const flag = /^(--[^=]+)=/.exec(arg)?.[1];
    return flag && !known.has(flag) ? flag : arg;
  });
  try {
    command.parse(args, { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) throw new UserError(commanderProblem(err, command, specs));
    throw err;
  }
  const values: OptionValues = { ...command.opts() };
  for (const spec of specs) {
    const option = optionOf(command, spec);
    const key = option.attributeName();
    const variable = option.envVar === undefined ? undefined : env[option.envVar];
    // Commander's own reading of process.env is replaced by the env given (tests and benchmarks pass their own).
    if (command.getOptionValueSource(key) !== 'cli') {
      if (variable !== undefined && variable !== '') command.setOptionValueWithSource(key, variable, 'env');
      else command.setOptionValueWithSource(key, spec.default, 'default');
    }
    delete values[key];
    const raw = command.getOptionValue(key) as string | boolean | undefined;
    const source = command.getOptionValueSource(key);
    const from = source === 'cli' ? `--${spec.name}` : source === 'env' ? option.envVar! : `the default of --${spec.name}`;
    values[spec.name] = raw === undefined ? undefined : convert(spec, String(raw), from);
  }
  return { values, operands: command.args };
}

/** The options of a long-running command from its specs; undefined when --help was asked, after printing the help. */
export function commandOptions(name: string, description: string, specs: readonly OptionSpec[], argv: readonly string[], env: Record<string, string | undefined>, out: (text: string) => void): OptionValues | undefined {
  const command = specCommand(name, description, specs);
  const parsed = parseCommandLine(command, specs, argv, env);
  if (!parsed) out(helpOf(command));
  return parsed?.values;
}

function optionOf(command: Command, spec: OptionSpec): Option {
  return command.options.find((o) => o.long === `--${spec.name}`)!;
}

/** Commander's message, in this project's words, and without the value of a secret option. */
function commanderProblem(err: CommanderError, command: Command, specs: readonly OptionSpec[]): string {
  const message = err.message.replace(/^error: /, '');
  if (err.code === 'commander.unknownOption') {
    // "unknown option '--wokers'\n(Did you mean --workers?)"
    const flag = /'([^']+)/.exec(message)?.[1] ?? '';
    const near = /Did you mean (\S+)\?/.exec(message)?.[1];
    return `unknown flag ${flag}${near ? ` (did you mean ${near}?)` : ''}; see --help`;
  }
  if (err.code === 'commander.optionMissingArgument') {
    const option = command.options.find((o) => message.includes(`'${o.flags}'`));
    const spec = specs.find((s) => option?.long === `--${s.name}`);
    return `${option?.long ?? option?.short}: missing value${spec ? ` (expected ${expected(spec)})` : ''}`;
  }
  if (err.code === 'commander.excessArguments') {
    const extra = command.args[command.registeredArguments.length];
    return `unexpected argument "${extra}": options are written --name=value (see --help)`;
  }
  return `${message}; see --help`;
}

function expected(spec: OptionSpec): string {
  switch (spec.type) {
    case 'string':
      return spec.choices ? `one of ${spec.choices.join(', ')}` : 'a string';
    case 'integer': {
      const min = spec.min ?? 1;
      return min === 1 ? 'a positive integer' : min === 0 ? 'a non-negative integer' : `an integer >= ${min}`;
    }
    case 'boolean':
      return 'true or false';
    case 'duration':
      return DURATION_EXPECTED;
    case 'list':
      return 'a comma-separated list';
  }
}

function convert(spec: OptionSpec, text: string, source: string): string | number | boolean | string[] {
  const fail = (): never => {
    const shown = isSecret(spec) ? 'a value not shown here because the option is secret' : JSON.stringify(text);
    throw new UserError(`${source}: expected ${expected(spec)}, got ${shown}`);
  };
  switch (spec.type) {
    case 'string':
      return !spec.choices || spec.choices.includes(text) ? text : fail();
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
    case 'duration':
      return durationMs(text) ?? fail();
  }
}
