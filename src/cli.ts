import { KINDS } from './kinds';
import { InputError, renderFile } from './render-command';

const USAGE = `usage: cdk8s-operators <command> [options]

commands:
  render -f <file>   print the children the controller would apply for the custom
                     resources in <file> (YAML, several documents allowed; - reads stdin)

options:
  -h, --help         show this help`;

/** Runs one CLI invocation; returns the exit code. */
export function main(args: string[], out: (text: string) => void, err: (text: string) => void): number {
  const [command, ...rest] = args;
  if (!command || command === '-h' || command === '--help') {
    out(USAGE);
    return command ? 0 : 2;
  }
  try {
    if (command === 'render') {
      if (rest.includes('-h') || rest.includes('--help')) {
        out(USAGE);
        return 0;
      }
      const flag = rest.findIndex((a) => a === '-f' || a === '--file');
      const file = flag >= 0 ? rest[flag + 1] : undefined;
      if (!file) throw new InputError('render needs -f <file> (or -f - for standard input)');
      out(renderFile(file, KINDS));
      return 0;
    }
    throw new InputError(`unknown command "${command}"; see cdk8s-operators --help`);
  } catch (e) {
    if (e instanceof InputError) {
      err(`cdk8s-operators: ${e.message}`);
      return 1;
    }
    throw e;
  }
}

if (require.main === module) {
  process.exitCode = main(process.argv.slice(2), (t) => process.stdout.write(t.endsWith('\n') ? t : `${t}\n`), (t) => process.stderr.write(`${t}\n`));
}
