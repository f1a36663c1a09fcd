/**
 * Integ test of the basic example (examples/basic-receiver), with its registrations, sweep and
 * Track Payment rule left out (NON_PRODUCTION): deploying it registers nothing with the production
 * bank, so it can run in any account with the example's placeholder settings. It answers whether
 * the example deploys, and that a forged request gets 401 (docs/development.md):
 *
 *   npx cdk deploy --all --app "npx tsx test/integ/integ.basic-receiver.ts" --require-approval never
 *
 * The whole flow, registrations included, is the staging pair's test (integ.staging-pair.ts).
 * CI compares its synthesized templates with the committed snapshot (test/integ/snapshots.test.ts).
 */
import { App } from 'aws-cdk-lib';
import { ExpectedResult, IntegTest } from '@aws-cdk/integ-tests-alpha';
import { BankWebhooksExampleStack } from '../../examples/basic-receiver/app';
import { BankStage } from '../../lib';

export function buildBasicReceiverInteg(app: App = new App()): App {
  // The assertions read the test stack's outputs: strong references (exports), as integ tests always had; both stacks go together.
  app.node.setContext('@aws-cdk/core:defaultCrossStackReferences', 'strong');
  const stack = new BankWebhooksExampleStack(app, 'BankWebhooksIntegBasic', {
    receiver: {
      stage: BankStage.NON_PRODUCTION,
      paymentRegistration: undefined,
      boletoContracts: undefined,
      reconciliation: undefined,
    },
  });
  const integ = new IntegTest(app, 'BasicReceiver', { testCases: [stack] });
  for (const [url, header] of [
    [stack.receiver.paymentsUrl, 'authorization'],
    [stack.receiver.boletoUrl, stack.receiver.boletoTokenHeader],
  ] as const) {
    integ.assertions
      .httpApiCall(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [header]: 'forged-token' },
        body: JSON.stringify({ idTransacao: 'forged', status: 'EFETIVADO' }),
      })
      .expect(ExpectedResult.objectLike({ status: 401 }));
  }
  return app;
}

if (require.main === module) {
  buildBasicReceiverInteg().synth();
}
