import { RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as events from 'aws-cdk-lib/aws-events';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks } from 'cdk-nag';
import { buildExampleApp } from '../../examples/basic-receiver/app';
import { BankWebhookReceiver, PaymentWebhookRegistration, TracingMode } from '../../lib';
import { temporaryApps, testBankConnection, testStack } from '../support/cdk';
import { acknowledgedRulesByPack, acknowledgments } from '../support/nag';

const newApp = temporaryApps('cdk-nag-test-');

it('synthesizes the example app with AwsSolutions checks and no unacknowledged finding', () => {
  const app = buildExampleApp(newApp());
  expect(() => app.synth()).not.toThrow();
});

it("acknowledges only what the design needs and the example's own choices, each with a specific reason", () => {
  const app = buildExampleApp(newApp());
  app.synth();
  // The other packs' acknowledgements are recorded too (the library cannot know which packs run).
  expect(acknowledgedRulesByPack(app).AwsSolutions).toEqual([
    'APIG2 ×1',
    // The example's choice: no WAF web ACL (examples/hardened sets one).
    'APIG3 ×1',
    'APIG4 ×1',
    'COG4 ×1',
    'IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs] ×1',
    // The sweep's drift detection: DescribeStackDriftDetectionStatus names no resource.
    'IAM5[Resource::*] ×1',
    // The provider framework's grantInvoke on the registration handler and its versions.
    // The processor writes one journal object per notification under each of the journal's two prefixes.
    'IAM5[Resource::<BankWebhooksProcessorJournal36CB996C.Arn>/notifications/*] ×1',
    'IAM5[Resource::<BankWebhooksProcessorJournal36CB996C.Arn>/subjects/*] ×1',
    'IAM5[Resource::<BankWebhooksRegistrationProviderHandlerB6890A73.Arn>:*] ×1',
    // The sweep's drift detection reads the stack's resources (generated names) as its caller: reads only, per service.
    'IAM5[Resource::arn:<AWS::Partition>:events:<AWS::Region>:<AWS::AccountId>:*] ×1',
    'IAM5[Resource::arn:<AWS::Partition>:iam::<AWS::AccountId>:role/*] ×1',
    'IAM5[Resource::arn:<AWS::Partition>:lambda:<AWS::Region>:<AWS::AccountId>:function:*] ×1',
    'IAM5[Resource::arn:<AWS::Partition>:s3:::*] ×1',
    'IAM5[Resource::arn:<AWS::Partition>:sqs:<AWS::Region>:<AWS::AccountId>:*] ×1',
    // The example's choice: no server access logs for the journal (examples/hardened keeps them).
    'S1 ×1',
    // The example's choice: tokens rotated by deploy.
    'SMG4 ×2',
    // The dead-letter queue onVerifiedEvent gives the example's rule target, and the example's own consumer queue.
    'SQS3 ×2',
  ]);
  for (const ack of acknowledgments(app)) expect(ack.reason.length).toBeGreaterThan(60);
});

it('still finds problems: the checks are live (a plain queue fails them)', () => {
  const app = newApp();
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  new sqs.Queue(new Stack(app, 'Plain'), 'Queue');
  expect(() => app.synth()).toThrow(/AwsSolutions-SQS4/);
});

it('passes with every option set: custom domain, allowlist, WAF, KMS key, OpenTelemetry tracing, user secrets, the audit log', () => {
  const app = newApp();
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  const stack = testStack('AllOptions', app);
  new BankWebhookReceiver(stack, 'Webhooks', {
    bank: testBankConnection(stack),
    alarmTopic: new sns.Topic(stack, 'Alarms', {
      enforceSSL: true,
      masterKey: kms.Alias.fromAliasName(stack, 'SnsKey', 'alias/aws/sns'),
    }),
    eventBus: new events.EventBus(stack, 'Bus'),
    maxConcurrency: 5,
    domainName: 'webhooks.example.com',
    certificate: acm.Certificate.fromCertificateArn(
      stack,
      'Cert',
      'arn:aws:acm:sa-east-1:111111111111:certificate/abc',
    ),
    allowedSourceCidrs: ['203.0.113.0/24'],
    webAclArn:
      'arn:aws:wafv2:sa-east-1:111111111111:regional/webacl/bank-webhooks/0a1b2c3d-4e5f-6789-abcd-ef0123456789',
    queueEncryptionKey: new kms.Key(stack, 'Key', { enableKeyRotation: true }),
    tracing: TracingMode.OPENTELEMETRY,
    openTelemetry: { fastStart: true },
    journal: { serverAccessLogsBucket: s3.Bucket.fromBucketName(stack, 'AccessLogs', 'acme-access-logs') },
    auditLog: { enabled: true },
    paymentCallbackToken: secretsmanager.Secret.fromSecretCompleteArn(
      stack,
      'Pay',
      'arn:aws:secretsmanager:sa-east-1:111111111111:secret:pay-AbCdEf',
    ),
    boletoToken: secretsmanager.Secret.fromSecretCompleteArn(
      stack,
      'Bol',
      'arn:aws:secretsmanager:sa-east-1:111111111111:secret:bol-AbCdEf',
    ),
    paymentRegistration: { tokenVersion: '2026-11-01', removalPolicy: RemovalPolicy.RETAIN },
    boletoContracts: [
      {
        eventos: ['LIQUIDACAO', 'BAIXA'],
        nomeResponsavel: 'Finance',
        email: 'finance@example.com',
        telefone: '+55 11 3003-0000',
        enviarIdTituloEmpresa: true,
      },
      { posto: '03' },
    ],
  });
  // A standalone registration in the same stack shares the provider.
  new PaymentWebhookRegistration(stack, 'OtherAccount', {
    bank: testBankConnection(stack, {
      account: {
        cooperativa: '0101',
        posto: '02',
        conta: '999999',
        documento: '12345678000199',
        codigoBeneficiario: '54321',
      },
      credentials: secretsmanager.Secret.fromSecretCompleteArn(
        stack,
        'OtherCredentials',
        'arn:aws:secretsmanager:sa-east-1:111111111111:secret:other-AbCdEf',
      ),
    }),
    url: 'https://other.example.com/payments',
    token: secretsmanager.Secret.fromSecretCompleteArn(
      stack,
      'OtherToken',
      'arn:aws:secretsmanager:sa-east-1:111111111111:secret:other-token-AbCdEf',
    ),
  });
  expect(() => app.synth()).not.toThrow();
});
