import { Duration } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as sns from 'aws-cdk-lib/aws-sns';
import { BankStage, BankWebhookReceiver, BoletoContractStatus } from '../../lib';
import { readFileSync } from 'node:fs';
import {
  CONFIGURATION_DRIFT_RUNBOOK,
  CONFIGURATION_DRIFT_TYPES,
  ConfigurationWatchDefaults,
  SWEEP_SETTINGS_ENV,
  SweepMetric,
  type SweepSettings,
  TRACK_PAYMENT_DETAIL_TYPE,
} from '../../contracts/reconciliation';
import { DRIFT_READ_ACTIONS } from '../../lib/reconciliation/configuration-watch';
import { FIXTURE, type HandlerPermissions } from '../../tools/cfn-handler-permissions';
import { contactDigest } from '../../contracts/registration';
import { synthReceiver, testBankConnection, testStack } from '../support/cdk';

const synth = synthReceiver;

const sweepFunctions = (template: Template) =>
  template.findResources('AWS::Lambda::Function', {
    Properties: { Environment: { Variables: { [SWEEP_SETTINGS_ENV]: Match.anyValue() } } },
  });

/** The sweep's settings, with the deploy-time values (table name, queue URL) as placeholders. */
function sweepSettings(template: Template): SweepSettings {
  const [fn] = Object.values(sweepFunctions(template));
  const raw = (fn.Properties as { Environment: { Variables: Record<string, unknown> } }).Environment.Variables[
    SWEEP_SETTINGS_ENV
  ] as { 'Fn::Join': [string, unknown[]] };
  return JSON.parse(
    raw['Fn::Join'][1].map((part) => (typeof part === 'string' ? part : 'token')).join(''),
  ) as SweepSettings;
}

describe('by default', () => {
  const { template, receiver } = synth();

  it('sweeps every 15 minutes, today and the last 3 days, and pending payments for 7 days', () => {
    expect(Object.keys(sweepFunctions(template))).toHaveLength(1);
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(15 minutes)',
      Targets: [Match.objectLike({ RetryPolicy: { MaximumRetryAttempts: 0, MaximumEventAgeInSeconds: 300 } })],
    });
    expect(sweepSettings(template)).toMatchObject({ lookbackDays: 3, paymentMaxAgeDays: 7 });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: { [SWEEP_SETTINGS_ENV]: Match.anyValue() } },
      Timeout: 300,
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
    });
    expect(receiver.reconciliation!.sweepFunction).toBeDefined();
  });

  it('keeps pending payments findable through a sparse index of the table, which the sweep may only query', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      GlobalSecondaryIndexes: [
        {
          IndexName: 'pending-payments',
          KeySchema: [
            { AttributeName: 'pending', KeyType: 'HASH' },
            { AttributeName: 'pendingSince', KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'KEYS_ONLY' },
        },
      ],
    });
    const policies = template.findResources('AWS::IAM::Policy', {
      Properties: { Roles: [{ Ref: Match.stringLikeRegexp('WebhooksReconciliationRole') }] },
    });
    const statements = Object.values(policies).flatMap(
      (p) =>
        (p.Properties as { PolicyDocument: { Statement: Array<{ Action: unknown; Resource: unknown }> } })
          .PolicyDocument.Statement,
    );
    const actions = statements.flatMap((s) => [s.Action].flat());
    expect(actions).toEqual(
      expect.arrayContaining([
        'dynamodb:GetItem',
        'dynamodb:PutItem',
        'dynamodb:UpdateItem',
        'dynamodb:Query',
        'sqs:SendMessage',
      ]),
    );
    expect(actions).not.toContain('dynamodb:Scan');
    expect(JSON.stringify(statements.find((s) => s.Action === 'dynamodb:Query')?.Resource)).toContain(
      '/index/pending-payments',
    );
    // Look requests go to the look queue only: the sweep cannot put anything ahead of a notification.
    expect(statements.find((s) => s.Action === 'sqs:SendMessage')?.Resource).toEqual({
      'Fn::GetAtt': [expect.stringMatching(/^WebhooksProcessorLookQueue/), 'Arn'],
    });
    const [sweep] = Object.values(sweepFunctions(template));
    expect(JSON.stringify(sweep.Properties.Environment.Variables[SWEEP_SETTINGS_ENV])).toMatch(
      /"queueUrl\\":\\"","?,?\{"Ref":"WebhooksProcessorLookQueue/,
    );
  });

  it('reads no Track Payment event unless sources are named: the schedule is its only rule', () => {
    expect(receiver.reconciliation!.trackPaymentRule).toBeUndefined();
    expect(Object.keys(template.findResources('AWS::Events::Rule'))).toEqual([
      expect.stringMatching(/^WebhooksReconciliationSchedule/),
    ]);
  });

  it("sends at most 1000 pending payments' looks a sweep", () => {
    expect(sweepSettings(template)).toMatchObject({ maxPaymentLooksPerSweep: 1000 });
  });

  it('alarms when a sweep recovers a change the bank never notified, and when two sweeps in a row fail', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'CdkBankWebhooks',
      MetricName: 'NotificationsRecovered',
      Dimensions: [
        { Name: 'receiver', Value: 'TestStack/Webhooks' },
        { Name: 'service', Value: 'bank-webhook-processor' },
      ],
      Statistic: 'Sum',
      Period: 900,
      Threshold: 1,
      EvaluationPeriods: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/Lambda',
      MetricName: 'Errors',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: Match.stringLikeRegexp('WebhooksReconciliationFunction') } }],
      EvaluationPeriods: 2,
      Period: 900,
    });
  });
});

it('takes its interval, look-back and payment age, and sends its alarms to the topic', () => {
  const stack = testStack('TestStack');
  const topic = sns.Topic.fromTopicArn(stack, 'Topic', 'arn:aws:sns:sa-east-1:111111111111:alarms');
  new BankWebhookReceiver(stack, 'Webhooks', {
    bank: testBankConnection(stack),
    alarmTopic: topic,
    stage: BankStage.PRODUCTION,
    reconciliation: { interval: Duration.hours(1), lookbackDays: 5, paymentMaxAge: Duration.days(20) },
  });
  const template = Template.fromStack(stack);
  template.hasResourceProperties('AWS::Events::Rule', { ScheduleExpression: 'rate(1 hour)' });
  expect(sweepSettings(template)).toMatchObject({ lookbackDays: 5, paymentMaxAgeDays: 20 });
  template.hasResourceProperties('AWS::CloudWatch::Alarm', {
    MetricName: 'NotificationsRecovered',
    Period: 3600,
    AlarmActions: ['arn:aws:sns:sa-east-1:111111111111:alarms'],
  });
});

it('can be turned off: no function, schedule, rule or alarm of its own', () => {
  const { template, receiver } = synth({ reconciliation: { enabled: false } });
  expect(sweepFunctions(template)).toEqual({});
  expect(template.findResources('AWS::Events::Rule')).toEqual({});
  expect(receiver.reconciliation).toBeUndefined();
});

it('refuses an interval, look-back or payment age it cannot keep, and a record lifetime shorter than they need, naming each', () => {
  expect(() =>
    synth({ reconciliation: { interval: Duration.minutes(5), lookbackDays: 31, paymentMaxAge: Duration.hours(36) } }),
  ).toThrow(
    [
      'Invalid BankWebhookReceiver props at TestStack/Webhooks (3 problems):',
      '  - reconciliation.interval: must be whole minutes from 10 minutes (longer than one sweep may run) to 24 hours (seconds), got 300',
      '  - reconciliation.lookbackDays: must be a whole number of days from 0 to 30, got 31',
      '  - reconciliation.paymentMaxAge: must be whole days from 1 to 60 (seconds), got 129600',
    ].join('\n'),
  );
  expect(() => synth({ idempotencyTtl: Duration.days(20), reconciliation: { lookbackDays: 10 } })).toThrow(
    "idempotencyTtl: must be from 24 days (the queues' 14-day retention plus the reconciliation's 10-day look-back, and more than its 7-day payment age",
  );
  expect(() =>
    synth({ idempotencyTtl: Duration.days(30), reconciliation: { paymentMaxAge: Duration.days(45) } }),
  ).toThrow('idempotencyTtl: must be from 46 days');
  expect(() =>
    synth({ idempotencyTtl: Duration.days(46), reconciliation: { paymentMaxAge: Duration.days(45) } }),
  ).not.toThrow();
});

it("watches each registration against what the stack deployed (its settings) and the deploy's record: reads those records and its own stack's status, and a drift, a contest or an untrusted record raises an alarm", () => {
  const { template } = synth({
    paymentRegistration: {},
    boletoContracts: [{ nomeResponsavel: 'Finance', contratoStatus: BoletoContractStatus.INATIVO }],
    reconciliation: { repairRegistrations: true },
  });
  const settings = sweepSettings(template);
  const records = Object.values({
    ...template.findResources('Custom::BankPaymentWebhookRegistration'),
    ...template.findResources('Custom::BankBoletoWebhookContract'),
  })
    .map((r) => r.Properties.AppliedRecord as string)
    .sort();
  expect(records).toEqual([
    expect.stringMatching(/^\/cdk-bank-webhooks\/applied\/TestStack\/.*Boleto/),
    expect.stringMatching(/^\/cdk-bank-webhooks\/applied\/TestStack\/.*Payment/),
  ]);
  // What decides who receives what travels in the settings (URL, token secret, statuses), defaults and contact fields left out; the deploy's token placeholders stand for its ARNs and URLs.
  expect(settings.watch).toEqual({
    repair: true,
    stackId: 'token',
    payment: {
      label: 'payments',
      appliedRecord: records[1],
      deployed: { url: 'https://token.execute-api.sa-east-1.token/token/payments', tokenSecretArn: 'token' },
    },
    contracts: [
      {
        label: 'boleto 0101/02/54321',
        appliedRecord: records[0],
        deployed: {
          cooperativa: '0101',
          posto: '02',
          codBeneficiario: '54321',
          url: 'https://token.execute-api.sa-east-1.token/token/boleto',
          contratoStatus: 'INATIVO',
          tokenSecretArn: 'token',
          contact: contactDigest({ nomeResponsavel: 'Finance' }),
        },
      },
    ],
  });
  // The contact fields travel as a digest only (the repair takes them from a record that matches it).
  expect(contactDigest({ nomeResponsavel: 'Finance' })).toMatch(/^[0-9a-f]{16}$/);
  expect(JSON.stringify(settings.watch)).not.toContain('Finance');
  // The stack's own id, from the pseudo-parameter.
  expect(JSON.stringify(Object.values(sweepFunctions(template))[0])).toContain('{"Ref":"AWS::StackId"}');
  const [schedule] = Object.values(
    template.findResources('AWS::Events::Rule', { Properties: { ScheduleExpression: Match.anyValue() } }),
  );
  const registrations = Object.keys(template.findResources('Custom::BankPaymentWebhookRegistration')).concat(
    Object.keys(template.findResources('Custom::BankBoletoWebhookContract')),
  );
  expect(registrations).toHaveLength(2);
  for (const id of registrations) expect(schedule.DependsOn).toContain(id);
  template.hasResourceProperties('AWS::IAM::Policy', {
    Roles: [{ Ref: Match.stringLikeRegexp('WebhooksReconciliationRole') }],
    PolicyDocument: {
      Statement: Match.arrayWith([
        Match.objectLike({
          Action: 'ssm:GetParameter',
          Resource: records.map(() => Match.objectLike({ 'Fn::Join': Match.anyValue() })),
        }),
        Match.objectLike({
          Action: Match.arrayWith(['cloudformation:DescribeStacks']),
          Resource: { Ref: 'AWS::StackId' },
        }),
      ]),
    },
  });
  template.hasResourceProperties('AWS::CloudWatch::Alarm', {
    MetricName: 'RegistrationDrift',
    Dimensions: [
      { Name: 'receiver', Value: 'TestStack/Webhooks' },
      { Name: 'service', Value: 'bank-webhook-reconciliation' },
    ],
    Threshold: 1,
  });
  template.hasResourceProperties('AWS::CloudWatch::Alarm', {
    MetricName: 'RegistrationContested',
    Dimensions: [
      { Name: 'receiver', Value: 'TestStack/Webhooks' },
      { Name: 'service', Value: 'bank-webhook-reconciliation' },
    ],
    Threshold: 1,
  });
  template.hasResourceProperties('AWS::CloudWatch::Alarm', {
    MetricName: 'RegistrationRecordUntrusted',
    Dimensions: [
      { Name: 'receiver', Value: 'TestStack/Webhooks' },
      { Name: 'service', Value: 'bank-webhook-reconciliation' },
    ],
    Threshold: 1,
    AlarmDescription: Match.stringLikeRegexp(
      'deploy record .* is missing, unreadable or not what the stack deployed.*Runbook: cdk-bank-webhooks/docs/operations.md#registrationrecordalarm',
    ),
  });
});

it('has no registration watch, no registration drift alarm and no token access without registrations', () => {
  const { template, receiver } = synth();
  expect(sweepSettings(template).watch).toBeUndefined();
  expect(receiver.reconciliation?.registrationDriftAlarm).toBeUndefined();
  const policies = JSON.stringify(
    template.findResources('AWS::IAM::Policy', {
      Properties: { Roles: [{ Ref: Match.stringLikeRegexp('WebhooksReconciliationRole') }] },
    }),
  );
  expect(policies).not.toContain('ssm:GetParameter');
  expect(policies).not.toContain('Token');
});

describe("the configuration watch (drift detection of the stack's own resources)", () => {
  const { template, receiver } = synth();
  const statements = () =>
    Object.values(
      template.findResources('AWS::IAM::Policy', {
        Properties: { Roles: [{ Ref: Match.stringLikeRegexp('WebhooksReconciliationRole') }] },
      }),
    ).flatMap((p) => p.Properties.PolicyDocument.Statement as Array<{ Action: string | string[]; Resource: unknown }>);

  it('runs from every sweep, hourly, on its own stack', () => {
    // The stack id is a deploy-time value (AWS::StackId), written here as "token".
    expect(sweepSettings(template).configuration).toEqual({
      stackId: 'token',
      intervalMinutes: ConfigurationWatchDefaults.intervalMinutes,
    });
    const [fn] = Object.values(sweepFunctions(template));
    expect(JSON.stringify(fn.Properties.Environment.Variables[SWEEP_SETTINGS_ENV])).toContain('{"Ref":"AWS::StackId"}');
  });

  it('may detect drift on its own stack only, and read what a detection compares, never write it, pass a role or decrypt', () => {
    const drift = statements().find((s) =>
      ([] as string[]).concat(s.Action).includes('cloudformation:DetectStackDrift'),
    );
    expect(drift).toEqual(
      expect.objectContaining({
        Action: [
          'cloudformation:DescribeStacks',
          'cloudformation:DetectStackDrift',
          'cloudformation:DetectStackResourceDrift',
          'cloudformation:DescribeStackResourceDrifts',
        ],
        Resource: { Ref: 'AWS::StackId' },
      }),
    );
    const reads = statements()
      .flatMap((s) => ([] as string[]).concat(s.Action))
      .filter((a) => /^(events|iam|lambda|s3|sqs):/.test(a) && a !== 'sqs:SendMessage');
    expect(reads.sort()).toEqual([...DRIFT_READ_ACTIONS].sort());
    for (const action of reads) expect(action).toMatch(/:(Get|List|Describe)/);
  });

  it("reads exactly the drift-checked types' read handler permissions in CloudFormation's schemas, less PassRole and Decrypt", () => {
    const schemas = (JSON.parse(readFileSync(FIXTURE, 'utf8')) as HandlerPermissions).types;
    const read = new Set(CONFIGURATION_DRIFT_TYPES.flatMap((type) => schemas[type].read));
    expect([...read].filter((a) => a !== 'iam:PassRole' && a !== 'kms:Decrypt').sort()).toEqual(
      [...DRIFT_READ_ACTIONS].sort(),
    );
  });

  it('alarms on any drift, deletion or unchecked resource, and on a watch that could not look, naming its runbook', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: SweepMetric.CONFIGURATION_DRIFT,
      Statistic: 'Maximum',
      Threshold: 1,
      AlarmDescription: Match.stringLikeRegexp(
        `redeploy the stack.*Runbook: cdk-bank-webhooks/docs/operations.md#${CONFIGURATION_DRIFT_RUNBOOK}`,
      ),
    });
    expect(receiver.reconciliation?.configurationDriftAlarm).toBeDefined();
  });
});

describe('Track Payment sources', () => {
  it("turns a Track Payment event naming this account, from the named sources only, into a message of the processor's look queue, or of its DLQ when the queue refuses it", () => {
    const { template, receiver } = synth({
      reconciliation: { trackPaymentSources: ['acme.payables', 'acme/treasury'], maxPaymentLooksPerSweep: 200 },
    });
    expect(receiver.reconciliation!.trackPaymentRule).toBeDefined();
    template.hasResourceProperties('AWS::Events::Rule', {
      EventPattern: {
        'detail-type': [TRACK_PAYMENT_DETAIL_TYPE],
        source: ['acme.payables', 'acme/treasury'],
        detail: { account: { cooperativa: ['0101'], conta: ['123456'] } },
      },
      Targets: [
        Match.objectLike({
          Arn: { 'Fn::GetAtt': [Match.stringLikeRegexp('WebhooksProcessorLookQueue'), 'Arn'] },
          DeadLetterConfig: {
            Arn: { 'Fn::GetAtt': [Match.stringLikeRegexp('WebhooksProcessorLookDeadLetterQueue'), 'Arn'] },
          },
          RetryPolicy: { MaximumRetryAttempts: 185, MaximumEventAgeInSeconds: 86400 },
        }),
      ],
    });
    // EventBridge may send to the DLQ, for this rule only.
    template.hasResourceProperties('AWS::SQS::QueuePolicy', {
      Queues: [{ Ref: Match.stringLikeRegexp('WebhooksProcessorLookDeadLetterQueue') }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Principal: { Service: 'events.amazonaws.com' },
            Action: 'sqs:SendMessage',
            Condition: { ArnEquals: { 'aws:SourceArn': Match.anyValue() } },
          }),
        ]),
      },
    });
    expect(sweepSettings(template)).toMatchObject({ maxPaymentLooksPerSweep: 200 });
  });

  it("refuses an empty list, the receiver's own source, a source EventBridge would not take, a repeat and a cap out of range, in one error", () => {
    expect(() =>
      synth({
        eventSource: 'acme.bank',
        reconciliation: {
          trackPaymentSources: ['acme.bank', 'bad source', 'ok.one', 'ok.one'],
          maxPaymentLooksPerSweep: 0,
        },
      }),
    ).toThrow(
      /\(4 problems\):\n {2}- reconciliation\.maxPaymentLooksPerSweep: must be a whole number from 1 to 10000.*\n {2}- reconciliation\.trackPaymentSources\[0\]: is the receiver's own eventSource "acme\.bank".*\n {2}- reconciliation\.trackPaymentSources\[1\]: must be an event source of 1 to 256 letters.*got "bad source"\n {2}- reconciliation\.trackPaymentSources\[3\]: names "ok\.one" twice/,
    );
    expect(() => synth({ reconciliation: { trackPaymentSources: [] } })).toThrow(
      /reconciliation\.trackPaymentSources: must name at least one source/,
    );
    expect(() => synth({ reconciliation: { trackPaymentSources: ['cdk-bank-webhooks'] } })).toThrow(
      /is the receiver's own eventSource "cdk-bank-webhooks"/,
    );
  });

  it("denies a source's Track Payment events on the bus to all but its named producers, and warns of a source with none", () => {
    const { stack, template } = synth({}, (s) => ({
      reconciliation: {
        trackPaymentSources: ['acme.payables', 'acme.treasury'],
        trackPaymentProducers: [
          {
            source: 'acme.payables',
            roles: [iam.Role.fromRoleArn(s, 'Payables', 'arn:aws:iam::111111111111:role/payables')],
          },
        ],
      },
    }));
    const policies = Object.values(template.findResources('AWS::Events::EventBusPolicy')).map(
      (r) => r.Properties as { StatementId: string; Statement: Record<string, unknown> },
    );
    const trackPayment = policies.filter((p) => p.StatementId.startsWith('OnlyNamedTrackPayment-'));
    expect(trackPayment).toHaveLength(1);
    expect(trackPayment[0].Statement).toMatchObject({
      Effect: 'Deny',
      Principal: { AWS: '*' },
      Action: 'events:PutEvents',
      Condition: {
        'ForAnyValue:StringEquals': {
          'events:source': ['acme.payables'],
          'events:detail-type': [TRACK_PAYMENT_DETAIL_TYPE],
        },
        ArnNotEquals: { 'aws:PrincipalArn': ['arn:aws:iam::111111111111:role/payables'] },
      },
    });
    const warnings = Annotations.fromStack(stack).findWarning(
      '*',
      Match.stringLikeRegexp('cdk-bank-webhooks:trackPaymentProducer'),
    );
    expect(warnings.map((w) => w.entry.data)).toEqual([
      expect.stringContaining('No producer is named for the Track Payment source "acme.treasury"'),
    ]);
  });

  it('refuses producers of a source it does not follow, a source named twice, and one without roles', () => {
    expect(() =>
      synth({}, (s) => {
        const role = iam.Role.fromRoleArn(s, 'R', 'arn:aws:iam::111111111111:role/payables');
        return {
          reconciliation: {
            trackPaymentSources: ['acme.payables'],
            trackPaymentProducers: [
              { source: 'acme.other', roles: [role] },
              { source: 'acme.payables', roles: [] },
              { source: 'acme.payables', roles: [role] },
            ],
          },
        };
      }),
    ).toThrow(
      /trackPaymentProducers\[0\]\.source: is "acme\.other", which is not one of trackPaymentSources \("acme\.payables"\).*\n {2}- reconciliation\.trackPaymentProducers\[1\]\.roles: must name at least one role\n {2}- reconciliation\.trackPaymentProducers\[2\]\.source: names "acme\.payables" again/s,
    );
  });
});
