// Tests run against a real control plane: test/controlplane/global-setup.ts starts one
// (or uses TEST_KUBECONFIG) and writes its kubeconfig for every worker.
/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    // Type checking is `npm run build`'s job; transpiling only keeps each test file fast.
    '^.+\\.ts$': ['ts-jest', { tsconfig: { module: 'commonjs', moduleResolution: 'node10', isolatedModules: true } }],
  },
  modulePathIgnorePatterns: ['<rootDir>/lib/', '<rootDir>/dist/'],
  globalSetup: '<rootDir>/test/controlplane/global-setup.ts',
  globalTeardown: '<rootDir>/test/controlplane/global-teardown.ts',
  testTimeout: 120_000,
  maxWorkers: 2,
  // Longest files first (test/durations.json), so that neither worker is left alone with the soak at the end.
  testSequencer: '<rootDir>/test/sequencer.js',
};
