/**
 * Example app: staging beside production, for one bank that has only production. Production
 * registers both webhooks, sweeps and watches; staging is NON_PRODUCTION: the same receiver with
 * nothing against the bank (no registration, no sweep, no watch, no Track Payment rule), its own
 * metrics and alarms (`receiverName` comes from its stack's name). Test staging with the bank
 * simulator. Checked by cdk-nag's AwsSolutions pack like the basic example.
 */
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { BankStage } from '../../lib';
import { BankWebhooksExampleStack } from '../basic-receiver/app';

/** Builds both stages, with cdk-nag's AwsSolutions checks applied. */
export function buildTwoStageApp(app: App = new App()): {
  app: App;
  staging: BankWebhooksExampleStack;
  production: BankWebhooksExampleStack;
} {
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  const staging = new BankWebhooksExampleStack(app, 'BankWebhooksStaging', {
    receiver: {
      stage: BankStage.NON_PRODUCTION,
      // Staging registers nothing: the bank would send production's notifications here (and take them from production).
      paymentRegistration: undefined,
      boletoContracts: undefined,
      reconciliation: undefined,
      // One API Gateway CloudWatch role per account and region: production's.
      createApiGatewayCloudWatchRole: false,
    },
  });
  const production = new BankWebhooksExampleStack(app, 'BankWebhooksProduction', {
    receiver: { stage: BankStage.PRODUCTION },
  });
  return { app, staging, production };
}

if (require.main === module) {
  buildTwoStageApp().app.synth();
}
