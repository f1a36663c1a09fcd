/** What the example app (the one `cdk.json` synthesizes) deploys for the processor and the registrations. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { BankWebhooksExampleStack } from '../../examples/basic-receiver/app';

const outdir = mkdtempSync(join(tmpdir(), 'example-app-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

function synth(context: Record<string, string> = {}) {
  const app = new App({ outdir, context });
  return Template.fromStack(new BankWebhooksExampleStack(app, 'Example'));
}

const template = synth();

it('consumes the queue with partial batch failures', () => {
  template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
    FunctionResponseTypes: ['ReportBatchItemFailures'],
    BatchSize: 10,
  });
});

it('has an idempotency table with TTL and point-in-time recovery', () => {
  template.hasResourceProperties('AWS::DynamoDB::Table', {
    TimeToLiveSpecification: { AttributeName: 'expiration', Enabled: true },
    PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
  });
});

it('lets the processor put events on the bus, and has a rule for Boleto Settled', () => {
  template.hasResourceProperties('AWS::IAM::Policy', {
    PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({ Action: 'events:PutEvents' })]) },
  });
  template.hasResourceProperties('AWS::Events::Rule', {
    EventPattern: {
      source: ['cdk-bank-webhooks'],
      'detail-type': ['Boleto Settled'],
      detail: { account: { cooperativa: ['0101'] } },
    },
    Targets: [Match.objectLike({ DeadLetterConfig: Match.anyValue(), RetryPolicy: Match.anyValue() })],
  });
});

it('keeps the queue visibility timeout at 6 × the processor timeout, and alarms on the DLQ', () => {
  const processor = Object.values(
    template.findResources('AWS::Lambda::Function', {
      Properties: { Description: Match.stringLikeRegexp('^Verifies') },
    }),
  )[0];
  template.hasResourceProperties('AWS::SQS::Queue', {
    VisibilityTimeout: 6 * (processor.Properties.Timeout as number),
    RedrivePolicy: Match.anyValue(),
  });
  template.hasResourceProperties('AWS::CloudWatch::Alarm', {
    MetricName: 'ApproximateNumberOfMessagesVisible',
    Threshold: 1,
  });
});

it('takes the bank account from CDK context', () => {
  const withContext = synth({ bankConta: '987654', bankBaseUrl: 'https://cobranca.example.coop' });
  const fn = Object.values(
    withContext.findResources('AWS::Lambda::Function', {
      Properties: { Description: Match.stringLikeRegexp('^Verifies') },
    }),
  )[0];
  const text = JSON.stringify(fn.Properties.Environment);
  expect(text).toContain('987654');
  expect(text).toContain('https://cobranca.example.coop');
});

it('registers the payment callback and a boleto contract, each with a bounded ServiceTimeout, through one provider', () => {
  for (const type of ['Custom::BankPaymentWebhookRegistration', 'Custom::BankBoletoWebhookContract']) {
    template.resourceCountIs(type, 1);
    template.hasResourceProperties(type, { ServiceTimeout: '300', TokenVersion: '0' });
  }
  template.resourcePropertiesCountIs('AWS::Lambda::Function', { Handler: 'framework.onEvent' }, 1);
});

it('puts no secret value in the custom resources: tokens and credentials travel as ARNs', () => {
  const customResources = [
    ...Object.values(template.findResources('Custom::BankPaymentWebhookRegistration')),
    ...Object.values(template.findResources('Custom::BankBoletoWebhookContract')),
  ];
  for (const resource of customResources) {
    const text = JSON.stringify(resource.Properties);
    expect(text).toMatch(/PaymentCallbackToken|BoletoToken/);
    expect(text).toContain('credentialsSecretArn');
    expect(text).not.toMatch(/resolve:secretsmanager|"(token|authorizationCallback|password|clientSecret|apiKey)\\?"/);
  }
  // The generated tokens have no value in the template at all: Secrets Manager makes them at deploy time.
  for (const secret of Object.values(template.findResources('AWS::SecretsManager::Secret'))) {
    expect(secret.Properties.SecretString).toBeUndefined();
    expect(secret.Properties.GenerateSecretString).toMatchObject({ PasswordLength: 64 });
  }
});

it("takes the contract's contact fields from CDK context", () => {
  const withContext = synth({ bankContactEmail: 'tesouraria@example.coop' });
  const [contract] = Object.values(withContext.findResources('Custom::BankBoletoWebhookContract'));
  expect(JSON.stringify(contract.Properties)).toContain('tesouraria@example.coop');
});
