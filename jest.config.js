const { availableParallelism } = require('node:os');

/** What both projects share. */
const project = {
  testEnvironment: 'node',
  setupFiles: ['<rootDir>/test/support/jest-env.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }],
  },
};

/**
 * The end-to-end suites: servers on loopback (the local runner, the simulator, moto), child
 * processes (the CLI, the packed package, jsii), bundles loaded as Lambda loads them, and rules
 * tested against the clock (timeouts, sleeps, rates). Everything else (pure cores, synth, handlers
 * run in process over fakes) is the fast loop: `npm run test:unit`. One list, so a suite is in
 * exactly one of the two projects.
 */
const END_TO_END = [
  '/test/tools/',
  '/test/simulator/',
  '/test/api/',
  '/test/upgrade/',
  '/test/examples/',
  '/test/integ/',
  '/test/cli/operate\\.test\\.ts$',
  '/test/cli/cli\\.test\\.ts$',
  '/test/lambda/bank/registration/',
  '/test/lambda/provider/secrets\\.test\\.ts$',
  '/test/lambda/sandbox/',
  '/test/lambda/processor/(rate-limit|bundle|bank-outage|secrets)\\.test\\.ts$',
  '/test/lambda/receiver/bundle\\.test\\.ts$',
  '/test/lambda/reconciliation/watch\\.test\\.ts$',
  '/test/cli/check-endpoint/',
  '/test/lambda/bank/(client|pix-client|pix-recurring-client)\\.test\\.ts$',
  '/test/schemas/pix-(openapi|api-schemas)\\.test\\.ts$',
  '/test/lambda/store/journal\\.test\\.ts$',
  '/test/lambda/provider/redrive-allow\\.test\\.ts$',
  '/test/lambda/shared/line-writer-pipe\\.test\\.ts$',
];

/** @type {import('jest').Config} */
module.exports = {
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  // Three projects, as Powertools splits its tests: the fast loop (`unit`), the end-to-end suites
  // (`e2e`), and the property harness (test/property/: a fixed number of seeded runs of the real
  // handlers). `npm test` runs all three; `--selectProjects <name>` one.
  projects: [
    {
      ...project,
      displayName: 'unit',
      roots: ['<rootDir>/test'],
      testMatch: ['**/*.test.ts'],
      testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/property/', ...END_TO_END],
    },
    {
      ...project,
      displayName: 'e2e',
      roots: ['<rootDir>/test'],
      testRegex: END_TO_END.map((path) => (path.endsWith('/') ? `${path}.*\\.test\\.ts$` : path)),
    },
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
