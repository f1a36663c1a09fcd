import { type CfnElement, Duration, Size, Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as sns from 'aws-cdk-lib/aws-sns';
import type { IConstruct } from 'constructs';
import { BankStage, BankWebhookReceiver, type BankWebhookReceiverProps } from '../../lib';
import { RECEIVER_SETTINGS_ENV, type ReceiverSettings } from '../../contracts/receiver';
import { REDRIVE_ALLOW_RESOURCE_TYPE } from '../../contracts/redrive-allow';
import { settingsIn, synthReceiver, testBankConnection, testStack } from '../support/cdk';

/** The receiver function's settings, its deploy-time values as intrinsics. */
function receiverSettingsOf(template: Template): ReceiverSettings {
  const fns = Object.values(
    template.findResources('AWS::Lambda::Function', {
      Properties: { Environment: { Variables: { [RECEIVER_SETTINGS_ENV]: Match.anyValue() } } },
    }),
  );
  expect(fns).toHaveLength(1);
  return settingsIn<ReceiverSettings>(fns[0], RECEIVER_SETTINGS_ENV);
}

type TestProps = Partial<BankWebhookReceiverProps>;

const synth = synthReceiver;

describe('with default props', () => {
  const { receiver, template, stack } = synth();

  it('creates a regional REST API with POST /payments and POST /boleto proxied to the receiver', () => {
    // Every body reaches the receiver byte for byte (base64), never re-decoded as text.
    template.hasResourceProperties('AWS::ApiGateway::RestApi', {
      EndpointConfiguration: { Types: ['REGIONAL'] },
      BinaryMediaTypes: ['*/*'],
    });
    template.resourceCountIs('AWS::ApiGateway::RestApi', 1);
    for (const path of ['payments', 'boleto'])
      template.hasResourceProperties('AWS::ApiGateway::Resource', { PathPart: path });
    const methods = template.findResources('AWS::ApiGateway::Method');
    expect(Object.values(methods).map((m) => (m.Properties as { HttpMethod: string }).HttpMethod)).toEqual([
      'POST',
      'POST',
    ]);
    template.hasResourceProperties('AWS::ApiGateway::Method', {
      HttpMethod: 'POST',
      AuthorizationType: 'NONE',
      Integration: { Type: 'AWS_PROXY', IntegrationHttpMethod: 'POST', Uri: Match.anyValue() },
    });
  });

  it('configures one stage with JSON access logs, ERROR method logging without data trace, throttling and metrics', () => {
    template.resourceCountIs('AWS::ApiGateway::Stage', 1);
    template.hasResourceProperties('AWS::ApiGateway::Stage', {
      StageName: 'prod',
      TracingEnabled: false,
      AccessLogSetting: {
        DestinationArn: { 'Fn::GetAtt': [Match.stringLikeRegexp('WebhooksAccessLogGroup'), 'Arn'] },
        Format: Match.serializedJson(
          Match.objectLike({
            requestId: '$context.requestId',
            status: '$context.status',
            sourceIp: '$context.identity.sourceIp',
            responseLatency: '$context.responseLatency',
          }),
        ),
      },
      MethodSettings: [
        Match.objectLike({
          HttpMethod: '*',
          ResourcePath: '/*',
          LoggingLevel: 'ERROR',
          DataTraceEnabled: false,
          MetricsEnabled: true,
          ThrottlingRateLimit: 500,
          ThrottlingBurstLimit: 1000,
        }),
      ],
    });
    template.hasResourceProperties('AWS::Logs::LogGroup', { RetentionInDays: 365 });
    // Method logging needs API Gateway's account-level CloudWatch role: set only when asked (one per account and region).
    template.resourceCountIs('AWS::ApiGateway::Account', 0);
  });

  it('runs the receiver on the latest Node runtime, arm64, with a timeout well under 10 s and its settings', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
      Handler: 'index.handler',
      Timeout: 6,
      MemorySize: 512,
      LoggingConfig: { LogFormat: 'JSON', LogGroup: Match.anyValue() },
      Environment: { Variables: { [RECEIVER_SETTINGS_ENV]: Match.anyValue(), NODE_OPTIONS: '--enable-source-maps' } },
    });
    expect(receiverSettingsOf(template)).toEqual({
      queueUrl: { Ref: expect.stringMatching(/^WebhooksQueue/) },
      paymentsTokenSecretArn: { Ref: expect.stringMatching(/^WebhooksPaymentCallbackToken/) },
      boletoTokenSecretArn: { Ref: expect.stringMatching(/^WebhooksBoletoToken/) },
      boletoTokenHeader: 'Authorization',
      maxBodyBytes: 256 * 1024,
      tokenCacheTtlMs: 60000,
      enqueueBudgetMs: 3000,
      receiverName: 'TestStack/Webhooks',
    });
  });

  it('gives the receiver a role with no managed policies: its log group, the two secrets, SendMessage', () => {
    const role = template.findResources('AWS::IAM::Role', {
      Properties: { Description: Match.stringLikeRegexp('^Bank webhook receiver') },
    });
    expect(Object.values(role)).toHaveLength(1);
    expect(Object.values(role)[0].Properties.ManagedPolicyArns).toBeUndefined();
    const policy = JSON.stringify(template.findResources('AWS::IAM::Policy'));
    for (const action of [
      'sqs:SendMessage',
      'secretsmanager:GetSecretValue',
      'logs:CreateLogStream',
      'logs:PutLogEvents',
    ])
      expect(policy).toContain(action);
    // One statement names no resource: the sweep's DescribeStackDriftDetectionStatus, which takes none.
    const anyResource = Object.values(template.findResources('AWS::IAM::Policy')).flatMap((p) =>
      (p.Properties.PolicyDocument.Statement as Array<{ Action: unknown; Resource: unknown }>).filter(
        (statement) => statement.Resource === '*',
      ),
    );
    expect(anyResource.map((statement) => statement.Action)).toEqual([
      'cloudformation:DescribeStackDriftDetectionStatus',
    ]);
  });

  it('creates encrypted, TLS-only queues (notifications, looks) with 14-day retention, each with a DLQ after 5 receives', () => {
    template.resourceCountIs('AWS::SQS::Queue', 4);
    template.hasResourceProperties('AWS::SQS::Queue', {
      SqsManagedSseEnabled: true,
      MessageRetentionPeriod: 1_209_600,
      MaximumMessageSize: 1_048_576,
      RedrivePolicy: {
        deadLetterTargetArn: { 'Fn::GetAtt': [Match.stringLikeRegexp('WebhooksDeadLetterQueue'), 'Arn'] },
        maxReceiveCount: 5,
      },
    });
    template.hasResourceProperties('AWS::SQS::Queue', {
      SqsManagedSseEnabled: true,
      MessageRetentionPeriod: 1_209_600,
      VisibilityTimeout: 180,
      RedrivePolicy: {
        deadLetterTargetArn: { 'Fn::GetAtt': [Match.stringLikeRegexp('WebhooksProcessorLookDeadLetterQueue'), 'Arn'] },
        maxReceiveCount: 5,
      },
    });
    template.hasResourceProperties('AWS::SQS::Queue', {
      SqsManagedSseEnabled: true,
      MessageRetentionPeriod: 1_209_600,
      RedrivePolicy: Match.absent(),
    });
    // Each dead-letter queue admits only its own queue.
    template.resourceCountIs('Custom::BankWebhooksRedriveAllowPolicy', 2);
    template.hasResourceProperties('Custom::BankWebhooksRedriveAllowPolicy', {
      DeadLetterQueueUrl: { Ref: Match.stringLikeRegexp('WebhooksProcessorLookDeadLetterQueue') },
      SourceQueueArn: { 'Fn::GetAtt': [Match.stringLikeRegexp('WebhooksProcessorLookQueue'), 'Arn'] },
    });
    const policies = template.findResources('AWS::SQS::QueuePolicy');
    expect(Object.keys(policies)).toHaveLength(4);
    for (const policy of Object.values(policies)) {
      expect(policy.Properties.PolicyDocument.Statement).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      );
    }
  });

  it('generates two long alphanumeric token secrets', () => {
    template.resourceCountIs('AWS::SecretsManager::Secret', 2);
    const secrets = template.findResources('AWS::SecretsManager::Secret');
    for (const secret of Object.values(secrets)) {
      expect(secret.Properties.GenerateSecretString).toEqual({
        PasswordLength: 64,
        ExcludePunctuation: true,
        IncludeSpace: false,
      });
      expect(secret.Properties.SecretString).toBeUndefined();
    }
  });

  it('exposes the resources it creates, each the one the template wires together', () => {
    const id = (construct: IConstruct) => stack.getLogicalId(construct.node.defaultChild as CfnElement);
    const queue = template.findResources('AWS::SQS::Queue')[id(receiver.queue)];
    expect(queue.Properties.RedrivePolicy.deadLetterTargetArn).toEqual({
      'Fn::GetAtt': [id(receiver.deadLetterQueue), 'Arn'],
    });
    const fn = template.findResources('AWS::Lambda::Function')[id(receiver.endpoint.receiverFunction)];
    expect(settingsIn<ReceiverSettings>(fn, RECEIVER_SETTINGS_ENV)).toMatchObject({
      queueUrl: { Ref: id(receiver.queue) },
      paymentsTokenSecretArn: stack.resolve(receiver.paymentCallbackToken.secretArn),
      boletoTokenSecretArn: stack.resolve(receiver.boletoToken.secretArn),
    });
    expect(stack.resolve(receiver.paymentCallbackToken.secretArn)).not.toEqual(
      stack.resolve(receiver.boletoToken.secretArn),
    );
    expect(template.findResources('AWS::ApiGateway::RestApi')[id(receiver.api)]).toBeDefined();
    expect(stack.resolve(receiver.endpoint.accessLogGroup.logGroupArn)).toEqual({
      'Fn::GetAtt': [id(receiver.endpoint.accessLogGroup), 'Arn'],
    });
    expect(receiver.endpoint.domain).toBeUndefined();
  });

  it('gives URLs for the two routes under the stage URL', () => {
    expect(JSON.stringify(stack.resolve(receiver.paymentsUrl))).toMatch(/\/payments"\]\]\}$/);
    expect(JSON.stringify(stack.resolve(receiver.boletoUrl))).toMatch(/\/boleto"\]\]\}$/);
    expect(JSON.stringify(stack.resolve(receiver.url))).toContain('.execute-api.');
  });

  it('does not put any resource policy on the API when no allowlist is given', () => {
    template.hasResourceProperties('AWS::ApiGateway::RestApi', { Policy: Match.absent() });
  });
});

describe('with optional props', () => {
  it('serves a custom domain with TLS 1.2 and a base path mapping', () => {
    const { template, receiver } = synth({ domainName: 'webhooks.example.com', basePath: 'bank' }, (stack) => ({
      certificate: acm.Certificate.fromCertificateArn(
        stack,
        'Cert',
        'arn:aws:acm:sa-east-1:111111111111:certificate/abc',
      ),
    }));
    template.hasResourceProperties('AWS::ApiGateway::DomainName', {
      DomainName: 'webhooks.example.com',
      SecurityPolicy: 'TLS_1_2',
      EndpointConfiguration: { Types: ['REGIONAL'] },
      RegionalCertificateArn: 'arn:aws:acm:sa-east-1:111111111111:certificate/abc',
    });
    template.hasResourceProperties('AWS::ApiGateway::BasePathMapping', { BasePath: 'bank' });
    expect(receiver.paymentsUrl).toBe('https://webhooks.example.com/bank/payments');
    expect(receiver.boletoUrl).toBe('https://webhooks.example.com/bank/boleto');
    expect(receiver.endpoint.domain).toBeDefined();
  });

  it('maps a custom domain at its root without a base path', () => {
    const { receiver } = synth({ domainName: 'webhooks.example.com' }, (stack) => ({
      certificate: acm.Certificate.fromCertificateArn(
        stack,
        'Cert',
        'arn:aws:acm:sa-east-1:111111111111:certificate/abc',
      ),
    }));
    expect(receiver.url).toBe('https://webhooks.example.com/');
    expect(receiver.paymentsUrl).toBe('https://webhooks.example.com/payments');
  });

  it('denies every source outside allowedSourceCidrs with a resource policy', () => {
    const { template } = synth({ allowedSourceCidrs: ['203.0.113.0/24', '2001:db8::/32'] });
    template.hasResourceProperties('AWS::ApiGateway::RestApi', {
      Policy: {
        Statement: [
          { Action: 'execute-api:Invoke', Effect: 'Allow', Principal: { AWS: '*' }, Resource: 'execute-api:/*' },
          {
            Action: 'execute-api:Invoke',
            Effect: 'Deny',
            Principal: { AWS: '*' },
            Resource: 'execute-api:/*',
            Condition: { NotIpAddress: { 'aws:SourceIp': ['203.0.113.0/24', '2001:db8::/32'] } },
          },
        ],
      },
    });
  });

  it('uses the given secrets instead of generating them, and the given boleto header', () => {
    const { template, receiver } = synth({ boletoTokenHeader: 'X-Webhook-Token' }, (stack) => ({
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
    }));
    template.resourceCountIs('AWS::SecretsManager::Secret', 0);
    expect(receiverSettingsOf(template)).toMatchObject({
      paymentsTokenSecretArn: 'arn:aws:secretsmanager:sa-east-1:111111111111:secret:pay-AbCdEf',
      boletoTokenSecretArn: 'arn:aws:secretsmanager:sa-east-1:111111111111:secret:bol-AbCdEf',
      boletoTokenHeader: 'X-Webhook-Token',
    });
    expect(receiver.boletoTokenHeader).toBe('X-Webhook-Token');
    expect(JSON.stringify(template.findResources('AWS::IAM::Policy'))).toContain('secret:pay-AbCdEf');
  });

  it('encrypts every queue (notifications, looks, their DLQs) with the given KMS key and lets the receiver use it', () => {
    const { template } = synth({}, (stack) => ({
      queueEncryptionKey: new kms.Key(stack, 'Key', { enableKeyRotation: true }),
    }));
    const queues = Object.values(template.findResources('AWS::SQS::Queue'));
    expect(queues).toHaveLength(4);
    for (const queue of queues)
      expect(queue.Properties.KmsMasterKeyId).toEqual({ 'Fn::GetAtt': [expect.stringMatching(/^Key/), 'Arn'] });
    expect(JSON.stringify(template.findResources('AWS::IAM::Policy'))).toMatch(/kms:(GenerateDataKey|Encrypt)/);
  });

  it('applies throttling, tracing, retention, memory, body limit, cache TTL, stage name and maxReceiveCount', () => {
    const { template } = synth({
      throttlingRateLimit: 50,
      throttlingBurstLimit: 80,
      tracingEnabled: true,
      logRetention: logs.RetentionDays.ONE_MONTH,
      receiverMemorySize: 1024,
      maxBodySize: Size.kibibytes(64),
      tokenCacheTtl: Duration.seconds(30),
      stageName: 'live',
      maxReceiveCount: 3,
    });
    template.hasResourceProperties('AWS::ApiGateway::Stage', {
      StageName: 'live',
      TracingEnabled: true,
      MethodSettings: [Match.objectLike({ ThrottlingRateLimit: 50, ThrottlingBurstLimit: 80 })],
    });
    template.hasResourceProperties('AWS::Lambda::Function', {
      MemorySize: 1024,
      TracingConfig: { Mode: 'Active' },
      Environment: { Variables: Match.objectLike({ [RECEIVER_SETTINGS_ENV]: Match.anyValue() }) },
    });
    expect(receiverSettingsOf(template)).toMatchObject({ maxBodyBytes: 64 * 1024, tokenCacheTtlMs: 30000 });
    template.hasResourceProperties('AWS::Logs::LogGroup', { RetentionInDays: 30 });
    template.hasResourceProperties('AWS::SQS::Queue', { RedrivePolicy: Match.objectLike({ maxReceiveCount: 3 }) });
  });

  it('does not create the API Gateway account role unless asked, and warns at synth that the stage needs one', () => {
    const { stack, template } = synth({ createApiGatewayCloudWatchRole: false });
    template.resourceCountIs('AWS::ApiGateway::Account', 0);
    const warnings = Annotations.fromStack(stack).findWarning('*', Match.stringLikeRegexp('CloudWatch role'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0].entry.data).toContain(
      'createApiGatewayCloudWatchRole: true in one stack of the account and region',
    );
  });

  it('creates one API Gateway account role per stack, however many receivers ask, and every stage waits for it', () => {
    const stack = testStack('TwoReceivers');
    for (const [id, conta] of [
      ['A', '111'],
      ['B', '222'],
    ] as const) {
      new BankWebhookReceiver(stack, id, {
        bank: testBankConnection(stack, {
          account: {
            cooperativa: '0101',
            posto: '02',
            conta,
            documento: '12345678000199',
            codigoBeneficiario: `5${conta}`,
          },
        }),
        createApiGatewayCloudWatchRole: true,
      });
    }
    const template = Template.fromStack(stack);
    template.resourceCountIs('AWS::ApiGateway::Account', 1);
    template.resourcePropertiesCountIs(
      'AWS::IAM::Role',
      {
        ManagedPolicyArns: Match.arrayWith([
          Match.objectLike({
            'Fn::Join': Match.arrayWith([
              Match.arrayWith([Match.stringLikeRegexp('AmazonAPIGatewayPushToCloudWatchLogs')]),
            ]),
          }),
        ]),
      },
      1,
    );
    const [accountId] = Object.keys(template.findResources('AWS::ApiGateway::Account'));
    for (const stage of Object.values(template.findResources('AWS::ApiGateway::Stage')))
      expect(stage.DependsOn).toContain(accountId);
    expect(Annotations.fromStack(stack).findWarning('*', Match.stringLikeRegexp('CloudWatch role'))).toEqual([]);
  });

  it('warns that a NON_PRODUCTION receiver against the real bank ignores the reconciliation options it was given (no sweep is scheduled)', () => {
    const { stack, receiver } = synth({ stage: BankStage.NON_PRODUCTION, reconciliation: { lookbackDays: 5 } });
    expect(receiver.reconciliation).toBeUndefined();
    const warnings = Annotations.fromStack(stack).findWarning(
      '*',
      Match.stringLikeRegexp('cdk-bank-webhooks:reconciliationIgnored'),
    );
    expect(warnings).toHaveLength(1);
    expect(warnings[0].entry.data).toContain('runs no reconciliation sweep');
    // Turned off on purpose, or production: nothing to say.
    for (const props of [
      { stage: BankStage.NON_PRODUCTION, reconciliation: { enabled: false } },
      { stage: BankStage.PRODUCTION, reconciliation: { lookbackDays: 5 } },
    ]) {
      expect(
        Annotations.fromStack(synth(props).stack).findWarning('*', Match.stringLikeRegexp('reconciliationIgnored')),
      ).toEqual([]);
    }
  });

  it('refuses token and credentials secrets imported with an empty name, naming each', () => {
    expect(() =>
      synth({}, (s) => ({
        paymentCallbackToken: secretsmanager.Secret.fromSecretNameV2(s, 'Empty', ''),
        bank: testBankConnection(s, { credentials: secretsmanager.Secret.fromSecretNameV2(s, 'EmptyCredentials', '') }),
      })),
    ).toThrow(
      /paymentCallbackToken: must name a secret .*got "".*\n {2}- bank\.credentials: must name a secret .*got ""/,
    );
    expect(() =>
      synth({}, (s) => ({
        paymentCallbackToken: secretsmanager.Secret.fromSecretNameV2(s, 'Named', 'billing/payment-callback-token'),
      })),
    ).not.toThrow();
  });

  it('warns at synth that alarms notify nobody without an alarmTopic', () => {
    const { stack } = synth();
    expect(Annotations.fromStack(stack).findWarning('*', Match.stringLikeRegexp('No alarmTopic'))).toHaveLength(1);
    const topic = synth({}, (s) => ({
      alarmTopic: sns.Topic.fromTopicArn(s, 'T', 'arn:aws:sns:sa-east-1:111111111111:alarms'),
    }));
    expect(Annotations.fromStack(topic.stack).findWarning('*', Match.stringLikeRegexp('No alarmTopic'))).toEqual([]);
  });
});

describe('props validation', () => {
  const build = (props: TestProps) => () => synth(props);

  it('reports every wrong prop at once, naming each', () => {
    let message = '';
    try {
      synth({
        domainName: 'webhooks.example.com',
        basePath: '/bank/',
        allowedSourceCidrs: ['10.0.0.0/8', 'not-a-cidr', '300.1.1.1/24'],
        throttlingRateLimit: -1,
        throttlingBurstLimit: 1.5,
        maxBodySize: Size.mebibytes(2),
        maxReceiveCount: 0,
        boletoTokenHeader: 'Bad Header',
        tokenCacheTtl: Duration.hours(2),
        receiverMemorySize: 64,
        stageName: 'prod-v1',
      });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/^Invalid BankWebhookReceiver props at TestStack\/Webhooks \(11 problems\):/);
    for (const prop of [
      'certificate',
      'basePath',
      'allowedSourceCidrs',
      'throttlingRateLimit',
      'throttlingBurstLimit',
      'maxBodySize',
      'maxReceiveCount',
      'boletoTokenHeader',
      'tokenCacheTtl',
      'receiverMemorySize',
      'stageName',
    ]) {
      expect(message).toContain(`  - ${prop}: `);
    }
    expect(message).toContain('"not-a-cidr", "300.1.1.1/24"');
    expect(message).not.toContain('"10.0.0.0/8"');
    expect(message).toContain('got -1');
  });

  it.each<[string, (stack: Stack) => TestProps, RegExp]>([
    [
      'a certificate without a domain',
      (stack) => ({
        certificate: acm.Certificate.fromCertificateArn(stack, 'C', 'arn:aws:acm:sa-east-1:111111111111:certificate/x'),
      }),
      /domainName: is required when certificate is set/,
    ],
    ['an empty allowlist', () => ({ allowedSourceCidrs: [] }), /allowedSourceCidrs: must hold at least one CIDR block/],
    ['a base path without a domain', () => ({ basePath: 'bank' }), /basePath: only applies to a custom domain/],
    [
      'a header HTTP sets itself',
      () => ({ boletoTokenHeader: 'Content-Type' }),
      /boletoTokenHeader: "Content-Type" is set or rewritten/,
    ],
    [
      'a body limit above 512 KiB',
      () => ({ maxBodySize: Size.kibibytes(513) }),
      /maxBodySize: must be from 1 byte to 512 KiB/,
    ],
    ['a malformed domain name', () => ({ domainName: 'not a domain' }), /domainName: must be a DNS name/],
  ])('rejects %s', (_name, configure, expected) => {
    expect(() => synth({}, configure)).toThrow(expected);
  });

  it('accepts IPv4 and IPv6 CIDR blocks and the boundaries of every range', () => {
    expect(
      build({
        allowedSourceCidrs: ['0.0.0.0/0', '203.0.113.7/32', '::/0', '2001:db8::1/128'],
        throttlingBurstLimit: 5000,
        maxReceiveCount: 1000,
        maxBodySize: Size.kibibytes(512),
        tokenCacheTtl: Duration.seconds(1),
        receiverMemorySize: 128,
        boletoTokenHeader: 'x-webhook-token',
      }),
    ).not.toThrow();
  });
});

describe('the 401 alarm', () => {
  it('goes off when most requests of 5 minutes, at least 5, were refused for their token, and tells the topic', () => {
    const { template, receiver } = synth({}, (stack) => ({
      alarmTopic: sns.Topic.fromTopicArn(stack, 'Topic', 'arn:aws:sns:sa-east-1:111111111111:alarms'),
    }));
    const sum = (p: string) => `FILL(${p}0, 0) + FILL(${p}1, 0)`;
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmDescription: Match.stringLikeRegexp('refused with 401'),
      Threshold: 0.5,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      EvaluationPeriods: 1,
      TreatMissingData: 'notBreaching',
      AlarmActions: ['arn:aws:sns:sa-east-1:111111111111:alarms'],
      OKActions: ['arn:aws:sns:sa-east-1:111111111111:alarms'],
      Metrics: Match.arrayWith([
        Match.objectLike({
          Expression: `IF((${sum('u')}) >= 5, (${sum('u')}) / ((${sum('u')}) + (${sum('s')})), 0)`,
          ReturnData: true,
        }),
        Match.objectLike({
          Id: 'u0',
          MetricStat: Match.objectLike({
            Metric: {
              Namespace: 'CdkBankWebhooks',
              MetricName: 'UnauthorizedRequests',
              Dimensions: [
                { Name: 'Route', Value: 'payments' },
                { Name: 'receiver', Value: 'TestStack/Webhooks' },
                { Name: 'service', Value: 'bank-webhook-receiver' },
              ],
            },
            Stat: 'Sum',
            Period: 300,
          }),
          ReturnData: false,
        }),
        Match.objectLike({
          Id: 's1',
          MetricStat: Match.objectLike({
            Metric: {
              Namespace: 'CdkBankWebhooks',
              MetricName: 'NotificationsStored',
              Dimensions: [
                { Name: 'Route', Value: 'boleto' },
                { Name: 'receiver', Value: 'TestStack/Webhooks' },
                { Name: 'service', Value: 'bank-webhook-receiver' },
              ],
            },
          }),
        }),
      ]),
    });
    expect(receiver.endpoint.unauthorizedRequestsAlarm).toBeDefined();
  });
});

describe('logEncryptionKey', () => {
  it('encrypts every log group the library creates with it, and lets CloudWatch Logs of the region use a key of the same stack', () => {
    const stack = testStack('Encrypted');
    const key = new kms.Key(stack, 'LogsKey', { enableKeyRotation: true });
    new BankWebhookReceiver(stack, 'Webhooks', {
      bank: testBankConnection(stack),
      logEncryptionKey: key,
      paymentRegistration: {},
      boletoContracts: [{}],
    });
    const template = Template.fromStack(stack);
    const groups = Object.values(template.findResources('AWS::Logs::LogGroup'));
    // Receiver, access log, processor, sweep, and the registration provider's two.
    expect(groups).toHaveLength(6);
    for (const group of groups)
      expect(group.Properties.KmsKeyId).toEqual({ 'Fn::GetAtt': [expect.stringMatching(/^LogsKey/), 'Arn'] });
    template.hasResourceProperties('AWS::KMS::Key', {
      KeyPolicy: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Principal: { Service: 'logs.sa-east-1.amazonaws.com' },
            Action: Match.arrayWith(['kms:Decrypt', 'kms:Encrypt']),
          }),
        ]),
      },
    });
  });

  it('refuses two receivers of one stack with registrations that give their shared provider different keys', () => {
    const stack = testStack('TwoKeys');
    const [a, b] = ['A', 'B'].map((id) => new kms.Key(stack, `${id}Key`, { enableKeyRotation: true }));
    new BankWebhookReceiver(stack, 'A', {
      bank: testBankConnection(stack),
      logEncryptionKey: a,
      paymentRegistration: {},
    });
    expect(
      () =>
        new BankWebhookReceiver(stack, 'B', {
          bank: testBankConnection(stack, {
            account: {
              cooperativa: '0101',
              posto: '02',
              conta: '999',
              documento: '12345678000199',
              codigoBeneficiario: '5999',
            },
          }),
          logEncryptionKey: b,
          paymentRegistration: {},
        }),
    ).toThrow('give every receiver and registration of the stack the same logEncryptionKey');
  });
});

describe("a registration entry's provider settings (deprecated: the receiver's own)", () => {
  it('warns, naming the entry and the settings, and still builds the one provider from the receiver', () => {
    const stack = testStack('EntrySettings');
    const key = new kms.Key(stack, 'Key', { enableKeyRotation: true });
    new BankWebhookReceiver(stack, 'Webhooks', {
      bank: testBankConnection(stack),
      logEncryptionKey: key,
      paymentRegistration: { logEncryptionKey: key },
      boletoContracts: [{}, { posto: '03', logEncryptionKey: key, tokenVersion: '2' }],
    });
    const warnings = Annotations.fromStack(stack)
      .findWarning('*', Match.stringLikeRegexp('deprecated there'))
      .map((w) => w.entry.data as string);
    expect(warnings).toEqual([
      expect.stringContaining(
        "paymentRegistration sets logEncryptionKey, deprecated there: the stack's registration provider takes the receiver's own",
      ),
      expect.stringContaining('boletoContracts[1] sets logEncryptionKey, deprecated there'),
    ]);
  });

  it('says nothing of an entry that leaves them out, nor of a standalone registration that sets them', () => {
    const stack = testStack('NoEntrySettings');
    const key = new kms.Key(stack, 'Key', { enableKeyRotation: true });
    new BankWebhookReceiver(stack, 'Webhooks', {
      bank: testBankConnection(stack),
      logEncryptionKey: key,
      paymentRegistration: { tokenVersion: '1' },
      boletoContracts: [{ eventos: ['LIQUIDACAO'] }],
    });
    expect(Annotations.fromStack(stack).findWarning('*', Match.stringLikeRegexp('deprecated there'))).toEqual([]);
  });
});

describe('webAclArn', () => {
  const acl = 'arn:aws:wafv2:sa-east-1:111111111111:regional/webacl/bank-webhooks/0a1b2c3d-4e5f-6789-abcd-ef0123456789';

  it('puts the web ACL in front of the stage', () => {
    const { template } = synth({ webAclArn: acl });
    template.hasResourceProperties('AWS::WAFv2::WebACLAssociation', {
      WebACLArn: acl,
      ResourceArn: {
        'Fn::Join': ['', Match.arrayWith([Match.stringLikeRegexp('/restapis/'), Match.stringLikeRegexp('/stages/')])],
      },
    });
  });

  it('refuses what is not a regional web ACL ARN, saying which kind it must be', () => {
    expect(() => synth({ webAclArn: acl.replace(':regional/', ':global/') })).toThrow(
      'webAclArn: must be the ARN of a regional WAF web ACL',
    );
    expect(() => synth({ webAclArn: 'my-acl' })).toThrow('got "my-acl"');
    expect(synth().template.findResources('AWS::WAFv2::WebACLAssociation')).toEqual({});
  });
});

describe('vpc', () => {
  function inVpc(props: TestProps = {}) {
    const stack = testStack('InVpc');
    const vpc = new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 1 });
    const receiver = new BankWebhookReceiver(stack, 'Webhooks', {
      bank: testBankConnection(stack),
      vpc,
      paymentRegistration: {},
      boletoContracts: [{}],
      ...props,
    });
    return { stack, vpc, receiver, template: Template.fromStack(stack) };
  }
  const privateSubnets = (stack: Stack, vpc: ec2.Vpc) => vpc.privateSubnets.map((s) => stack.resolve(s.subnetId));

  it("places all five functions in the VPC's private subnets, with security groups that allow only outbound HTTPS", () => {
    const { stack, vpc, template } = inVpc();
    const functions = Object.values(template.findResources('AWS::Lambda::Function'));
    // Receiver, processor, sweep, and the registration provider's handler and framework function.
    expect(functions).toHaveLength(5);
    for (const fn of functions) {
      expect(fn.Properties.VpcConfig.SubnetIds).toEqual(privateSubnets(stack, vpc));
      expect(fn.Properties.VpcConfig.SecurityGroupIds).toHaveLength(1);
    }
    // One group for the receiver's three functions, one for the stack's registration provider.
    const groups = template.findResources('AWS::EC2::SecurityGroup', {
      Properties: { GroupDescription: Match.stringLikeRegexp('^cdk-bank-webhooks functions') },
    });
    expect(Object.keys(groups)).toHaveLength(2);
    for (const group of Object.values(groups)) {
      expect(group.Properties.SecurityGroupIngress).toBeUndefined();
      expect(group.Properties.SecurityGroupEgress).toEqual([
        expect.objectContaining({ CidrIp: '0.0.0.0/0', IpProtocol: 'tcp', FromPort: 443, ToPort: 443 }),
      ]);
    }
  });

  it('uses the given subnets and security groups, and creates no group of its own', () => {
    const stack = testStack('Given');
    const vpc = new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 1 });
    const group = new ec2.SecurityGroup(stack, 'Mine', { vpc });
    new BankWebhookReceiver(stack, 'Webhooks', {
      bank: testBankConnection(stack),
      vpc,
      vpcSubnets: { subnets: [vpc.privateSubnets[1]] },
      securityGroups: [group],
      paymentRegistration: {},
    });
    const template = Template.fromStack(stack);
    for (const fn of Object.values(template.findResources('AWS::Lambda::Function'))) {
      expect(fn.Properties.VpcConfig).toEqual({
        SubnetIds: [stack.resolve(vpc.privateSubnets[1].subnetId)],
        SecurityGroupIds: [stack.resolve(group.securityGroupId)],
      });
    }
    template.resourceCountIs('AWS::EC2::SecurityGroup', 1);
  });

  it('leaves every function out of any VPC by default', () => {
    const { template } = synth({ paymentRegistration: {} });
    for (const fn of Object.values(template.findResources('AWS::Lambda::Function')))
      expect(fn.Properties.VpcConfig).toBeUndefined();
    template.resourceCountIs('AWS::EC2::SecurityGroup', 0);
  });

  it('refuses subnets or security groups without a VPC, and two receivers whose registrations would place the shared provider differently', () => {
    expect(() =>
      synth({}, (stack) => ({
        vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS },
        securityGroups: [ec2.SecurityGroup.fromSecurityGroupId(stack, 'Sg', 'sg-12345678')],
      })),
    ).toThrow(/vpcSubnets: only applies in a VPC: set vpc[\s\S]*securityGroups: only applies in a VPC/);
    const { stack } = inVpc();
    expect(
      () =>
        new BankWebhookReceiver(stack, 'Other', {
          bank: testBankConnection(stack, {
            account: {
              cooperativa: '0101',
              posto: '02',
              conta: '999',
              documento: '12345678000199',
              codigoBeneficiario: '5999',
            },
          }),
          paymentRegistration: {},
        }),
    ).toThrow(
      `whose functions are already placed in VPC InVpc/Vpc with other subnets or security groups: give every receiver and registration of the stack the same vpc, vpcSubnets and securityGroups`,
    );
  });
});

describe('tokenEncryptionKey', () => {
  it('encrypts the generated token secrets with it, and lets every reader decrypt', () => {
    const { template, stack } = synth({}, (s) => ({
      tokenEncryptionKey: new kms.Key(s, 'TokensKey', { enableKeyRotation: true }),
      paymentRegistration: {},
    }));
    const secrets = Object.values(template.findResources('AWS::SecretsManager::Secret'));
    expect(secrets).toHaveLength(2);
    for (const secret of secrets)
      expect(secret.Properties.KmsKeyId).toEqual({ 'Fn::GetAtt': [expect.stringMatching(/^TokensKey/), 'Arn'] });
    // Secret.grantRead adds the key use, through Secrets Manager only, for the receiver, the sweep and the registration handler.
    const key = Object.values(template.findResources('AWS::KMS::Key'))[0];
    const decrypters = (
      key.Properties.KeyPolicy.Statement as {
        Action: string | string[];
        Condition?: Record<string, Record<string, unknown>>;
      }[]
    ).filter((st) => [st.Action].flat().includes('kms:Decrypt') && st.Condition?.StringEquals?.['kms:ViaService']);
    expect(decrypters.length).toBeGreaterThanOrEqual(3);
    expect(
      decrypters.every(
        (st) => st.Condition?.StringEquals?.['kms:ViaService'] === `secretsmanager.${stack.region}.amazonaws.com`,
      ),
    ).toBe(true);
  });

  it('is refused when both token secrets are given (it would encrypt nothing)', () => {
    expect(() =>
      synth({}, (s) => ({
        tokenEncryptionKey: new kms.Key(s, 'K'),
        paymentCallbackToken: secretsmanager.Secret.fromSecretNameV2(s, 'P', 'p'),
        boletoToken: secretsmanager.Secret.fromSecretNameV2(s, 'B', 'b'),
      })),
    ).toThrow('tokenEncryptionKey: only encrypts the token secrets the construct generates');
  });
});

describe("the dead-letter queue's redrive-allow policy", () => {
  it("is set by the stack's provider to allow only the receiver's queue, which alone may change it", () => {
    const { stack, receiver, template } = synth();
    template.hasResourceProperties(REDRIVE_ALLOW_RESOURCE_TYPE, {
      DeadLetterQueueUrl: stack.resolve(receiver.deadLetterQueue.queueUrl),
      SourceQueueArn: stack.resolve(receiver.queue.queueArn),
      DeadLetterQueueSettings: 'SSE-SQS',
    });
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          {
            Effect: 'Allow',
            Action: 'sqs:SetQueueAttributes',
            Resource: stack.resolve(receiver.deadLetterQueue.queueArn),
          },
        ]),
      },
    });
    // Nothing else may set queue attributes.
    const setters = Object.values(template.findResources('AWS::IAM::Policy')).filter((p) =>
      JSON.stringify(p).includes('sqs:SetQueueAttributes'),
    );
    expect(setters).toHaveLength(1);
  });

  it("is set again when the dead-letter queue's encryption changes (a queue update may reset it)", () => {
    const { template } = synth({}, (stack) => ({
      queueEncryptionKey: new kms.Key(stack, 'QueueKey', { enableKeyRotation: true }),
    }));
    template.hasResourceProperties(REDRIVE_ALLOW_RESOURCE_TYPE, {
      DeadLetterQueueSettings: { 'Fn::GetAtt': [Match.stringLikeRegexp('^QueueKey'), 'Arn'] },
    });
  });
});

describe('several receivers in one account and region', () => {
  const otherAccount = {
    cooperativa: '0101',
    posto: '03',
    conta: '654321',
    documento: '98765432000155',
    codigoBeneficiario: '88888',
  };

  /** The `receiver` dimension of every alarm on the library's own metrics, by the receiver whose path it sits under. */
  function alarmReceivers(template: Template): Record<string, string[]> {
    const byOwner: Record<string, Set<string>> = {};
    for (const [id, alarm] of Object.entries(template.findResources('AWS::CloudWatch::Alarm'))) {
      const p = alarm.Properties as { Namespace?: string; Dimensions?: Array<{ Name: string; Value: string }> };
      if (p.Namespace !== 'CdkBankWebhooks') continue;
      const owner = id.startsWith('Staging') ? 'Staging' : id.startsWith('Production') ? 'Production' : id;
      (byOwner[owner] ??= new Set()).add(p.Dimensions!.find((d) => d.Name === 'receiver')?.Value ?? '(none)');
    }
    return Object.fromEntries(Object.entries(byOwner).map(([k, v]) => [k, [...v]]));
  }

  it("gives each receiver's metrics a receiver dimension of its own (by default the stack and path), which its alarms and metric methods use", () => {
    const stack = testStack('Billing');
    const production = new BankWebhookReceiver(stack, 'Production', {
      bank: testBankConnection(stack),
      stage: BankStage.PRODUCTION,
    });
    const staging = new BankWebhookReceiver(stack, 'Staging', {
      bank: testBankConnection(stack, { account: otherAccount }),
      receiverName: 'billing-staging',
      stage: BankStage.PRODUCTION,
    });
    expect(alarmReceivers(Template.fromStack(stack))).toEqual({
      Production: ['Billing/Production'],
      Staging: ['billing-staging'],
    });
    expect(stack.resolve(production.processor.metricNotificationsRecovered().dimensions)).toEqual({
      service: 'bank-webhook-processor',
      receiver: 'Billing/Production',
    });
    expect(stack.resolve(staging.endpoint.metricUnauthorizedRequests('payments').dimensions)).toEqual({
      service: 'bank-webhook-receiver',
      receiver: 'billing-staging',
      Route: 'payments',
    });
    expect(stack.resolve(staging.reconciliation!.metric('RegistrationDrift').dimensions)).toEqual({
      service: 'bank-webhook-reconciliation',
      receiver: 'billing-staging',
    });
    // Each function writes its receiver's name into its settings, so its counts carry it.
    const flat = (value: unknown): string =>
      typeof value === 'string'
        ? value
        : Array.isArray(value)
          ? value.map(flat).join('')
          : value && typeof value === 'object'
            ? Object.values(value).map(flat).join('')
            : '';
    const names = Object.values(Template.fromStack(stack).findResources('AWS::Lambda::Function')).flatMap((fn) =>
      [...flat((fn.Properties as { Environment?: unknown }).Environment).matchAll(/"receiverName":"([^"]+)"/g)].map(
        (m) => m[1],
      ),
    );
    expect(names.sort()).toEqual([
      'Billing/Production',
      'Billing/Production',
      'Billing/Production',
      'billing-staging',
      'billing-staging',
      'billing-staging',
    ]);
  });

  it('refuses two receivers of one bank account in a stack, and two of one name, saying why', () => {
    const sameAccount = testStack('Billing');
    new BankWebhookReceiver(sameAccount, 'Production', { bank: testBankConnection(sameAccount) });
    expect(
      () =>
        new BankWebhookReceiver(sameAccount, 'Staging', {
          bank: testBankConnection(sameAccount, { account: { ...otherAccount, conta: '123456' } }),
        }),
    ).toThrow(
      'Billing/Staging/Processor: the bank account (cooperativa 0101, conta 123456) is already taken by the receiver at Billing/Production/Processor in stack Billing. Two receivers of one bank account register over each other at the bank and publish each settlement twice',
    );
    const sameBeneficiary = testStack('Billing');
    new BankWebhookReceiver(sameBeneficiary, 'Production', { bank: testBankConnection(sameBeneficiary) });
    expect(
      () =>
        new BankWebhookReceiver(sameBeneficiary, 'Other', {
          bank: testBankConnection(sameBeneficiary, {
            account: { ...otherAccount, posto: '02', codigoBeneficiario: '54321' },
          }),
        }),
    ).toThrow(/the beneficiary \(cooperativa 0101, posto 02, beneficiário 54321\) is already taken/);
    const sameName = testStack('Billing');
    new BankWebhookReceiver(sameName, 'Production', { bank: testBankConnection(sameName), receiverName: 'billing' });
    expect(
      () =>
        new BankWebhookReceiver(sameName, 'Staging', {
          bank: testBankConnection(sameName, { account: otherAccount }),
          receiverName: 'billing',
        }),
    ).toThrow(/the receiverName "billing" is already taken .* give each its own receiverName/);
  });

  it('checks receiverName', () => {
    expect(() => synth({ receiverName: 'has spaces and "quotes"' })).toThrow(
      'receiverName: must be 1 to 255 letters, digits, dots, hyphens, underscores, slashes or colons (a CloudWatch dimension value), got "has spaces and "quotes""',
    );
  });
});

it('reports bad props with the construct and each prop, and no stack trace into the library', () => {
  let error: Error | undefined;
  try {
    synthReceiver({ processorMemorySize: 1 });
  } catch (e) {
    error = e as Error;
  }
  expect(error?.message).toMatch(
    /^Invalid BankWebhookReceiver props at TestStack\/Webhooks \(1 problem\):\n {2}- processorMemorySize:/,
  );
  expect(error?.stack).toBe(`Error: ${error?.message}`);
  expect(error?.stack).not.toMatch(/\n\s+at /);
});
