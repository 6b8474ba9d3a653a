import { ENGINE_PACKAGE as E } from '../core/install/identity';

/** The operator's command line, its launcher, the dev loop, CI and the image build (owned: `upgrade` rewrites them). */
export function ownedScripts(name: string, ts: string, sh: string): [string, string][] {
  return [
    [
      'src/cli.ts',
      `${ts}import { renderFile, runController, UserError } from '${E}/operator';
import { IDENTITY } from './identity';
import { KINDS } from './kinds';

type Write = (text: string) => void;

const USAGE = \`usage: ${name} controller [options]   run the controller (--help for its options)
       ${name} render -f <file>       print the children the controller would apply for the resources in a file\`;

/** One invocation of the operator's command line; returns its exit code. */
export async function main(args: string[], out: Write, err: Write): Promise<number> {
  const [command, ...rest] = args;
  try {
    if (command === 'controller') return await runController(rest, process.env, KINDS, out, IDENTITY);
    if (command === 'render' && rest[0] === '-f' && rest[1]) {
      out(renderFile(rest[1], KINDS));
      return 0;
    }
    err(USAGE);
    return 2;
  } catch (e) {
    if (!(e instanceof UserError)) throw e;
    for (const line of e.lines(\`${name} \${command}\`)) err(line);
    return 1;
  }
}

if (require.main === module) {
  void main(process.argv.slice(2), (t) => process.stdout.write(\`\${t}\\n\`), (t) => process.stderr.write(\`\${t}\\n\`)).then((code) => process.exit(code));
}
`,
    ],
    [
      `bin/${name}`,
      `#!/usr/bin/env node
${ts}// The operator's command line (src/cli.ts), compiled into lib/ by npm run build.
const { main } = require('../lib/src/cli.js');
main(process.argv.slice(2), (t) => process.stdout.write(\`\${t}\\n\`), (t) => process.stderr.write(\`\${t}\\n\`)).then((code) => process.exit(code));
`,
    ],
    [
      'src/dev.ts',
      `${ts}import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Chart, Testing } from 'cdk8s';
import { operatorNames } from '${E}/operator';
import { createTestNamespace, ServedTestKind, serveTestKind, startLocalCluster, testKubeConfig } from '${E}/testing';
import { IDENTITY } from './identity';
import { KINDS } from './kinds';

/**
 * \`npm run dev\`: a local control plane in .cluster/ (started once, kept between runs), every kind
 * served by the engine in this process under the operator's identity, in a namespace of its own,
 * with its example applied. Stop with Ctrl-C; the control plane keeps running (KUBECONFIG printed).
 */
async function main(): Promise<void> {
  const dir = join(process.cwd(), '.cluster');
  mkdirSync(dir, { recursive: true });
  const kubeconfig = await startLocalCluster(dir);
  process.env.TEST_KUBECONFIG = kubeconfig;
  console.log(\`KUBECONFIG=\${kubeconfig}\`);
  const namespace = await createTestNamespace(testKubeConfig(), 'dev');
  const served: ServedTestKind[] = [];
  for (const kind of KINDS) {
    const kindServed = await serveTestKind(kind, namespace, undefined, undefined, { operator: operatorNames(IDENTITY) });
    served.push(kindServed);
    if (kind.example) await kindServed.objects.apply(kind.example(new Chart(Testing.app(), 'example'), namespace).toJson());
  }
  console.log(\`serving \${KINDS.map((k) => k.kind).join(', ')} in namespace \${namespace}; Ctrl-C stops\`);
  process.once('SIGINT', () => void Promise.all(served.map((s) => s.stop())).then(() => process.exit(0)));
}

void main();
`,
    ],
    [
      '.ci/run',
      `#!/usr/bin/env bash
${sh}# CI: install exactly the lock file, then the two commands of README.md: the tests (a control plane
# started from the engine's build script, which needs Go; or TEST_KUBECONFIG) and the synth.
set -euo pipefail
cd "$(dirname "$0")/.."
npm ci --no-audit --no-fund
npm test
npm run synth
`,
    ],
    [
      'scripts/image.sh',
      `#!/usr/bin/env bash
${sh}# npm run image: the controller image as an OCI archive in build/image/ (or the folder given), by the
# engine's own image build: a distroless base from pinned Debian libraries, Node 24, the compiled code and the
# production dependencies, user 65532; tagged <identity's imageRepository>:<package.json version>. Needs buildah, as root.
set -euo pipefail
cd "$(dirname "$0")/.."
reference="$(node -p 'const { IDENTITY } = require("./lib/src/identity.js"); IDENTITY.imageRepository + ":" + IDENTITY.version')"
IMAGE_APP_ROOT="$PWD" IMAGE_NAME='${name}' IMAGE_REFERENCE="$reference" exec bash node_modules/${E}/scripts/image/build.sh "\${1:-build/image}"
`,
    ],
  ];
}
