// Two tiers in one run (docs/development.md, Running tests):
//   unit     test/**/*.unit.test.ts: no control plane, no Go tool, none of the tests' system packages;
//            test/support/unit-tier.ts makes a unit file that reaches for one of them fail.
//   cluster  every other test file, against a real control plane: test/controlplane/global-setup.ts
//            starts one (or uses TEST_KUBECONFIG) and writes its kubeconfig for every worker.
// A project's global setup runs only when one of its files runs, so `npm run test:unit` starts no control plane.
const shared = {
  rootDir: __dirname,
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  transform: {
    // Type checking is `npm run build`'s job; transpiling only keeps each test file fast.
    '^.+\\.ts$': ['ts-jest', { tsconfig: { module: 'commonjs', moduleResolution: 'node10', isolatedModules: true } }],
  },
  modulePathIgnorePatterns: ['<rootDir>/lib/', '<rootDir>/dist/'],
};

/** @type {import('jest').Config} */
module.exports = {
  projects: [
    { ...shared, displayName: 'unit', testMatch: ['**/*.unit.test.ts'], setupFiles: ['<rootDir>/test/support/unit-tier.ts'] },
    {
      ...shared,
      displayName: 'cluster',
      testMatch: ['**/*.test.ts'],
      testPathIgnorePatterns: ['\\.unit\\.test\\.ts$'],
      globalSetup: '<rootDir>/test/controlplane/global-setup.ts',
      globalTeardown: '<rootDir>/test/controlplane/global-teardown.ts',
    },
  ],
  // A run-wide option: in a project's config Jest would leave tests at its 5 s default.
  testTimeout: 120_000,
  // Four workers on two cores: most cluster test files wait on the control plane, a child process
  // or a clock (the soak runs 5 minutes whatever the cores do), so the files beyond two in flight
  // use cores the first two leave idle (docs/development.md, "CI: bash .ci/run").
  maxWorkers: 4,
  // Longest files first (test/durations.json), so that no worker is left alone with the soak at the end.
  testSequencer: '<rootDir>/test/sequencer.js',
};
