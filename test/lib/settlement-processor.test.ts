import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, Duration, Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { processBatch } from '../../lambda/processor/batch';
import { matchesEventPattern } from '../../tools/local-aws/event-pattern';
import { boletoEvent, contextWith, fakeDeps, pixPayment, sqsRecord } from '../support/processor-records';
import { consumerAlarmPrefix } from '../../contracts/operations';
import {
  BankEventDetailType,
  BankStage,
  BankWebhookReceiver,
  type BankWebhookReceiverProps,
  ClientCredentialsAuth,
  ZuluTimestamps,
} from '../../lib';
import {
  BANK_CONNECTION_ENV,
  type BankConnectionSettings,
  expandBankConnection,
} from '../../contracts/bank-connection';
import { PROCESSOR_SETTINGS_ENV, type ProcessorSettings } from '../../contracts/processor';
import { synthReceiver, TEST_CREDENTIALS_ARN, testBankConnection, testStack } from '../support/cdk';

type TestProps = Partial<BankWebhookReceiverProps>;

const synth = synthReceiver;

function processorEnvironment(template: Template): Record<string, unknown> {
  const fns = template.findResources('AWS::Lambda::Function', {
    Properties: { Description: Match.stringLikeRegexp('^Verifies') },
  });
  expect(Object.keys(fns)).toHaveLength(1);
  return (Object.values(fns)[0].Properties as { Environment: { Variables: Record<string, unknown> } }).Environment
    .Variables;
}

/** Resolves a Fn::Join of literal strings and tokens into text with the tokens as placeholders. */
function joined(value: unknown): string {
  if (typeof value === 'string') return value;
  const parts = (value as { 'Fn::Join': [string, unknown[]] })['Fn::Join'][1];
  return parts.map((part) => (typeof part === 'string' ? part : '<token>')).join('');
}

const settingsOf = (template: Template) =>
  JSON.parse(joined(processorEnvironment(template)[PROCESSOR_SETTINGS_ENV])) as ProcessorSettings;
/** The bank connection as the environment carries it: without its defaults. */
const rawConnectionOf = (template: Template) =>
  JSON.parse(joined(processorEnvironment(template)[BANK_CONNECTION_ENV])) as Partial<BankConnectionSettings>;
/** The bank connection as the handler reads it, its defaults filled. */
const connectionOf = (template: Template) => expandBankConnection(rawConnectionOf(template)) as BankConnectionSettings;

describe('with default props', () => {
  const { template, receiver } = synth();

  it('feeds the processor from the queue with partial batch failures, batches of 10', () => {
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: { 'Fn::GetAtt': [Match.stringLikeRegexp('WebhooksQueue'), 'Arn'] },
      FunctionName: { Ref: Match.stringLikeRegexp('WebhooksProcessorFunction') },
      BatchSize: 10,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      MaximumBatchingWindowInSeconds: Match.absent(),
      ScalingConfig: Match.absent(),
    });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('^Verifies'),
      Timeout: 30,
      MemorySize: 512,
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
    });
  });

  it('derives the queue visibility timeout as 6 × the processor timeout', () => {
    template.hasResourceProperties('AWS::SQS::Queue', {
      VisibilityTimeout: 180,
      RedrivePolicy: Match.objectLike({ maxReceiveCount: 5 }),
    });
  });

  it('creates an on-demand idempotency table with TTL and point-in-time recovery', () => {
    template.resourceCountIs('AWS::DynamoDB::Table', 1);
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
      TimeToLiveSpecification: { AttributeName: 'expiration', Enabled: true },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      SSESpecification: { SSEEnabled: true },
    });
    expect(receiver.idempotencyTable).toBeDefined();
  });

  it("allows every DynamoDB call the processor's stores make (a call its role lacks fails only in an account)", () => {
    const sources = ['subject-store.ts', 'look-markers.ts', 'slot-schedule.ts']
      .map((file) => readFileSync(join(__dirname, '..', '..', 'lambda', 'store', file), 'utf8'))
      .join('\n');
    const made = [
      ...new Set([...sources.matchAll(/new (\w+)Command\(/g)].map(([, name]) => `dynamodb:${name}`)),
    ].sort();
    expect(made).toEqual(['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem']);
    const allowed = Object.values(template.findResources('AWS::IAM::Policy'))
      .filter((policy) => JSON.stringify(policy.Properties.Roles).includes('WebhooksProcessorRole'))
      .flatMap((policy) =>
        (policy.Properties.PolicyDocument as { Statement: Array<{ Action: string | string[] }> }).Statement.flatMap(
          (st) => st.Action,
        ),
      );
    expect(allowed).toEqual(expect.arrayContaining(made));
  });

  it('creates an event bus and lets the processor put events on it, and nothing else there', () => {
    template.resourceCountIs('AWS::Events::EventBus', 1);
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          {
            Action: 'events:PutEvents',
            Effect: 'Allow',
            Resource: { 'Fn::GetAtt': [Match.stringLikeRegexp('WebhooksProcessorEventBus'), 'Arn'] },
          },
        ]),
      },
    });
  });

  it('grants the processor exactly the subject record calls, SendMessage on both queues and their DLQs, and the credentials', () => {
    for (const statement of [
      {
        Action: ['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
        Effect: 'Allow',
        Resource: { 'Fn::GetAtt': [Match.stringLikeRegexp('WebhooksProcessorIdempotencyTable'), 'Arn'] },
      },
      {
        Action: 'sqs:SendMessage',
        Effect: 'Allow',
        Resource: [
          'WebhooksDeadLetterQueue',
          'WebhooksQueue',
          'WebhooksProcessorLookDeadLetterQueue',
          'WebhooksProcessorLookQueue',
        ].map((id) => ({ 'Fn::GetAtt': [Match.stringLikeRegexp(id), 'Arn'] })),
      },
      Match.objectLike({
        Action: ['secretsmanager:GetSecretValue', 'secretsmanager:DescribeSecret'],
        Resource: TEST_CREDENTIALS_ARN,
      }),
    ]) {
      template.hasResourceProperties('AWS::IAM::Policy', {
        PolicyDocument: { Statement: Match.arrayWith([statement]) },
        Roles: [{ Ref: Match.stringLikeRegexp('WebhooksProcessorRole') }],
      });
    }
    const processorPolicy = JSON.stringify(
      template.findResources('AWS::IAM::Policy', {
        Properties: { Roles: [{ Ref: Match.stringLikeRegexp('WebhooksProcessorRole') }] },
      }),
    );
    expect(processorPolicy).not.toContain('"Resource":"*"');
    expect(processorPolicy).not.toMatch(/dynamodb:(Scan|Query|BatchWriteItem|DeleteItem)/);
  });

  it('passes the bank connection without its defaults (the handler fills them: Lambda takes 4 KB of environment), and the credentials only as an ARN', () => {
    expect(rawConnectionOf(template)).toEqual({
      baseUrl: 'https://api.bank.example',
      registrationBaseUrl: 'https://api.bank.example/pagamentos',
      account: {
        cooperativa: '0101',
        posto: '02',
        conta: '123456',
        documento: '12345678000199',
        codigoBeneficiario: '54321',
      },
      credentialsSecretArn: TEST_CREDENTIALS_ARN,
    });
    expect(connectionOf(template)).toEqual({
      baseUrl: 'https://api.bank.example',
      registrationBaseUrl: 'https://api.bank.example/pagamentos',
      collectionTokenUrl: 'https://api.bank.example/auth/openapi/token',
      paymentsTokenUrl: 'https://api.bank.example/thirdparty/auth/token',
      collectionScope: 'cobranca',
      paymentsScope: 'payments.pix.pagar payments.boleto.pagar payments.tributos.pagar',
      paymentQueryScopes: {
        pix: 'payments.pix.consultar',
        boleto: 'payments.boleto.consultar',
        tributos: 'payments.tributos.consultar',
      },
      zuluTimestamps: 'utc',
      paymentsClientAuth: 'body',
      account: {
        cooperativa: '0101',
        posto: '02',
        conta: '123456',
        documento: '12345678000199',
        codigoBeneficiario: '54321',
      },
      credentialsSecretArn: TEST_CREDENTIALS_ARN,
      boletoQueryPath: '/cobranca/boleto/v1/boletos',
      paymentQueryPaths: {
        pix: '/v1/pagamentos/pix/{id}',
        boleto: '/v1/pagamentos/boleto/{id}',
        tributos: '/v1/pagamentos/tributos/{id}',
      },
      callTimeoutMs: 5000,
      queriesPerSecond: 10,
      registrationCallsPerSecond: 2,
      settledBoletosPath: '/cobranca/boleto/v1/boletos/liquidados/dia',
      listingPageSize: 500,
    });
  });

  it('passes the processor settings: bus, table, DLQ, source, attempts and status mappings', () => {
    expect(settingsOf(template)).toMatchObject({
      eventBusName: '<token>',
      idempotencyTableName: '<token>',
      quarantineQueueUrl: '<token>',
      queueUrl: '<token>',
      maxReceiveCount: 5,
      eventSource: 'cdk-bank-webhooks',
      maxVerificationAttempts: 3,
      idempotencyTtlSeconds: 30 * 24 * 3600,
      boletoStatuses: { settled: ['LIQUIDADO'] },
      paymentStatuses: { settled: ['EFETIVADO'] },
    });
  });

  it("raises alarms on both DLQs' depth, the oldest message age (30 min), the oldest look's age (30 min), processor errors and the journal (and the receiver's on 401s and silence per route, the sweep's three: recovered, errors, configuration drift), without actions", () => {
    template.resourceCountIs('AWS::CloudWatch::Alarm', 12);
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Threshold: 1,
      Dimensions: [
        {
          Name: 'QueueName',
          Value: { 'Fn::GetAtt': [Match.stringLikeRegexp('WebhooksProcessorLookDeadLetterQueue'), 'QueueName'] },
        },
      ],
      AlarmDescription: Match.stringLikeRegexp('No notification is in it'),
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'CdkBankWebhooks',
      MetricName: 'LookRequestAge',
      Statistic: 'Maximum',
      Period: 300,
      Threshold: 1_800_000,
      Dimensions: [
        { Name: 'receiver', Value: 'TestStack/Webhooks' },
        { Name: 'service', Value: 'bank-webhook-processor' },
      ],
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      Dimensions: [
        {
          Name: 'QueueName',
          Value: { 'Fn::GetAtt': [Match.stringLikeRegexp('WebhooksDeadLetterQueue'), 'QueueName'] },
        },
      ],
      AlarmActions: Match.absent(),
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateAgeOfOldestMessage',
      Threshold: 1800,
      Dimensions: [
        { Name: 'QueueName', Value: { 'Fn::GetAtt': [Match.stringLikeRegexp('WebhooksQueue'), 'QueueName'] } },
      ],
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/Lambda',
      MetricName: 'Errors',
      Threshold: 1,
      Statistic: 'Sum',
    });
  });
});

describe('onVerifiedEvent', () => {
  const newStack = (id = 'RuleStack') =>
    new Stack(new App(), id, { env: { account: '111111111111', region: 'sa-east-1' } });
  /** The EventPattern of the stack's rule whose logical ID starts with `id`. */
  const rulePatterns = (stack: Stack) => {
    const rules = Template.fromStack(stack).findResources('AWS::Events::Rule');
    return (id: string) =>
      Object.entries(rules).find(([logicalId]) => logicalId.startsWith(id))![1].Properties.EventPattern as Record<
        string,
        unknown
      >;
  };
  /** What a fake processor published, as EventBridge matches it. */
  const asBusEvents = (published: ReturnType<typeof fakeDeps>['published']) =>
    published.map((e) => ({ source: 'cdk-bank-webhooks', 'detail-type': e.detailType, detail: e.detail }));

  it("gives a rule for one detail type of this receiver's account on the bus, with a target, in one line", () => {
    const stack = newStack();
    const receiver = new BankWebhookReceiver(stack, 'Webhooks', { bank: testBankConnection(stack) });
    const queue = new sqs.Queue(stack, 'Consumer', { enforceSSL: true });
    receiver.onVerifiedEvent('Settled', BankEventDetailType.BOLETO_SETTLED, { target: new targets.SqsQueue(queue) });
    Template.fromStack(stack).hasResourceProperties('AWS::Events::Rule', {
      EventBusName: { Ref: Match.stringLikeRegexp('WebhooksProcessorEventBus') },
      EventPattern: {
        source: ['cdk-bank-webhooks'],
        'detail-type': ['Boleto Settled'],
        detail: { account: { cooperativa: ['0101'], $or: [{ codigoBeneficiario: ['54321'] }, { conta: ['123456'] }] } },
      },
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [Match.stringLikeRegexp('Consumer'), 'Arn'] } })],
    });
  });

  it('gives the target a dead-letter queue it may send to and a retry policy, unless the target brings its own', () => {
    const stack = newStack();
    const receiver = new BankWebhookReceiver(stack, 'Webhooks', { bank: testBankConnection(stack) });
    const fn = lambda.Function.fromFunctionArn(stack, 'Fn', 'arn:aws:lambda:sa-east-1:111111111111:function:consumer');
    const own = new sqs.Queue(stack, 'OwnDlq', { enforceSSL: true });
    receiver.onVerifiedEvent('Settled', BankEventDetailType.BOLETO_SETTLED, { target: new targets.LambdaFunction(fn) });
    receiver.onVerifiedEvent('Paid', BankEventDetailType.PAYMENT_STATUS_VERIFIED, {
      target: new targets.LambdaFunction(fn, { deadLetterQueue: own, retryAttempts: 3 }),
    });
    const template = Template.fromStack(stack);
    template.hasResourceProperties('AWS::Events::Rule', {
      EventPattern: Match.objectLike({ 'detail-type': ['Boleto Settled'] }),
      Targets: [
        Match.objectLike({
          DeadLetterConfig: {
            Arn: { 'Fn::GetAtt': [Match.stringLikeRegexp('WebhooksSettledDeadLetterQueue'), 'Arn'] },
          },
          RetryPolicy: { MaximumRetryAttempts: 185, MaximumEventAgeInSeconds: 86400 },
        }),
      ],
    });
    template.hasResourceProperties('AWS::Events::Rule', {
      EventPattern: Match.objectLike({ 'detail-type': ['Payment Status Verified'] }),
      Targets: [
        Match.objectLike({
          DeadLetterConfig: { Arn: { 'Fn::GetAtt': [Match.stringLikeRegexp('OwnDlq'), 'Arn'] } },
          RetryPolicy: { MaximumRetryAttempts: 3 },
        }),
      ],
    });
    // EventBridge may send to the dead-letter queue for that rule only.
    template.hasResourceProperties('AWS::SQS::QueuePolicy', {
      Queues: [{ Ref: Match.stringLikeRegexp('WebhooksSettledDeadLetterQueue') }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Action: 'sqs:SendMessage',
            Principal: { Service: 'events.amazonaws.com' },
            Condition: {
              ArnEquals: { 'aws:SourceArn': { 'Fn::GetAtt': [Match.stringLikeRegexp('WebhooksSettled'), 'Arn'] } },
            },
          }),
        ]),
      },
    });
  });

  it('alarms on and exposes the dead-letter queue it makes, and warns that a bare Lambda target drops what the function fails', () => {
    const stack = newStack();
    const topic = sns.Topic.fromTopicArn(stack, 'Topic', 'arn:aws:sns:sa-east-1:111111111111:alarms');
    const receiver = new BankWebhookReceiver(stack, 'Webhooks', { bank: testBankConnection(stack), alarmTopic: topic });
    const fn = lambda.Function.fromFunctionArn(stack, 'Fn', 'arn:aws:lambda:sa-east-1:111111111111:function:consumer');
    const inbox = new sqs.Queue(stack, 'Inbox', { enforceSSL: true });
    const own = new sqs.Queue(stack, 'OwnDlq', { enforceSSL: true });
    const toQueue = receiver.onVerifiedEvent('Settled', BankEventDetailType.BOLETO_SETTLED, {
      target: new targets.SqsQueue(inbox),
    });
    const bare = receiver.onVerifiedEvent('Reversed', BankEventDetailType.BOLETO_SETTLEMENT_REVERSED, {
      target: new targets.LambdaFunction(fn),
    });
    const given = receiver.onVerifiedEvent('Paid', BankEventDetailType.PAYMENT_STATUS_VERIFIED, {
      target: new targets.SqsQueue(inbox),
      deadLetterQueue: own,
    });
    expect(toQueue).toBeInstanceOf(events.Rule);
    expect(toQueue.deadLetterQueue).toBeDefined();
    expect(toQueue.deadLetterQueueAlarm).toBeDefined();
    // A queue you gave is yours to watch.
    expect(given.deadLetterQueue).toBe(own);
    expect(given.deadLetterQueueAlarm).toBeUndefined();
    const template = Template.fromStack(stack);
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Threshold: 1,
      Dimensions: [
        {
          Name: 'QueueName',
          Value: { 'Fn::GetAtt': [Match.stringLikeRegexp('WebhooksSettledDeadLetterQueue'), 'QueueName'] },
        },
      ],
      AlarmDescription: Match.stringLikeRegexp(
        'Verified bank events \\(Boleto Settled\\) are in the dead-letter queue',
      ),
      AlarmActions: ['arn:aws:sns:sa-east-1:111111111111:alarms'],
    });
    const warnings = Annotations.fromStack(stack).findWarning(
      '*',
      Match.stringLikeRegexp('invokes a Lambda function directly'),
    );
    expect(warnings.map((w) => w.id)).toEqual([`/${bare.node.path}`]);
    expect(JSON.stringify(warnings[0].entry.data)).toMatch(/Pass the function as consumer instead of target/);
  });

  it('wires a consumer function through a queue of its own: partial batch failures, a dead-letter queue after 5 receives, alarmed', () => {
    const stack = newStack();
    const receiver = new BankWebhookReceiver(stack, 'Webhooks', { bank: testBankConnection(stack) });
    const fn = new lambda.Function(stack, 'Consumer', {
      runtime: lambda.Runtime.NODEJS_22_X,
      handler: 'index.handler',
      code: lambda.Code.fromInline('exports.handler = async () => ({ batchItemFailures: [] })'),
      timeout: Duration.seconds(20),
    });
    const rule = receiver.onVerifiedEvent('Settled', BankEventDetailType.BOLETO_SETTLED, { consumer: fn });
    const template = Template.fromStack(stack);
    template.hasResourceProperties('AWS::SQS::Queue', {
      VisibilityTimeout: 120,
      RedrivePolicy: {
        deadLetterTargetArn: { 'Fn::GetAtt': [Match.stringLikeRegexp('WebhooksSettledDeadLetterQueue'), 'Arn'] },
        maxReceiveCount: 5,
      },
    });
    template.hasResourceProperties('AWS::Events::Rule', {
      EventPattern: Match.objectLike({ 'detail-type': ['Boleto Settled'] }),
      Targets: [
        Match.objectLike({
          Arn: { 'Fn::GetAtt': [Match.stringLikeRegexp('WebhooksSettledQueue'), 'Arn'] },
          DeadLetterConfig: {
            Arn: { 'Fn::GetAtt': [Match.stringLikeRegexp('WebhooksSettledDeadLetterQueue'), 'Arn'] },
          },
          RetryPolicy: { MaximumRetryAttempts: 185, MaximumEventAgeInSeconds: 86400 },
        }),
      ],
    });
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: Match.stringLikeRegexp('^Consumer') },
      BatchSize: 10,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      EventSourceArn: { 'Fn::GetAtt': [Match.stringLikeRegexp('WebhooksSettledQueue'), 'Arn'] },
    });
    expect(rule.consumerQueue).toBeDefined();
    expect(rule.deadLetterQueueAlarm).toBeDefined();
    expect(() =>
      receiver.onVerifiedEvent('Both', BankEventDetailType.BOLETO_SETTLED, {
        consumer: fn,
        target: new targets.LambdaFunction(fn),
      }),
    ).toThrow('consumer: cannot be given with target');
    expect(() =>
      receiver.onVerifiedEvent('Big', BankEventDetailType.BOLETO_SETTLED, { consumer: fn, consumerBatchSize: 50 }),
    ).toThrow('consumerBatchSize: must be a whole number from 1 to 10');
  });

  it("creates the rule in a consumer's stack when given its scope, so only the consumer's stack depends on the receiver's", () => {
    const app = new App();
    const stack = testStack('Receiver', app);
    const consumer = testStack('Consumer', app);
    const receiver = new BankWebhookReceiver(stack, 'Webhooks', {
      bank: testBankConnection(stack),
      stage: BankStage.PRODUCTION,
    });
    const queue = new sqs.Queue(consumer, 'Inbox', { enforceSSL: true });
    receiver.onVerifiedEvent('Settled', BankEventDetailType.BOLETO_SETTLED, {
      scope: consumer,
      target: new targets.SqsQueue(queue),
    });
    expect(Template.fromStack(consumer).findResources('AWS::Events::Rule')).not.toEqual({});
    // The receiver's own rule only: the sweep's schedule.
    expect(Object.keys(Template.fromStack(stack).findResources('AWS::Events::Rule')).sort()).toEqual([
      expect.stringMatching(/^WebhooksReconciliationSchedule/),
    ]);
    expect(consumer.dependencies).toContain(stack);
    expect(stack.dependencies).toEqual([]);
    // Its alarm is named under the receiver's prefix: `status` finds it by name, with no reference from the receiver's stack.
    Template.fromStack(consumer).hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: `${consumerAlarmPrefix(receiver.receiverName)}Consumer-SettledDeadLetterQueueAlarm`,
    });
    expect(consumerAlarmPrefix(receiver.receiverName)).toMatch(/^cdk-bank-webhooks-consumer-[0-9a-f]{12}-$/);
    app.synth();
  });

  it("keeps two receivers on one bus apart: each rule matches only its own account's events", async () => {
    const stack = newStack('Shared');
    const bus = new events.EventBus(stack, 'Bus');
    const accountB = { ...testBankConnection(stack).account, conta: '777777', codigoBeneficiario: '88888' };
    const a = new BankWebhookReceiver(stack, 'A', { bank: testBankConnection(stack), eventBus: bus });
    const b = new BankWebhookReceiver(stack, 'B', {
      bank: { ...testBankConnection(stack), account: accountB },
      eventBus: bus,
    });
    for (const [receiver, name] of [
      [a, 'A'],
      [b, 'B'],
    ] as const) {
      receiver.onVerifiedEvent(`${name}Settled`, BankEventDetailType.BOLETO_SETTLED);
      receiver.onVerifiedEvent(`${name}Paid`, BankEventDetailType.PAYMENT_STATUS_VERIFIED);
    }
    const patternOf = rulePatterns(stack);

    // What each account's processor publishes for a settled boleto and a paid Pix.
    const published = async (account: typeof accountB) => {
      const f = fakeDeps({ account });
      f.bank.settle('1001', '150.25', undefined, account.codigoBeneficiario);
      f.bank.payments.set('tx-1', pixPayment('tx-1', 'EFETIVADO'));
      await processBatch(
        {
          Records: [
            sqsRecord(
              'boleto',
              boletoEvent('1001', 'LIQUIDACAO_PIX', '150.25', { beneficiario: account.codigoBeneficiario }),
            ),
            sqsRecord('payments', pixPayment('tx-1', 'EFETIVADO')),
          ],
        },
        contextWith(f.clock),
        f.deps,
      );
      return asBusEvents(f.published);
    };
    const fromA = await published(testBankConnection(stack).account);
    const fromB = await published(accountB);
    expect(fromA).toHaveLength(2);
    expect(fromB).toHaveLength(2);
    const matched = (ruleId: string, list: Record<string, unknown>[]) =>
      list.filter((e) => matchesEventPattern(patternOf(ruleId), e)).map((e) => e['detail-type']);
    expect(matched('AASettled', fromA)).toEqual(['Boleto Settled']);
    expect(matched('AAPaid', fromA)).toEqual(['Payment Status Verified']);
    expect(matched('AASettled', fromB)).toEqual([]);
    expect(matched('AAPaid', fromB)).toEqual([]);
    expect(matched('BBSettled', fromB)).toEqual(['Boleto Settled']);
    expect(matched('BBPaid', fromA)).toEqual([]);
  });

  it("delivers a Pix whose EFETIVADO notification was lost to the README's Pix-settled rule exactly once, a boleto paid never, and none to a rule on matchesNotification", async () => {
    const stack = newStack();
    const receiver = new BankWebhookReceiver(stack, 'Webhooks', { bank: testBankConnection(stack) });
    // The README's rule: Pix payments settled, by the bank's state, never matchesNotification.
    receiver.onVerifiedEvent('PixPaymentSettled', BankEventDetailType.PAYMENT_STATUS_VERIFIED, {
      eventPattern: { detail: { subject: { paymentKind: ['pix'] }, state: { statusClass: ['settled'] } } },
    });
    // What the first version told consumers to write.
    receiver.onVerifiedEvent('OldRule', BankEventDetailType.PAYMENT_STATUS_VERIFIED, {
      eventPattern: { detail: { state: { statusClass: ['settled'] }, matchesNotification: [true] } },
    });
    const patternOf = rulePatterns(stack);

    // The bank lost the EFETIVADO notification; the RECEBIDO one is looked at late, three times (re-sent).
    const f = fakeDeps({ account: testBankConnection(stack).account });
    f.bank.payments.set('tx-lost', pixPayment('tx-lost', 'EFETIVADO'));
    for (const receiveCount of [1, 2, 3]) {
      await processBatch(
        { Records: [sqsRecord('payments', pixPayment('tx-lost', 'RECEBIDO'), { receiveCount })] },
        contextWith(f.clock),
        f.deps,
      );
    }
    // A boleto the company paid, settled too: the rule's name says Pix, and it never matches it.
    const boletoPaid = { idPagamentoBoleto: 8, idTransacao: 'tx-boleto', status: 'EFETIVADO', valorPagamento: '10.00' };
    f.bank.payments.set('tx-boleto', boletoPaid);
    await processBatch({ Records: [sqsRecord('payments', boletoPaid)] }, contextWith(f.clock), f.deps);
    const published = asBusEvents(f.published);
    expect(
      published.filter((e) => (e.detail as { subject: { paymentKind?: string } }).subject.paymentKind === 'boleto'),
    ).toHaveLength(1);
    const matched = (ruleId: string) => published.filter((e) => matchesEventPattern(patternOf(ruleId), e));
    expect(
      matched('WebhooksPixPaymentSettled').map((e) => [
        (e.detail as { state: { status: string } }).state.status,
        (e.detail as { matchesNotification: boolean }).matchesNotification,
      ]),
    ).toEqual([['EFETIVADO', false]]);
    // The old rule misses the Pix whose notification was lost (it catches the boleto paid, which was notified).
    expect(
      matched('WebhooksOldRule').map((e) => (e.detail as { subject: { paymentKind?: string } }).subject.paymentKind),
    ).toEqual(['boleto']);
  });

  it('archives the bus it creates for replay, for as long as told, and none it is given', () => {
    const { template } = synth({ eventArchiveRetention: Duration.days(90) });
    template.hasResourceProperties('AWS::Events::Archive', {
      SourceArn: { 'Fn::GetAtt': [Match.stringLikeRegexp('WebhooksProcessorEventBus'), 'Arn'] },
      EventPattern: { source: ['cdk-bank-webhooks'] },
      RetentionDays: 90,
    });
    const withBus = synth({}, (stack) => ({
      eventBus: events.EventBus.fromEventBusName(stack, 'Bus', 'acme-finance'),
    }));
    withBus.template.resourceCountIs('AWS::Events::Archive', 0);
    expect(withBus.receiver.processor.eventArchive).toBeUndefined();
  });
});

describe('the answer must be ours', () => {
  it('refuses a boleto contract for a beneficiary the bank credentials do not act for, naming it, under either spelling; and both spellings at once', () => {
    expect(() => synth({ boletoContracts: [{ codigoBeneficiario: '99999' }] })).toThrow(
      /boletoContracts\[0\]\.codigoBeneficiario: is "99999", but the bank credentials act for beneficiary "54321" \(bank\.account\.codigoBeneficiario\)/,
    );
    // The deprecated spelling still works, and is named as written.
    expect(() => synth({ boletoContracts: [{ codBeneficiario: '99999' }] })).toThrow(
      /boletoContracts\[0\]\.codBeneficiario: is "99999"/,
    );
    expect(() => synth({ boletoContracts: [{ codBeneficiario: '54321' }] })).not.toThrow();
    expect(() => synth({ boletoContracts: [{ codigoBeneficiario: '54321', codBeneficiario: '54321' }] })).toThrow(
      /boletoContracts\[0\]\.codBeneficiario: is the deprecated spelling of codigoBeneficiario, which is set too/,
    );
  });

  it("refuses an idempotencyTtl shorter than the queues' retention plus the reconciliation look-back", () => {
    expect(() => synth({ idempotencyTtl: Duration.days(16) })).toThrow(
      /idempotencyTtl: must be from 17 days \(the queues' 14-day retention plus the reconciliation's 3-day look-back/,
    );
    expect(() => synth({ idempotencyTtl: Duration.days(17) })).not.toThrow();
  });
});

describe('with processor props', () => {
  it('applies batch size, batching window, maximum concurrency, timeout and memory, and derives visibility from both', () => {
    const { template } = synth({
      batchSize: 50,
      maxBatchingWindow: Duration.seconds(5),
      maxConcurrency: 4,
      processorTimeout: Duration.seconds(20),
      processorMemorySize: 1024,
    });
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      BatchSize: 50,
      MaximumBatchingWindowInSeconds: 5,
      ScalingConfig: { MaximumConcurrency: 4 },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('^Verifies'),
      Timeout: 20,
      MemorySize: 1024,
    });
    template.hasResourceProperties('AWS::SQS::Queue', { VisibilityTimeout: 125 });
  });

  it('keeps a visibility timeout the user sets when it meets the rule', () => {
    const { template } = synth({ queueVisibilityTimeout: Duration.minutes(10) });
    template.hasResourceProperties('AWS::SQS::Queue', { VisibilityTimeout: 600 });
  });

  it('uses a given event bus and source, and sends alarms and recoveries to the SNS topic', () => {
    const { template, receiver } = synth({ eventSource: 'acme.bank' }, (stack) => ({
      eventBus: events.EventBus.fromEventBusName(stack, 'Bus', 'acme-finance'),
      alarmTopic: sns.Topic.fromTopicArn(stack, 'Topic', 'arn:aws:sns:sa-east-1:111111111111:alarms'),
    }));
    template.resourceCountIs('AWS::Events::EventBus', 0);
    expect(receiver.eventSource).toBe('acme.bank');
    const settings = settingsOf(template);
    expect(settings).toMatchObject({ eventBusName: 'acme-finance', eventSource: 'acme.bank' });
    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm'));
    expect(alarms).toHaveLength(12);
    for (const alarm of alarms) {
      expect(alarm.Properties.AlarmActions).toEqual(['arn:aws:sns:sa-east-1:111111111111:alarms']);
      expect(alarm.Properties.OKActions).toEqual(['arn:aws:sns:sa-east-1:111111111111:alarms']);
    }
  });

  it('merges status mappings over the defaults and applies connection overrides', () => {
    const { template } = synth(
      {
        boletoStatuses: { settled: ['LIQUIDADO', 'PAGO'] },
        paymentStatuses: { pending: ['RECEBIDO'] },
        maxVerificationAttempts: 2,
        idempotencyTtl: Duration.days(30),
      },
      (stack) => ({
        bank: testBankConnection(stack, {
          baseUrl: 'https://cobranca.bank.example/',
          paymentsTokenUrl: 'https://auth.bank.example/oauth/token',
          paymentsScopes: ['pix.read'],
          paymentQueryScopes: { pix: ['pix.read', 'pix.query'], boleto: undefined },
          zuluTimestamps: ZuluTimestamps.BANK_LOCAL_TIME,
          clientCredentialsAuth: ClientCredentialsAuth.BASIC,
          pixQueryPath: '/v2/pix/{id}',
          callTimeout: Duration.seconds(3),
          queriesPerSecond: 4.5,
          registrationCallsPerSecond: 1,
          listingPageSize: 100,
        }),
      }),
    );
    const settings = settingsOf(template);
    expect(settings.boletoStatuses).toEqual({
      settled: ['LIQUIDADO', 'PAGO'],
      writtenOff: ['BAIXADO'],
      rejected: ['REJEITADO'],
      open: ['EM CARTEIRA', 'VENCIDO', 'A VENCER'],
    });
    expect(settings.paymentStatuses.pending).toEqual(['RECEBIDO']);
    expect(settings.paymentStatuses.settled).toEqual(['EFETIVADO']);
    expect(settings).toMatchObject({ maxVerificationAttempts: 2, idempotencyTtlSeconds: 30 * 24 * 3600 });
    expect(connectionOf(template)).toMatchObject({
      baseUrl: 'https://cobranca.bank.example',
      collectionTokenUrl: 'https://cobranca.bank.example/auth/openapi/token',
      paymentsTokenUrl: 'https://auth.bank.example/oauth/token',
      paymentsScope: 'pix.read',
      paymentQueryScopes: {
        pix: 'pix.read pix.query',
        boleto: 'payments.boleto.consultar',
        tributos: 'payments.tributos.consultar',
      },
      zuluTimestamps: 'bank-local',
      paymentsClientAuth: 'basic',
      paymentQueryPaths: { pix: '/v2/pix/{id}', boleto: '/v1/pagamentos/boleto/{id}' },
      callTimeoutMs: 3000,
      queriesPerSecond: 4.5,
      registrationCallsPerSecond: 1,
      listingPageSize: 100,
    });
  });

  it("waits the queue's receives before a notification's last verification: (maxVerificationAttempts - 1) visibility timeouts", () => {
    // The default: 3 attempts, a queue of 6 × the processor's 30 s timeout.
    expect(settingsOf(synth().template)).toMatchObject({
      maxVerificationAttempts: 3,
      verificationWindowSeconds: 2 * 180,
    });
    expect(
      settingsOf(synth({ processorTimeout: Duration.seconds(60), maxVerificationAttempts: 2 }).template),
    ).toMatchObject({ verificationWindowSeconds: 360 });
    expect(settingsOf(synth({ queueVisibilityTimeout: Duration.minutes(15) }).template)).toMatchObject({
      verificationWindowSeconds: 2 * 900,
    });
  });

  it('lowers the default verification attempts below a small maxReceiveCount', () => {
    const { template } = synth({ maxReceiveCount: 2 });
    expect(settingsOf(template)).toMatchObject({ maxVerificationAttempts: 1 });
  });
});

describe('validation', () => {
  const message = (props: TestProps, configure?: (stack: Stack) => TestProps): string => {
    try {
      synth(props, configure);
    } catch (error) {
      return (error as Error).message;
    }
    throw new Error('expected the props to be refused');
  };

  it('refuses a visibility timeout under 6 × the processor timeout, saying what the minimum is', () => {
    expect(message({ processorTimeout: Duration.seconds(60), queueVisibilityTimeout: Duration.minutes(5) })).toContain(
      'queueVisibilityTimeout: must be at least 6 × processorTimeout + maxBatchingWindow = 360 seconds (and at most 12 hours), got 300 seconds',
    );
  });

  it('reports every wrong processor and bank prop at once', () => {
    const text = message(
      {
        batchSize: 100,
        processorTimeout: Duration.seconds(5),
        processorMemorySize: 100,
        maxConcurrency: 1,
        maxVerificationAttempts: 5,
        maxReceiveCount: 5,
        idempotencyTtl: Duration.minutes(5),
        eventSource: 'aws.bank',
        oldestMessageAgeAlarmThreshold: Duration.seconds(10),
        lookQueryShare: 0.95,
        recoveredGracePeriod: Duration.minutes(20),
      },
      (stack) => ({
        bank: testBankConnection(stack, {
          baseUrl: 'http://api.bank.example',
          registrationBaseUrl: 'not a url',
          account: { cooperativa: '', posto: '02', conta: '12 34', documento: '1', codigoBeneficiario: '5' },
          pixQueryPath: '/v1/pix',
          boletoQueryPath: 'boletos',
          callTimeout: Duration.minutes(1),
          queriesPerSecond: 0,
          registrationCallsPerSecond: 5000,
          paymentQueryScopes: { tributos: [] },
          zuluTimestamps: 'Z' as ZuluTimestamps,
          listingPageSize: 0,
        }),
      }),
    );
    for (const prop of [
      'bank.baseUrl',
      'bank.registrationBaseUrl',
      'bank.account.cooperativa',
      'bank.account.conta',
      'bank.pixQueryPath',
      'bank.boletoQueryPath',
      'bank.callTimeout',
      'processorTimeout',
      'processorMemorySize',
      'maxBatchingWindow',
      'maxConcurrency',
      'maxVerificationAttempts',
      'idempotencyTtl',
      'eventSource',
      'oldestMessageAgeAlarmThreshold',
      'bank.queriesPerSecond',
      'bank.registrationCallsPerSecond',
      'bank.paymentQueryScopes.tributos',
      'bank.zuluTimestamps',
      'bank.listingPageSize',
      'lookQueryShare',
      'recoveredGracePeriod',
    ]) {
      expect(text).toContain(`  - ${prop}: `);
    }
    expect(text).toMatch(/^Invalid BankWebhookReceiver props at TestStack\/Webhooks \(22 problems\)/);
    expect(text).toContain('bank.zuluTimestamps: must be one of utc, bank-local (ZuluTimestamps), got "Z"');
    expect(text).toContain('bank.baseUrl: must be an https URL');
    expect(text).toContain('bank.pixQueryPath: must contain {id}');
    expect(text).toContain(
      'bank.queriesPerSecond: must be from 0.1 to 1000 calls per second (what the bank allows these credentials), got 0',
    );
    expect(text).toContain('maxVerificationAttempts: must be less than maxReceiveCount (5 is not less than 5)');
  });

  it('requires the bank connection', () => {
    expect(message({ bank: undefined })).toContain('  - bank: is required');
  });
});
