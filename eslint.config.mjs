// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'lib/', 'dist/', 'imports/', 'coverage/', 'build/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { require: 'readonly', module: 'writable', __dirname: 'readonly', process: 'readonly', console: 'readonly' } },
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      // A kind's constructs module is required when first used (see KindConstructs in src/core/kind.ts).
      '@typescript-eslint/no-require-imports': ['error', { allow: ['^\\./constructs$'] }],
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
  {
    files: ['**/*.js', '**/*.cjs', '**/*.mjs'],
    languageOptions: { globals: { URL: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
