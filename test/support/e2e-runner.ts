/**
 * The local runner the end-to-end suites share: the example stack with a 10 s processor timeout
 * and 2 verification attempts, a query rate the bank allows more of (these suites are about the
 * flow, not pacing: rate-limit.test.ts is), and a 12 s visibility timeout so that retried
 * messages come back within a test (the template's 60 s would only make the suites slower, not
 * different). Registered with the bank on start; unregistered and stopped by `stopE2eRunner`.
 */
import { Duration } from 'aws-cdk-lib';
import { BankWebhooksExampleStack } from '../../examples/basic-receiver/app';
import { LocalRunner } from '../../tools/local-runner/runner';

export async function startE2eRunner(): Promise<LocalRunner> {
  const runner = await LocalRunner.start({
    stack: (app, id) => {
      app.node.setContext('bankQueriesPerSecond', '200');
      return new BankWebhooksExampleStack(app, id, { receiver: { processorTimeout: Duration.seconds(10), maxVerificationAttempts: 2 } });
    },
    visibilityTimeoutSeconds: 12,
  });
  await runner.register();
  return runner;
}

export async function stopE2eRunner(runner: LocalRunner | undefined): Promise<void> {
  if (!runner) return;
  await runner.unregister();
  await runner.stop();
}
