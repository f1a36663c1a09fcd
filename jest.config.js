const { availableParallelism } = require('node:os');

/** What both projects share. */
const project = {
  testEnvironment: 'node',
  setupFiles: ['<rootDir>/test/support/jest-env.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }],
  },
};

/** @type {import('jest').Config} */
module.exports = {
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  // Two projects, as Powertools splits its tests: everything else, and the property harness
  // (test/property/: a fixed number of seeded runs of the real handlers, `--selectProjects property`).
  projects: [
    { ...project, displayName: 'tests', roots: ['<rootDir>/test'], testMatch: ['**/*.test.ts'], testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/property/'] },
    { ...project, displayName: 'property', roots: ['<rootDir>/test/property'], testMatch: ['**/*.test.ts'] },
  ],
  // Most suites wait on servers, child processes and timers more than they compute: one worker
  // more than the cores keeps them busy (Jest's own default, one fewer than the cores, runs a
  // 2-core machine's suites one at a time). See docs/development.md, "Where CI's time goes".
  maxWorkers: Number(process.env.JEST_MAX_WORKERS) || Math.max(3, availableParallelism()),
  // Servers started by tests (fauxqs, local AWS endpoints) run on loopback and are stopped in
  // afterAll; a generous timeout covers CDK synthesis on a 2-core machine.
  testTimeout: 60_000,
  // Every test stops what it starts. This only guards against a Node teardown bug (a socket reset
  // while its shutdown is pending can make the process spin at exit after every test passed).
  forceExit: true,
};
