import { CommanderError } from 'commander';
import { resolve } from 'node:path';
import { DIFF_EXIT, helpOf, newCommand, parseCommandLine, renderFile, runController, runDiff, UserError } from './engine/operator';
import { PRODUCT_IDENTITY, PRODUCT_NAMES } from './product';

/** This operator's command (bin/<name>), as its identity names it. */
const NAME = PRODUCT_IDENTITY.name;

type Write = (text: string) => void;

interface CliCommand {
  /** One line in `<NAME> --help`. */
  readonly summary: string;
  /** The exit code when it fails with a UserError. */
  readonly errorCode: number;
  /** Runs it; returns its exit code. */
  readonly run: (args: string[], out: Write) => Promise<number>;
}

/* eslint-disable @typescript-eslint/no-require-imports -- each command loads only its own modules
   (a require, not an import(), which would go through the ES module loader; the engine's commands
   do the same): the controller starts without cdk8s, yaml, the UI's web server or the diff's parser,
   and the UI without the kinds. */
const kinds = () => (require('./kinds') as typeof import('./kinds')).KINDS;

const COMMANDS: Record<string, CliCommand> = {
  controller: {
    summary: `run the controller (see ${NAME} controller --help)`,
    errorCode: 1,
    run: (args, out) => runController(args, process.env, kinds(), out, PRODUCT_IDENTITY),
  },
  render: {
    summary: 'print the children the controller would apply for the custom resources in a file (-f <file>)',
    errorCode: 1,
    run: async (args, out) => runRender(args, out),
  },
  diff: {
    summary: 'show what applying resources would change in a cluster, read-only (exit 0: none, 1: changes, 2: error)',
    errorCode: DIFF_EXIT.error,
    // Resolved from lib/src/cli.js: TypeScript resources in a folder are read compiled from lib/.
    run: (args, out) => runDiff(args, resolve(__dirname, '..', '..'), kinds(), out, PRODUCT_NAMES),
  },
  ui: {
    summary: `serve the guitar web page (see ${NAME} ui --help)`,
    errorCode: 1,
    run: (args, out) => (require('./ui/command') as typeof import('./ui/command')).runUi(args, process.env, out),
  },
};

/** The operator's command with every command as a subcommand, for the usage text and the suggestion of a mistyped command. */
function program() {
  const top = newCommand(NAME, 'Kubernetes operators as cdk8s code.').usage('<command> [options]').helpCommand(false);
  for (const [name, command] of Object.entries(COMMANDS)) top.command(name).description(command.summary).action(() => undefined);
  return top;
}

function renderCommand() {
  return newCommand(`${NAME} render`, 'Prints, as YAML, the children the controller would apply for the custom resources in a file (several documents allowed).').option(
    '-f, --file <file>',
    'the resources (YAML); - reads standard input',
  );
}

async function runRender(args: string[], out: Write): Promise<number> {
  const command = renderCommand();
  const parsed = parseCommandLine(command, [], args, {});
  if (!parsed) {
    out(helpOf(command));
    return 0;
  }
  const file = parsed.values.file as string | undefined;
  if (!file) throw new UserError('needs -f <file> (or -f - for standard input)');
  out(renderFile(file, kinds()));
  return 0;
}

/** The command of that name, or a UserError naming it (and a near one, if any). */
function commandNamed(name: string): CliCommand {
  if (Object.hasOwn(COMMANDS, name)) return COMMANDS[name];
  if (name.startsWith('-')) throw new UserError(`unknown flag ${name.split('=')[0]}; see ${NAME} --help`);
  let near: string | undefined;
  try {
    program().parse([name], { from: 'user' });
  } catch (e) {
    if (!(e instanceof CommanderError)) throw e;
    near = /Did you mean (\S+)\?/.exec(e.message)?.[1];
  }
  throw new UserError(`unknown command "${name}"${near ? ` (did you mean ${near}?)` : ''}; see ${NAME} --help`);
}

/**
 * Runs one CLI invocation; returns the exit code. A UserError is printed here, once, one line
 * per problem naming the command; any other error is a bug and keeps its stack.
 */
export async function main(args: string[], out: Write, err: Write): Promise<number> {
  const [name, ...rest] = args;
  if (!name || name === '-h' || name === '--help') {
    out(helpOf(program()));
    return name ? 0 : 2;
  }
  let command: CliCommand | undefined;
  try {
    command = commandNamed(name);
    return await command.run(rest, out);
  } catch (e) {
    if (!(e instanceof UserError)) throw e;
    for (const line of e.lines(command ? `${NAME} ${name}` : NAME)) err(line);
    return command?.errorCode ?? 1;
  }
}

if (require.main === module) {
  void main(process.argv.slice(2), (t) => process.stdout.write(t.endsWith('\n') ? t : `${t}\n`), (t) => process.stderr.write(`${t}\n`)).then((code) => process.exit(code));
}
