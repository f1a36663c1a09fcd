/**
 * The local runner the end-to-end suites share: the example stack with a 10 s processor timeout
 * and 2 verification attempts, a query rate the bank allows more of (these suites are about the
 * flow, not pacing: rate-limit.test.ts is), and a 12 s visibility timeout so that retried
 * messages come back within a test (the template's 60 s would only make the suites slower, not
 * different), and a 2 s grace before a look's change counts as recovered (the local bank delivers
 * in milliseconds). The bank's delivery deadline is 30 s rather than its 10 s: these suites are about
 * what is delivered, and a machine busy with other work must not turn a slow answer into a lost
 * one (the deadline's own rule is the simulator's notifier tests'). Registered with the bank on
 * start; unregistered and stopped by `stopE2eRunner`.
 */
import { Duration } from 'aws-cdk-lib';
import { BankWebhooksExampleStack } from '../../examples/basic-receiver/app';
import { LocalRunner } from '../../tools/local-runner/runner';

/** The listing page size the e2e stack's bank connection is told (`bank.listingPageSize`). */
export const E2E_LISTING_PAGE_SIZE = 50;

export async function startE2eRunner(): Promise<LocalRunner> {
  const runner = await LocalRunner.start({
    stack: (app, id) => {
      app.node.setContext('bankQueriesPerSecond', '200');
      // The simulator's listing pages are set to this size where a suite needs several pages of a day.
      app.node.setContext('bankListingPageSize', String(E2E_LISTING_PAGE_SIZE));
      return new BankWebhooksExampleStack(app, id, {
        receiver: {
          processorTimeout: Duration.seconds(10),
          maxVerificationAttempts: 2,
          recoveredGracePeriod: Duration.seconds(2),
          auditLog: { enabled: true },
        },
      });
    },
    visibilityTimeoutSeconds: 12,
    simulator: { deliveryTimeoutMs: 30_000 },
  });
  await runner.register();
  return runner;
}

export async function stopE2eRunner(runner: LocalRunner | undefined): Promise<void> {
  if (!runner) return;
  await runner.unregister();
  await runner.stop();
}

/**
 * The shared runner for one test file: started before its tests, stopped after them, and after
 * each test its faults and behaviour cleared and its queue settled. Call `runner()` inside a test.
 */
export function useE2eRunner(): () => LocalRunner {
  let runner: LocalRunner | undefined;
  beforeAll(async () => {
    runner = await startE2eRunner();
  });
  afterAll(() => stopE2eRunner(runner));
  afterEach(async () => {
    if (!runner) return;
    await runner.control.clearFaults();
    await runner.control.resetBehaviour();
    await runner.settle(60_000);
  });
  return () => {
    if (!runner) throw new Error('The e2e runner is not started (call runner() inside a test)');
    return runner;
  };
}
