/**
 * Example app: a stack with a BankWebhookReceiver and sane defaults that registers both webhooks
 * with the bank at deploy time, checked by cdk-nag's AwsSolutions pack. `npx cdk synth` fails on any unacknowledged finding.
 */
import { Annotations, App, CfnOutput, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { Construct } from 'constructs';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { BankEventDetailType, BankWebhookReceiver, type BankWebhookReceiverProps } from '../../lib';
import {
  acknowledgeTokenRotationByDeploy,
  encryptedAlarmTopic,
  exampleBank,
  exampleBoletoContract,
} from '../example-account';

export interface BankWebhooksExampleStackProps extends StackProps {
  /** Receiver props in place of the example's (the local runner's tests use shorter timings). @default the example's */
  readonly receiver?: Partial<BankWebhookReceiverProps>;
}

export class BankWebhooksExampleStack extends Stack {
  public readonly receiver: BankWebhookReceiver;

  constructor(scope: Construct, id: string, props?: BankWebhooksExampleStackProps) {
    super(scope, id, props);
    // Account values come from CDK context (cdk.json or -c key=value); the placeholders let the
    // app synthesize as is. See docs/usage.md, "The example app's context".
    this.receiver = new BankWebhookReceiver(this, 'BankWebhooks', {
      bank: exampleBank(this),
      // The stage's error logs need API Gateway's CloudWatch role in the account and region; this
      // example sets it (one stack per account and region should, and only one).
      createApiGatewayCloudWatchRole: true,
      // Alarms reach someone: an encrypted topic CloudWatch may publish to (subscribe your on-call).
      alarmTopic: encryptedAlarmTopic(this),
      // Registered with the bank at deploy time and removed at destroy. Tokens stay in Secrets
      // Manager: the template only holds their ARNs.
      paymentRegistration: {},
      boletoContracts: [exampleBoletoContract(this)],
      // The company's payables code puts Track Payment events (source acme.payments) on the bus
      // for payments it starts: each is followed until final even if every notification is lost.
      reconciliation: { trackPaymentSources: ['acme.payments'] },
      ...props?.receiver,
    });
    // This example's choices, acknowledged where a stack makes them (examples/hardened makes the
    // others): tokens rotated by deploy, not on a schedule; no WAF web ACL on the stage.
    acknowledgeTokenRotationByDeploy(this.receiver);
    // The payables code that puts Track Payment events lives in another app: name its roles in
    // reconciliation.trackPaymentProducers there, and the bus denies the source's Track Payment to anyone else.
    Annotations.of(this.receiver).acknowledgeWarning(
      'cdk-bank-webhooks:trackPaymentProducer',
      'The example has no payables code of its own; a real stack names its roles in reconciliation.trackPaymentProducers.',
    );
    Validations.of(this.receiver.api).acknowledge({
      id: 'AwsSolutions::AwsSolutions-APIG3',
      reason:
        'This example keeps the endpoint without a WAF web ACL: it has the token check, stage throttling and, when set, the source allowlist. examples/hardened sets webAclArn.',
    });
    Validations.of(this.receiver.journalBucket!).acknowledge({
      id: 'AwsSolutions::AwsSolutions-S1',
      reason:
        'This example keeps no S3 server access logs for the raw journal: only the processor may write it and reads are CloudTrail data events where the account records them. examples/hardened sets journal.serverAccessLogsBucket.',
    });
    // A consumer of verified settlements is one line (a Lambda target, a queue, a Step Functions...).
    // The rule matches this account's events only; its target gets a dead-letter queue and retries.
    const inbox = new sqs.Queue(this, 'SettlementsInbox', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    Validations.of(inbox).acknowledge({
      id: 'AwsSolutions::AwsSolutions-SQS3',
      reason: "The example's stand-in for a consumer; the rule delivering to it has its own dead-letter queue.",
    });
    this.receiver.onVerifiedEvent('BoletoSettledRule', BankEventDetailType.BOLETO_SETTLED, {
      target: new targets.SqsQueue(inbox),
    });
    new CfnOutput(this, 'PaymentsUrl', { value: this.receiver.paymentsUrl, description: 'Register as urlCallback' });
    new CfnOutput(this, 'BoletoUrl', {
      value: this.receiver.boletoUrl,
      description: 'Register as the boleto contract url',
    });
    new CfnOutput(this, 'PaymentCallbackTokenArn', { value: this.receiver.paymentCallbackToken.secretArn });
    new CfnOutput(this, 'BoletoTokenArn', { value: this.receiver.boletoToken.secretArn });
    new CfnOutput(this, 'EventBusName', {
      value: this.receiver.eventBus.eventBusName,
      description: 'Verified events are published here',
    });
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
