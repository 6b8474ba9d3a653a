/**
 * The public face for an operator's app and command line: its identity, the engine's commands
 * (each loads its own modules when it runs, so that the controller starts without cdk8s and
 * `--help` without the kinds) and the kit a product's own command line is written with.
 * See docs/building-an-operator.md#the-public-face.
 */
export { checkOperatorIdentity, operatorNames } from '../core/install/identity';
export type { OperatorIdentity, OperatorNames } from '../core/install/identity';

/* eslint-disable @typescript-eslint/no-require-imports -- each command loads its own modules when it runs
   (a require, not an import(), which would go through the ES module loader). */
type ControllerModule = typeof import('../commands/controller');
type RenderModule = typeof import('../commands/render');
type DiffModule = typeof import('../commands/diff');

/** `controller`: runs the controller for these kinds under this identity; returns its exit code. */
export const runController: ControllerModule['runController'] = (...args) => (require('../commands/controller') as ControllerModule).runController(...args);
/** `render -f <file>`: the children the controller would apply for the resources in a file, as YAML. */
export const renderFile: RenderModule['renderFile'] = (...args) => (require('../commands/render') as RenderModule).renderFile(...args);
/** `diff`: what applying resources would change in a cluster, read-only; returns DIFF_EXIT's code. */
export const runDiff: DiffModule['runDiff'] = (...args) => (require('../commands/diff') as DiffModule).runDiff(...args);
/* eslint-enable @typescript-eslint/no-require-imports */
export { DIFF_EXIT } from '../diff/exit-codes';

// The command-line kit: one-line errors naming the field, commands and their options (flags and environment variables).
export { UserError } from '../core/errors';
export { commandOptions, envName, helpOf, KUBECONFIG_OPTION, newCommand, parseCommandLine, specCommand } from '../commands/command-line';
export type { CommandLine, OptionSpec, OptionValues } from '../commands/command-line';
