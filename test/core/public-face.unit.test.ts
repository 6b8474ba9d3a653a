import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * The product uses the engine only through its public face, src/engine/
 * (docs/building-an-operator.md#the-public-face): `npm run lint` refuses a kind, the UI or the
 * app reaching past it. That its light entries load no cdk8s is checked with the rest of what a
 * controller loads, in constructs-on-first-use.unit.test.ts.
 */
const ROOT = join(__dirname, '..', '..');

interface Sample {
  readonly file: string;
  readonly code: string;
}

/** The lint messages of each sample, linted by this repository's eslint.config.mjs as if it were that file (the file need not exist). */
function lint(samples: readonly Sample[]): string[][] {
  const script = `
    const { ESLint } = require('eslint');
    const samples = JSON.parse(require('node:fs').readFileSync(0, 'utf8'));
    (async () => {
      const eslint = new ESLint({ cwd: ${JSON.stringify(ROOT)} });
      const messages = [];
      for (const { file, code } of samples) {
        const [result] = await eslint.lintText(code, { filePath: ${JSON.stringify(ROOT)} + '/' + file });
        messages.push(result.messages.map((m) => m.ruleId + ': ' + m.message));
      }
      process.stdout.write(JSON.stringify(messages));
    })();`;
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: ROOT, encoding: 'utf8', input: JSON.stringify(samples) }));
}

const REFUSED = /^no-restricted-imports: .*public face/;

describe('the public face', () => {
  it('npm run lint refuses a kind, the UI or the app importing the engine past src/engine/, and takes the same through it', () => {
    const [kindPast, kindThrough, schemaPast, reexportPast, fixturePast, uiPast, appPast, appThrough] = lint([
      { file: 'src/kinds/sample/controller.ts', code: "import { KindController } from '../../core/contract/kind';\nexport const c: KindController<unknown, unknown, unknown> = {};\n" },
      { file: 'src/kinds/sample/controller.ts', code: "import { KindController } from '../../engine/kind';\nexport const c: KindController<unknown, unknown, unknown> = {};\n" },
      { file: 'src/kinds/sample/api.ts', code: "import { s } from '../../schema';\nexport const spec = s.object({});\n" },
      { file: 'src/kinds/sample/annotations.ts', code: "export { KEEP_ON_DELETE_ANNOTATION } from '../../core/kit/child-policy';\n" },
      { file: 'test/kinds/fixtures/sample/controller.ts', code: "import { metaTime } from '../../kube/time';\nexport const now = metaTime(new Date());\n" },
      { file: 'src/ui/sample.ts', code: "import { createLogger } from '../runtime/log';\nexport const log = createLogger();\n" },
      { file: 'src/app.ts', code: "import { OperatorBundle } from './bundle/operator';\nexport { OperatorBundle };\n" },
      { file: 'src/app.ts', code: "import { OperatorBundle } from './engine/synth';\nexport { OperatorBundle };\n" },
    ]);
    for (const refused of [kindPast, schemaPast, reexportPast, fixturePast, uiPast, appPast]) expect(refused).toEqual([expect.stringMatching(REFUSED)]);
    expect(kindThrough).toEqual([]);
    expect(appThrough).toEqual([]);
  });

  it('npm run lint refuses an engine file (what the engine package holds) importing the product, and takes the engine\u2019s own imports', () => {
    const [monitoringProduct, testingKinds, scaffoldUi, gitopsApp, engineOwn] = lint([
      { file: 'src/monitoring/sample.ts', code: "import { PRODUCT_NAMES } from '../product';\nexport const names = PRODUCT_NAMES;\n" },
      { file: 'src/testing/sample.ts', code: "import { KINDS } from '../kinds';\nexport const kinds = KINDS;\n" },
      { file: 'src/scaffold/sample.ts', code: "import { GuitarUi } from '../ui/install';\nexport { GuitarUi };\n" },
      { file: 'src/gitops/sample.ts', code: "import { buildApp } from '../app';\nexport { buildApp };\n" },
      { file: 'src/testing/sample.ts', code: "import { operatorNames } from '../engine/operator';\nexport { operatorNames };\n" },
    ]);
    for (const refused of [monitoringProduct, testingKinds, scaffoldUi, gitopsApp]) expect(refused).toEqual([expect.stringMatching(/^no-restricted-imports: .*imports nothing of the product/)]);
    expect(engineOwn).toEqual([]);
  });

});
