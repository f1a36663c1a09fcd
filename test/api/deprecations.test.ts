/**
 * The library uses no deprecated aws-cdk-lib API: with `JSII_DEPRECATED=fail`, reaching one throws.
 * Synthesized here: the basic example's stack (registrations, a consumer rule, the sweep) and a
 * receiver with the hardening props and a consumer, without cdk-nag (whose own rules read
 * deprecated properties).
 */
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sns from 'aws-cdk-lib/aws-sns';
import { BankWebhooksExampleStack } from '../../examples/basic-receiver/app';
import {
  type BankConnectionProps,
  BankEventDetailType,
  BankStage,
  BankWebhookReceiver,
  type CooperativeConnectionProps,
  TracingMode,
} from '../../lib';
import { testBankConnection, testStack } from '../support/cdk';

describe('no deprecated aws-cdk-lib API', () => {
  const before = process.env.JSII_DEPRECATED;
  beforeAll(() => {
    process.env.JSII_DEPRECATED = 'fail';
  });
  afterAll(() => {
    process.env.JSII_DEPRECATED = before;
  });

  it("in the basic example's stack", () => {
    expect(() => Template.fromStack(new BankWebhooksExampleStack(new App(), 'BankWebhooksExample'))).not.toThrow();
  });

  it('in a receiver with the hardening props, operators and a consumer', () => {
    const stack = testStack();
    const key = new kms.Key(stack, 'Key');
    const receiver = new BankWebhookReceiver(stack, 'Webhooks', {
      bank: testBankConnection(stack),
      stage: BankStage.PRODUCTION,
      paymentRegistration: {},
      boletoContracts: [{ email: 'finance@example.com' }],
      logEncryptionKey: key,
      queueEncryptionKey: key,
      tokenEncryptionKey: key,
      tracing: TracingMode.XRAY,
      alarmTopic: new sns.Topic(stack, 'Alarms'),
      operatorRoles: [iam.Role.fromRoleName(stack, 'Operators', 'operators')],
    });
    const consumer = new lambda.Function(stack, 'Consumer', {
      runtime: lambda.Runtime.NODEJS_22_X,
      handler: 'index.handler',
      code: lambda.Code.fromInline('exports.handler = async () => {}'),
    });
    receiver.onVerifiedEvent('Settled', BankEventDetailType.BOLETO_SETTLED, { consumer });
    expect(() => Template.fromStack(stack)).not.toThrow();
  });
});

describe("the library's own deprecated names", () => {
  it('still configure a receiver as the names that replace them do: BankConnectionProps is CooperativeConnectionProps', () => {
    const template = (bank: (stack: ReturnType<typeof testStack>) => CooperativeConnectionProps) => {
      const stack = testStack();
      new BankWebhookReceiver(stack, 'Webhooks', { bank: bank(stack), stage: BankStage.PRODUCTION });
      return JSON.stringify(Template.fromStack(stack).toJSON());
    };
    const old = (stack: ReturnType<typeof testStack>): BankConnectionProps => testBankConnection(stack);
    expect(template(old)).toBe(template(testBankConnection));
  });
});
