/**
 * Example app: a stack with a BankWebhookReceiver and sane defaults, checked by cdk-nag's
 * AwsSolutions pack. `npx cdk synth` fails on any unacknowledged finding.
 */
import { App, CfnOutput, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { Construct } from 'constructs';
import { BankWebhookReceiver } from '../../lib';

export class BankWebhooksExampleStack extends Stack {
  public readonly receiver: BankWebhookReceiver;

  constructor(scope: Construct, id: string, props?: StackProps) {
    super(scope, id, props);
    this.receiver = new BankWebhookReceiver(this, 'BankWebhooks');
    new CfnOutput(this, 'PaymentsUrl', { value: this.receiver.paymentsUrl, description: 'Register as urlCallback' });
    new CfnOutput(this, 'BoletoUrl', { value: this.receiver.boletoUrl, description: 'Register as the boleto contract url' });
    new CfnOutput(this, 'PaymentCallbackTokenArn', { value: this.receiver.paymentCallbackToken.secretArn });
    new CfnOutput(this, 'BoletoTokenArn', { value: this.receiver.boletoToken.secretArn });
  }
}

/** Builds the example app with cdk-nag's AwsSolutions checks applied. */
export function buildExampleApp(app: App = new App()): App {
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  new BankWebhooksExampleStack(app, 'BankWebhooksExample');
  return app;
}

if (require.main === module) {
  buildExampleApp().synth();
}
