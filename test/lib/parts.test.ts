/**
 * Each public part of the library synthesizes alone, with its own defaults and its own check,
 * and BankWebhookReceiver checks every part's props in one error.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Duration } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import {
  PROCESSOR_SERVICE_NAME,
  PROCESSOR_SETTINGS_ENV,
  ProcessorDefaults,
  ProcessorMetric,
} from '../../contracts/processor';
import { METRICS_NAMESPACE, RECEIVER_SERVICE_NAME, ReceiverMetric } from '../../contracts/receiver';
import {
  RECONCILIATION_SERVICE_NAME,
  SWEEP_SETTINGS_ENV,
  SweepMetric,
  TRACK_PAYMENT_DETAIL_TYPE,
} from '../../contracts/reconciliation';
import {
  BankEventDetailType,
  BankStage,
  BankWebhookEndpoint,
  BankWebhookReceiver,
  PaymentWebhookRegistration,
  ReconciliationSweep,
  SettlementProcessor,
} from '../../lib';
import { synthIn, testBankConnection } from '../support/cdk';

/** A queue of the user's own, with a dead-letter queue, long enough a visibility timeout for the processor's defaults. */
function ownQueue(scope: Construct, visibilityTimeout = Duration.minutes(3)): sqs.Queue {
  const deadLetterQueue = new sqs.Queue(scope, 'OwnDlq', { enforceSSL: true });
  return new sqs.Queue(scope, 'OwnQueue', {
    enforceSSL: true,
    visibilityTimeout,
    deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: 4 },
  });
}

describe('BankWebhookEndpoint alone', () => {
  const { built: endpoint, template, stack } = synthIn((scope) => new BankWebhookEndpoint(scope, 'Endpoint'));

  it('is the API, the tokens, the receiver and the queues, and nothing of the processor', () => {
    template.resourceCountIs('AWS::ApiGateway::RestApi', 1);
    template.resourceCountIs('AWS::SecretsManager::Secret', 2);
    template.resourceCountIs('AWS::SQS::Queue', 2);
    template.resourceCountIs('AWS::DynamoDB::Table', 0);
    template.resourceCountIs('AWS::Events::EventBus', 0);
    template.resourceCountIs('AWS::Lambda::Function', 3); // the receiver, and the stack's provider (handler and framework)
    template.hasResourceProperties('AWS::SQS::Queue', {
      VisibilityTimeout: 180,
      RedrivePolicy: { maxReceiveCount: 5 },
    });
    expect(stack.resolve(endpoint.paymentsUrl)).toEqual(stack.resolve(`${endpoint.url}payments`));
  });

  it('gives metrics of the receiver, by route', () => {
    const metric = endpoint.metricUnauthorizedRequests('boleto');
    expect(metric).toBeInstanceOf(cloudwatch.Metric);
    expect(metric).toMatchObject({
      namespace: METRICS_NAMESPACE,
      metricName: ReceiverMetric.UNAUTHORIZED,
      dimensions: { service: RECEIVER_SERVICE_NAME, Route: 'boleto' },
      statistic: 'Sum',
    });
    expect(endpoint.metricNotificationsStored('payments', { period: Duration.minutes(1) }).period.toMinutes()).toBe(1);
  });

  it('checks its own props, naming them, in one error', () => {
    expect(() =>
      synthIn(
        (scope) =>
          new BankWebhookEndpoint(scope, 'Endpoint', {
            stageName: 'prod-1',
            maxReceiveCount: 0,
            queueVisibilityTimeout: Duration.hours(13),
          }),
      ),
    ).toThrow(
      /^Invalid BankWebhookEndpoint props at TestStack\/Endpoint \(3 problems\):\n {2}- maxReceiveCount: .*\n {2}- queueVisibilityTimeout: must be at most 12 hours \(seconds\), got 46800\n {2}- stageName: /,
    );
  });
});

describe("SettlementProcessor alone, on a queue of the user's own", () => {
  const {
    built: processor,
    template,
    stack,
  } = synthIn(
    (scope) => new SettlementProcessor(scope, 'Processor', { bank: testBankConnection(scope), queue: ownQueue(scope) }),
  );

  it("quarantines to the queue's own dead-letter queue and takes its maxReceiveCount", () => {
    template.resourceCountIs('AWS::DynamoDB::Table', 1);
    template.resourceCountIs('AWS::Events::EventBus', 1);
    template.resourceCountIs('AWS::ApiGateway::RestApi', 0);
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BatchSize: 10,
    });
    const fn = Object.values(
      template.findResources('AWS::Lambda::Function', {
        Properties: { Environment: { Variables: { [PROCESSOR_SETTINGS_ENV]: Match.anyValue() } } },
      }),
    );
    expect(fn).toHaveLength(1);
    const settings = JSON.stringify(
      stack.resolve(
        (fn[0].Properties as { Environment: { Variables: Record<string, unknown> } }).Environment.Variables[
          PROCESSOR_SETTINGS_ENV
        ],
      ),
    );
    expect(settings).toContain('"maxReceiveCount\\":4');
    expect(settings).toContain('"maxVerificationAttempts\\":3');
    expect(settings).toContain(stack.getLogicalId(processor.deadLetterQueue.node.defaultChild as sqs.CfnQueue));
  });

  it('gives metrics that are cloudwatch.Metric, as the function emits them', () => {
    expect(processor.metricNotificationsQuarantined()).toMatchObject({
      namespace: METRICS_NAMESPACE,
      metricName: ProcessorMetric.QUARANTINED,
      dimensions: { service: PROCESSOR_SERVICE_NAME, receiver: 'TestStack/Processor' },
    });
    expect(processor.metricVerifiedEventsPublished(BankEventDetailType.BOLETO_SETTLED).dimensions).toEqual({
      service: PROCESSOR_SERVICE_NAME,
      receiver: 'TestStack/Processor',
      DetailType: BankEventDetailType.BOLETO_SETTLED,
    });
    expect(processor.metricDuplicatesSuppressed()).toBeInstanceOf(cloudwatch.Metric);
  });

  it('refuses a queue it cannot quarantine from, or whose visibility timeout is too short, in one error', () => {
    const bare = () =>
      synthIn(
        (scope) =>
          new SettlementProcessor(scope, 'Processor', {
            bank: testBankConnection(scope),
            queue: new sqs.Queue(scope, 'Bare', { visibilityTimeout: Duration.seconds(60) }),
          }),
      );
    expect(bare).toThrow(
      /^Invalid SettlementProcessor props at TestStack\/Processor \(2 problems\):\n {2}- deadLetterQueue: is required when queue has no dead-letter queue of its own.*\n {2}- queue: has a visibility timeout of 60 seconds; an SQS event source needs at least 6 × processorTimeout \+ maxBatchingWindow = 180 seconds/,
    );
  });
});

describe('ReconciliationSweep alone, on a processor', () => {
  const { built: sweep, template } = synthIn((scope) => {
    const processor = new SettlementProcessor(scope, 'Processor', {
      bank: testBankConnection(scope),
      queue: ownQueue(scope),
    });
    return new ReconciliationSweep(scope, 'Sweep', {
      processor,
      interval: Duration.minutes(30),
      trackPaymentSources: ['acme.payables'],
    });
  });

  it("runs on its schedule against the processor's table and queue, and follows Track Payment events", () => {
    template.hasResourceProperties('AWS::Events::Rule', { ScheduleExpression: 'rate(30 minutes)' });
    template.hasResourceProperties('AWS::Events::Rule', {
      EventPattern: Match.objectLike({ 'detail-type': [TRACK_PAYMENT_DETAIL_TYPE] }),
    });
    template.resourcePropertiesCountIs(
      'AWS::Lambda::Function',
      { Environment: { Variables: { [SWEEP_SETTINGS_ENV]: Match.anyValue() } } },
      1,
    );
    expect(sweep.registrationDriftAlarm).toBeUndefined();
    expect(sweep.metric(SweepMetric.REGISTRATION_DRIFT)).toMatchObject({
      dimensions: { service: RECONCILIATION_SERVICE_NAME },
    });
  });

  it('refuses a processor whose records would not outlive the days it reads again', () => {
    expect(() =>
      synthIn((scope) => {
        const processor = new SettlementProcessor(scope, 'Processor', {
          bank: testBankConnection(scope),
          queue: ownQueue(scope),
          idempotencyTtl: Duration.days(20),
        });
        return new ReconciliationSweep(scope, 'Sweep', { processor, lookbackDays: 10 });
      }),
    ).toThrow(
      /^Invalid ReconciliationSweep props at TestStack\/Sweep \(1 problem\):\n {2}- idempotencyTtl: must be from 24 days/,
    );
  });
});

it('PaymentWebhookRegistration synthesizes alone', () => {
  const { template } = synthIn(
    (scope) =>
      new PaymentWebhookRegistration(scope, 'Registration', {
        bank: testBankConnection(scope),
        url: 'https://webhooks.example.com/payments',
        token: new secretsmanager.Secret(scope, 'Token'),
      }),
  );
  template.resourceCountIs('Custom::BankPaymentWebhookRegistration', 1);
});

describe('BankWebhookReceiver', () => {
  it("checks every part's props once, in one error naming the props as the user wrote them", () => {
    const message = (() => {
      try {
        synthIn(
          (scope) =>
            new BankWebhookReceiver(scope, 'Webhooks', {
              bank: testBankConnection(scope),
              stageName: 'prod-1', // the endpoint's
              processorTimeout: Duration.seconds(5), // the processor's
              maxReceiveCount: 0, // the endpoint's (its queue)
              reconciliation: { lookbackDays: 40 }, // the sweep's
            }),
        );
      } catch (error) {
        return (error as Error).message;
      }
      return '';
    })();
    expect(message.split('\n')).toEqual([
      'Invalid BankWebhookReceiver props at TestStack/Webhooks (4 problems):',
      expect.stringMatching(/^ {2}- maxReceiveCount: must be a whole number from 1 to 1000, got 0$/),
      expect.stringMatching(/^ {2}- stageName: /),
      expect.stringMatching(/^ {2}- processorTimeout: must be from 10 seconds/),
      expect.stringMatching(
        /^ {2}- reconciliation\.lookbackDays: must be a whole number of days from 0 to 30, got 40$/,
      ),
    ]);
  });

  it('composes the public parts, reachable from it', () => {
    const { built: receiver } = synthIn(
      (scope) =>
        new BankWebhookReceiver(scope, 'Webhooks', { bank: testBankConnection(scope), stage: BankStage.PRODUCTION }),
    );
    expect(receiver.endpoint).toBeInstanceOf(BankWebhookEndpoint);
    expect(receiver.processor).toBeInstanceOf(SettlementProcessor);
    expect(receiver.reconciliation).toBeInstanceOf(ReconciliationSweep);
    expect(receiver.processor.queue).toBe(receiver.endpoint.queue);
  });
});

it('documents the status and movement defaults the processor applies (one source: ProcessorDefaults)', () => {
  const source = readFileSync(join(__dirname, '../../lib/processor/status-mappings.ts'), 'utf8');
  const documented: Record<string, Record<string, unknown>> = {};
  for (const [, name, body] of source.matchAll(/export interface (\w+)MappingProps \{([\s\S]*?)\n\}/g)) {
    documented[name] = Object.fromEntries(
      [...body.matchAll(/@default (\[[^\]]*\]) \*\/\n {2}readonly (\w+)\?/g)].map(([, list, field]) => [
        field,
        JSON.parse(list.replace(/'/g, '"')),
      ]),
    );
  }
  expect(documented).toEqual({
    BoletoStatus: ProcessorDefaults.boletoStatuses,
    BoletoMovement: ProcessorDefaults.boletoMovements,
    PaymentStatus: ProcessorDefaults.paymentStatuses,
  });
});
