const { availableParallelism } = require('node:os');

/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  setupFiles: ['<rootDir>/test/support/jest-env.ts'],
  // Most suites wait on servers, child processes and timers more than they compute: one worker
  // more than the cores keeps them busy (Jest's own default, one fewer than the cores, runs a
  // 2-core machine's suites one at a time). See docs/development.md, "Where CI's time goes".
  maxWorkers: Number(process.env.JEST_MAX_WORKERS) || Math.max(3, availableParallelism()),
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }],
  },
  // Servers started by tests (fauxqs, local AWS endpoints) run on loopback and are stopped in
  // afterAll; a generous timeout covers CDK synthesis on a 2-core machine.
  testTimeout: 60_000,
  // Every test stops what it starts. This only guards against a Node teardown bug (a socket reset
  // while its shutdown is pending can make the process spin at exit after every test passed).
  forceExit: true,
};
