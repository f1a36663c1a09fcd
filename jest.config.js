/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  globalSetup: '<rootDir>/test/support/global-setup.ts',
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
