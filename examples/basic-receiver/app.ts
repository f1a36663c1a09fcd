/**
 * Example app: a stack with a BankWebhookReceiver and sane defaults that registers both webhooks
 * with the bank at deploy time, checked by cdk-nag's AwsSolutions pack. `npx cdk synth` fails on any unacknowledged finding.
 */
import { App, CfnOutput, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { Construct } from 'constructs';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { BankEventDetailType, BankWebhookReceiver, type BankWebhookReceiverProps } from '../../lib';

export interface BankWebhooksExampleStackProps extends StackProps {
  /** Receiver props in place of the example's (the local runner's tests use shorter timings). @default the example's */
  readonly receiver?: Partial<BankWebhookReceiverProps>;
}

/** A number from CDK context (given as text with -c), or undefined. */
function optionalNumber(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n)) throw new Error(`bankQueriesPerSecond must be a number, got ${JSON.stringify(value)}`);
  return n;
}

export class BankWebhooksExampleStack extends Stack {
  public readonly receiver: BankWebhookReceiver;

  constructor(scope: Construct, id: string, props?: BankWebhooksExampleStackProps) {
    super(scope, id, props);
    // Account values come from CDK context (cdk.json or -c key=value); the placeholders below
    // let the app synthesize as is. See the README's "Example app" section.
    const context = (key: string, placeholder: string): string => (this.node.tryGetContext(key) as string | undefined) ?? placeholder;
    this.receiver = new BankWebhookReceiver(this, 'BankWebhooks', {
      bank: {
        baseUrl: context('bankBaseUrl', 'https://api.bank.example'),
        registrationBaseUrl: context('bankRegistrationBaseUrl', 'https://api.bank.example/pagamentos'),
        credentials: secretsmanager.Secret.fromSecretNameV2(this, 'BankCredentials', context('bankCredentialsSecretName', 'cdk-bank-webhooks/bank-credentials')),
        account: {
          cooperativa: context('bankCooperativa', '0101'),
          posto: context('bankPosto', '02'),
          conta: context('bankConta', '123456'),
          documento: context('bankDocumento', '12345678000199'),
          codigoBeneficiario: context('bankCodigoBeneficiario', '54321'),
        },
        // What the bank allows these credentials; leave it out for the library's default (10/s).
        queriesPerSecond: optionalNumber(this.node.tryGetContext('bankQueriesPerSecond')),
      },
      // Registered with the bank at deploy time and removed at destroy. Tokens stay in Secrets
      // Manager: the template only holds their ARNs.
      // The stage's error logs need API Gateway's CloudWatch role in the account and region; this
      // example sets it (one stack per account and region should, and only one).
      createApiGatewayCloudWatchRole: true,
      // Alarms reach someone: an encrypted topic CloudWatch may publish to (subscribe your on-call).
      alarmTopic: this.alarmTopic(),
      paymentRegistration: {},
      boletoContracts: [{
        nomeResponsavel: context('bankContactName', 'Finance Operations'),
        email: context('bankContactEmail', 'finance@example.com'),
        telefone: context('bankContactPhone', '+55 11 3003-0000'),
      }],
      ...props?.receiver,
    });
    // A consumer of verified settlements is one line (a Lambda target, a queue, a Step Functions...).
    // The rule matches this account's events only; its target gets a dead-letter queue and retries.
    const inbox = new sqs.Queue(this, 'SettlementsInbox', { encryption: sqs.QueueEncryption.SQS_MANAGED, enforceSSL: true });
    Validations.of(inbox).acknowledge({ id: 'AwsSolutions::AwsSolutions-SQS3', reason: 'The example\'s stand-in for a consumer; the rule delivering to it has its own dead-letter queue.' });
    this.receiver.onVerifiedEvent('BoletoSettledRule', BankEventDetailType.BOLETO_SETTLED, { target: new targets.SqsQueue(inbox) });
    new CfnOutput(this, 'PaymentsUrl', { value: this.receiver.paymentsUrl, description: 'Register as urlCallback' });
    new CfnOutput(this, 'BoletoUrl', { value: this.receiver.boletoUrl, description: 'Register as the boleto contract url' });
    new CfnOutput(this, 'PaymentCallbackTokenArn', { value: this.receiver.paymentCallbackToken.secretArn });
    new CfnOutput(this, 'BoletoTokenArn', { value: this.receiver.boletoToken.secretArn });
    new CfnOutput(this, 'EventBusName', { value: this.receiver.eventBus.eventBusName, description: 'Verified events are published here' });
  }

  /** An SNS topic for the alarms, encrypted with a key CloudWatch may use (the AWS-managed SNS key would refuse it). */
  private alarmTopic(): sns.Topic {
    const key = new kms.Key(this, 'AlarmsKey', { enableKeyRotation: true, description: 'Encrypts the bank webhook alarms topic' });
    key.grant(new iam.ServicePrincipal('cloudwatch.amazonaws.com'), 'kms:Decrypt', 'kms:GenerateDataKey*');
    return new sns.Topic(this, 'Alarms', { displayName: 'Bank webhook alarms', masterKey: key, enforceSSL: true });
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
