import { resolve } from 'node:path';
import { InputError } from './render-command';
import { OptionError } from './runtime/config';

const USAGE = `usage: cdk8s-operators <command> [options]

commands:
  controller         run the controller (see cdk8s-operators controller --help)
  render -f <file>   print the children the controller would apply for the custom
                     resources in <file> (YAML, several documents allowed; - reads stdin)
  ui                 serve the guitar web page (see cdk8s-operators ui --help)

options:
  -h, --help         show this help`;

/* eslint-disable @typescript-eslint/no-require-imports -- each command loads only its own modules
   (a require, not an import(), which would go through the ES module loader): the controller
   starts without the UI's web server or the diff's parser, and the UI without the kinds. */
const kinds = () => (require('./kinds') as typeof import('./kinds')).KINDS;

/** Runs one CLI invocation; returns the exit code. */
export async function main(args: string[], out: (text: string) => void, err: (text: string) => void): Promise<number> {
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
      const { renderFile } = require('./render-command') as typeof import('./render-command');
      out(renderFile(file, kinds()));
      return 0;
    }
    // Resolved from lib/src/cli.js: TypeScript resources in a folder are read compiled from lib/.
    if (command === 'diff') return await (require('./diff-command') as typeof import('./diff-command')).runDiff(rest, resolve(__dirname, '..', '..'), kinds(), out, err);
    if (command === 'controller') return await (require('./runtime/main') as typeof import('./runtime/main')).runController(rest, process.env, kinds());
    if (command === 'ui') return await (require('./ui/main') as typeof import('./ui/main')).runUi(rest, process.env);
    throw new InputError(`unknown command "${command}"; see cdk8s-operators --help`);
  } catch (e) {
    if (e instanceof InputError || e instanceof OptionError) {
      err(`cdk8s-operators: ${e.message}`);
      return 1;
    }
    throw e;
  }
}

if (require.main === module) {
  void main(process.argv.slice(2), (t) => process.stdout.write(t.endsWith('\n') ? t : `${t}\n`), (t) => process.stderr.write(`${t}\n`)).then((code) => process.exit(code));
}
