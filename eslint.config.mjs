// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** The engine's folders and modules behind its public face (src/engine/). */
const ENGINE_INTERNALS = '(core|schema|kube|runtime|commands|bundle|gitops|diff|monitoring)(/|$)';
/** The folders the engine package holds (scripts/package/pack-engine.ts), as a glob. */
const ENGINE_FOLDERS = '{core,schema,kube,runtime,commands,bundle,gitops,diff,monitoring,engine,testing,scaffold}';
/** The product's modules, seen from the engine's folders: its kinds, UI, instances, identity, app and command line. */
const PRODUCT_MODULES = '^(\\.\\./)+(kinds|ui|instances)(/|$)|^(\\.\\./)+(product|app|synth-options|cli)$';
const ENGINE_ONLY = 'the engine (what the engine package holds) imports nothing of the product: take what it needs as an argument (OperatorIdentity, the kinds)';
const PUBLIC_FACE =
  'the product imports the engine only through its public face: src/engine/kind (the contract, s, the kit), engine/constructs, engine/operator, engine/client, engine/synth or engine/testing; ' +
  'export what is missing there (docs/building-an-operator.md#the-public-face)';

export default tseslint.config(
  { ignores: ['node_modules/', 'lib/', 'dist/', 'imports/', 'coverage/', 'build/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { require: 'readonly', module: 'writable', __dirname: 'readonly', process: 'readonly', console: 'readonly' } },
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      // A kind's constructs module and its companions' are required when first used (see KindConstructs and KindDefinition.companions in src/core/contract/kind.ts).
      '@typescript-eslint/no-require-imports': ['error', { allow: ['^\\./constructs$', '(^|/)[\\w-]*companions?$'] }],
      eqeqeq: ['error', 'always'],
      // A leading underscore marks a value left out on purpose, e.g. when destructuring a field away.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'off',
    },
  },
  // One direction between bench/ and test/: the harness (test/support/, test/controlplane/)
  // serves both; bench/ uses nothing else of test/, and the harness nothing of bench/.
  {
    files: ['bench/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ regex: '^(\\.\\./)+test/(?!support/|controlplane/)', message: 'bench/ imports only the harness of test/ (test/support/, test/controlplane/); move what both need there' }] }],
    },
  },
  {
    files: ['test/support/**/*.ts', 'test/controlplane/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ regex: '^(\\.\\./)+bench/', message: 'the harness imports nothing of bench/ (bench/ imports the harness); move what both need into test/support/' }] }],
    },
  },
  // The product is the engine's first consumer: its kinds (and the kinds kept as fixtures to drop
  // into src/kinds/), the guitar UI, the instances and its app and command line use the engine only
  // through its public face, src/engine/ (docs/building-an-operator.md#the-public-face).
  {
    files: ['src/kinds/**/*.ts', 'src/ui/**/*.ts', 'src/instances/**/*.ts', 'test/kinds/fixtures/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [{ regex: `^(\\.\\./)+${ENGINE_INTERNALS}`, message: PUBLIC_FACE }] }] },
  },
  {
    files: ['src/cli.ts', 'src/app.ts', 'src/synth-options.ts', 'src/product.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [{ regex: `^\\./${ENGINE_INTERNALS}`, message: PUBLIC_FACE }] }] },
  },
  // The other direction: the engine, which the engine package holds (scripts/package/), never imports the product.
  {
    files: [`src/${ENGINE_FOLDERS}/**/*.ts`],
    rules: { 'no-restricted-imports': ['error', { patterns: [{ regex: PRODUCT_MODULES, message: ENGINE_ONLY }] }] },
  },
  {
    files: ['**/*.js', '**/*.cjs', '**/*.mjs'],
    languageOptions: { globals: { URL: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
