/**
 * An option of a command, declared: the engine's controller options, each kind's own
 * (KindController.options), the UI's, synth's and the benchmarks'. src/commands/command-line.ts
 * parses them (on commander); the declaration lives here so that a kind names it without
 * reaching into the runtime.
 */
export interface OptionSpec {
  /** The flag without --, in kebab-case; its variable is the same in upper snake case (workers: WORKERS). */
  readonly name: string;
  /** One line for --help. */
  readonly description: string;
  /** duration gives milliseconds ("90s", "5m", "1h30m"); list gives the comma-separated items. */
  readonly type: 'string' | 'integer' | 'boolean' | 'duration' | 'list';
  /** The value when neither flag nor variable is given, written as a user would write it. Default: none (undefined). */
  readonly default?: string;
  /** integer only: the smallest value taken. Default: 1 (a count of workers or seconds is positive); use 0 for a port that may be "any". */
  readonly min?: number;
  /** string only: the values taken, listed in --help and in the error. */
  readonly choices?: readonly string[];
  /**
   * Its value may carry a credential (a URL with an API key): the install sets its variable from
   * a key of the same name in the Secret CONTROLLER_OPTIONS_SECRET (optional), never in clear
   * in the Deployment. Default: false.
   */
  readonly fromSecret?: boolean;
  /**
   * A kind's option an administrator sets at install (e.g. which hosts a kind may touch): the
   * name of its Helm value; synth takes the same flag, and the controller's Deployment passes
   * it. Default: the option is the controller's only.
   */
  readonly installValue?: string;
}

/** The options of these kinds' controllers an administrator sets at install (see OptionSpec.installValue). */
export function installOptions(kinds: readonly { readonly controller?: { readonly options?: readonly OptionSpec[] } }[]): OptionSpec[] {
  return kinds.flatMap((kind) => kind.controller?.options ?? []).filter((option) => option.installValue !== undefined);
}

/** `--name=value` for each install option given a value (a list joined by commas, as the flag reads it). */
export function installArgs(options: readonly OptionSpec[], values: Readonly<Record<string, unknown>>): string[] {
  return options.flatMap((option) => {
    const value = values[option.name];
    if (value === undefined || (Array.isArray(value) && value.length === 0)) return [];
    return [`--${option.name}=${Array.isArray(value) ? value.join(',') : String(value)}`];
  });
}

/** The Secret, in the controller's namespace, the install reads `fromSecret` options' variables from. */
export const CONTROLLER_OPTIONS_SECRET = 'controller-options';

/** What an option of this declaration parses to: milliseconds for a duration, the items of a list. */
export type OptionValue<S extends OptionSpec> = S['type'] extends 'integer' | 'duration' ? number : S['type'] extends 'boolean' ? boolean : S['type'] extends 'list' ? string[] : string;

/**
 * The parsed value of one declared option, typed by its declaration (declare it `as const
 * satisfies OptionSpec`); undefined when it has no default and was not given.
 */
export function optionValue<const S extends OptionSpec>(options: Readonly<Record<string, unknown>>, spec: S): OptionValue<S> | undefined {
  return options[spec.name] as OptionValue<S> | undefined;
}

/** exchange-rate-url -> EXCHANGE_RATE_URL (with a prefix: PREFIX_EXCHANGE_RATE_URL) */
export function envName(option: string, prefix = ''): string {
  return prefix + option.replace(/-/g, '_').toUpperCase();
}
