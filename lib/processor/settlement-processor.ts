import { Duration, RemovalPolicy, Stack, Token } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as lambdaEventSources from 'aws-cdk-lib/aws-lambda-event-sources';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { BankAccount } from '../../contracts/bank-connection';
import {
  IdempotencyTable, PROCESSOR_SERVICE_NAME, PROCESSOR_SETTINGS_ENV, ProcessorDefaults, ProcessorMetric,
} from '../../contracts/processor';
import { PendingPaymentIndex } from '../../contracts/reconciliation';
import { type BankConnectionProps, bankConnectionEnvironment, validateBankConnection } from '../core/bank-connection';
import { notifyOn, thresholdAlarm, warnWithoutAlarmTopic } from '../core/alarms';
import { acknowledgeInherent } from '../core/compliance';
import { checkFunctionNetwork, functionNetwork, type FunctionNetworkProps } from '../core/function-network';
import { libraryMetric } from '../core/metrics';
import { isWholeNumberIn, type PropsValidation, validateProps } from '../core/props-validation';
import { checkIdempotencyTtl, minimumVisibilitySeconds } from '../core/timing';
import { ProcessorFunction } from './processor-function';
import { processorSettings } from './processor-settings';
import type { BoletoMovementMappingProps, BoletoStatusMappingProps, PaymentStatusMappingProps } from './status-mappings';

/** How a SettlementProcessor verifies and publishes (BankWebhookReceiver takes the same props). */
export interface SettlementProcessorOptions {
  /**
   * Event bus the verified events are published to.
   * @default - a bus is created for them (exposed as `eventBus`), with an archive
   */
  readonly eventBus?: events.IEventBus;

  /**
   * `source` of the published events.
   * @default 'cdk-bank-webhooks'
   */
  readonly eventSource?: string;

  /**
   * Timeout of the processor function. Bank calls and their retries stay inside it.
   * @default Duration.seconds(30)
   */
  readonly processorTimeout?: Duration;

  /**
   * Memory of the processor function, in MiB.
   * @default 512
   */
  readonly processorMemorySize?: number;

  /**
   * Messages per invocation (1 to 10000; above 10 needs maxBatchingWindow).
   * @default 10
   */
  readonly batchSize?: number;

  /**
   * How long the event source gathers messages before invoking the function.
   * @default - no batching window
   */
  readonly maxBatchingWindow?: Duration;

  /**
   * Most concurrent invocations the queue drives (2 to 1000): a cap on the load put on the bank's
   * rate-limited query API.
   * @default - no limit besides the account's
   */
  readonly maxConcurrency?: number;

  /**
   * Receives of a notification during which a claim the bank does not show yet is looked at
   * again (query lag); after the last, a Notification Not Confirmed event records it. Less than
   * maxReceiveCount.
   * @default - 3, or maxReceiveCount − 1 when that is smaller
   */
  readonly maxVerificationAttempts?: number;

  /**
   * How long a boleto's or payment's record (its last published state) is kept after its last
   * change: a change is published once while its record lives. At least the queues' 14-day
   * retention (plus the reconciliation's look-back, when a sweep reads this processor's table).
   * @default Duration.days(30)
   */
  readonly idempotencyTtl?: Duration;

  /**
   * Retention of the archive of the bus the construct creates. `Duration.days(0)` keeps events
   * forever. Not used with `eventBus`.
   * @default Duration.days(30)
   */
  readonly eventArchiveRetention?: Duration;

  /**
   * Which boleto query `situacao` values count as settled, written off, rejected or open.
   * @default - see BoletoStatusMappingProps
   */
  readonly boletoStatuses?: BoletoStatusMappingProps;

  /**
   * Which boleto event `movimento` values are settlements, reversals, write-offs or rejections.
   * @default - see BoletoMovementMappingProps
   */
  readonly boletoMovements?: BoletoMovementMappingProps;

  /**
   * Which payment `status` values count as settled, pending, rejected, cancelled or reversed.
   * @default - see PaymentStatusMappingProps
   */
  readonly paymentStatuses?: PaymentStatusMappingProps;

  /**
   * Age of the oldest queued message that raises the oldest-message alarm.
   * @default Duration.minutes(30)
   */
  readonly oldestMessageAgeAlarmThreshold?: Duration;
}

/** Properties of {@link SettlementProcessor}. */
export interface SettlementProcessorProps extends SettlementProcessorOptions, FunctionNetworkProps {
  /** How to reach the bank: every notification is verified with its query API before anything is published. */
  readonly bank: BankConnectionProps;

  /**
   * The queue to consume: messages in the receiver's stored-notification envelope (what
   * `BankWebhookEndpoint` stores), look requests, and Track Payment events.
   */
  readonly queue: sqs.IQueue;

  /**
   * Where a message that can never be verified is quarantined with its reason, and where the
   * queue's redrive policy moves failed messages.
   * @default - the queue's own dead-letter queue, when `queue` is an `sqs.Queue` made with one
   */
  readonly deadLetterQueue?: sqs.IQueue;

  /**
   * The queue's `maxReceiveCount`: on a message's last receive, a failure quarantines it with its reason.
   * @default - the queue's own, when `queue` is an `sqs.Queue` made with a dead-letter queue; else 5
   */
  readonly maxReceiveCount?: number;

  /**
   * Retention of the function's log group.
   * @default logs.RetentionDays.ONE_YEAR
   */
  readonly logRetention?: logs.RetentionDays;

  /**
   * KMS key of the function's log group; its policy must let CloudWatch Logs use it.
   * @default - CloudWatch Logs' own encryption
   */
  readonly logEncryptionKey?: kms.IKey;

  /**
   * X-Ray active tracing of the function.
   * @default false
   */
  readonly tracingEnabled?: boolean;

  /**
   * SNS topic notified when an alarm goes off and when it clears.
   * @default - alarms without actions
   */
  readonly alarmTopic?: sns.ITopic;
}

const QUEUE_RETENTION = Duration.seconds(ProcessorDefaults.queueRetentionSeconds);

/**
 * Checks SettlementProcessorProps. The wiring (queue, dead-letter queue) and the network are
 * checked when given: a facade checks the rest before it makes the queue.
 */
export function checkSettlementProcessor(v: PropsValidation, props: Partial<SettlementProcessorProps>): void {
  validateBankConnection(v, props.bank, 'bank');
  if (props.processorTimeout) {
    v.checkNumber(props.processorTimeout.toSeconds(), 'processorTimeout', isWholeNumberIn(10, 900), 'must be from 10 seconds to 15 minutes (seconds)');
  }
  v.checkNumber(props.processorMemorySize, 'processorMemorySize', isWholeNumberIn(128, 10240), 'must be a whole number of MiB from 128 to 10240');
  v.checkNumber(props.batchSize, 'batchSize', isWholeNumberIn(1, 10000), 'must be a whole number from 1 to 10000');
  if (props.maxBatchingWindow) {
    v.checkNumber(props.maxBatchingWindow.toSeconds(), 'maxBatchingWindow', isWholeNumberIn(0, 300), 'must be from 0 to 300 seconds');
  }
  if (props.batchSize !== undefined && !Token.isUnresolved(props.batchSize) && props.batchSize > 10) {
    v.check(!!props.maxBatchingWindow && props.maxBatchingWindow.toSeconds() > 0, 'maxBatchingWindow', `must be set (above 0) when batchSize is above 10 (got batchSize ${props.batchSize}); SQS event sources require it`);
  }
  v.checkNumber(props.maxConcurrency, 'maxConcurrency', isWholeNumberIn(2, 1000), 'must be a whole number from 2 to 1000');
  v.checkNumber(props.maxVerificationAttempts, 'maxVerificationAttempts', isWholeNumberIn(1, 100), 'must be a whole number from 1 to 100');
  const attempts = props.maxVerificationAttempts;
  const receives = props.maxReceiveCount ?? queueRedrive(props.queue)?.maxReceiveCount ?? ProcessorDefaults.maxReceiveCount;
  if (attempts !== undefined && !Token.isUnresolved(attempts) && !Token.isUnresolved(receives) && receives >= 1) {
    v.check(attempts < receives, 'maxVerificationAttempts', `must be less than maxReceiveCount (${attempts} is not less than ${receives}), or a notification the bank does not confirm goes to the DLQ before its last verification`);
  }
  checkIdempotencyTtl(v, props.idempotencyTtl, 0, 0);
  if (props.eventArchiveRetention) {
    v.checkNumber(props.eventArchiveRetention.toDays(), 'eventArchiveRetention', isWholeNumberIn(0, 3650), 'must be a whole number of days from 0 (forever) to 3650');
    v.check(!props.eventBus, 'eventArchiveRetention', 'applies only to the bus the construct creates: archive the eventBus you pass yourself, or remove eventArchiveRetention');
  }
  if (props.oldestMessageAgeAlarmThreshold) {
    v.checkNumber(props.oldestMessageAgeAlarmThreshold.toSeconds(), 'oldestMessageAgeAlarmThreshold', isWholeNumberIn(60, QUEUE_RETENTION.toSeconds()), 'must be from 1 minute to 14 days (seconds)');
  }
  if (props.eventSource !== undefined && !Token.isUnresolved(props.eventSource)) {
    v.check(/^[A-Za-z0-9._\-/]{1,256}$/.test(props.eventSource) && !props.eventSource.startsWith('aws.'), 'eventSource', `must be 1 to 256 letters, digits, dots, hyphens, underscores or slashes, not starting with "aws.", got "${props.eventSource}"`);
  }
  if (props.queue) {
    v.check(!!(props.deadLetterQueue ?? queueRedrive(props.queue)), 'deadLetterQueue', 'is required when queue has no dead-letter queue of its own (an sqs.Queue made with deadLetterQueue): quarantined messages go there');
    const visibility = visibilityTimeoutSeconds(props.queue);
    const minimum = minimumVisibilitySeconds(props.processorTimeout, props.maxBatchingWindow);
    if (visibility !== undefined) {
      v.check(visibility >= minimum, 'queue', `has a visibility timeout of ${visibility} seconds; an SQS event source needs at least 6 × processorTimeout + maxBatchingWindow = ${minimum} seconds: raise it, or lower processorTimeout`);
    }
  }
  checkFunctionNetwork(v, props);
}

function queueRedrive(queue: sqs.IQueue | undefined): sqs.DeadLetterQueue | undefined {
  return queue instanceof sqs.Queue ? queue.deadLetterQueue : undefined;
}

/** The visibility timeout of a queue made in this app, when known at synth (SQS's default is 30 s). */
function visibilityTimeoutSeconds(queue: sqs.IQueue): number | undefined {
  if (!(queue instanceof sqs.Queue)) return undefined;
  const value = (queue.node.defaultChild as sqs.CfnQueue).visibilityTimeout;
  return value === undefined ? 30 : Token.isUnresolved(value) ? undefined : value;
}

/**
 * The settlement processor: a function that consumes a queue of stored notifications, verifies
 * every one with the bank's query API and publishes each verified change once to EventBridge; its
 * table of subject records (idempotency, TTL, point-in-time recovery), the bus and its archive,
 * and the alarms. `BankWebhookReceiver` composes it behind `BankWebhookEndpoint`; it also works
 * behind any front door that stores the same envelope.
 */
export class SettlementProcessor extends Construct {
  /** The function that verifies and publishes. */
  public readonly processorFunction: lambda.Function;
  /** One record per boleto and per payment: its last published state and sequence number. */
  public readonly idempotencyTable: dynamodb.Table;
  /** The bus verified events are published to. */
  public readonly eventBus: events.IEventBus;
  /** The archive of the bus the construct created (none on a bus you pass). */
  public readonly eventArchive?: events.Archive;
  /** `source` of the published events. */
  public readonly eventSource: string;
  /** The queue consumed. */
  public readonly queue: sqs.IQueue;
  /** Where quarantined and failed messages go. */
  public readonly deadLetterQueue: sqs.IQueue;
  /** How long a subject's record is kept after its last change. */
  public readonly idempotencyTtl: Duration;
  /** How the processor reaches the bank (a reconciliation sweep of this processor uses it too). */
  public readonly bank: BankConnectionProps;
  /** The account the processor verifies and publishes for (`bank.account`). */
  public readonly account: BankAccount;
  /** Alarm: messages in the dead-letter queue. */
  public readonly deadLetterQueueAlarm: cloudwatch.Alarm;
  /** Alarm: the oldest queued message is older than the threshold. */
  public readonly oldestMessageAlarm: cloudwatch.Alarm;
  /** Alarm: the function failed whole invocations. */
  public readonly processorErrorsAlarm: cloudwatch.Alarm;

  constructor(scope: Construct, id: string, props: SettlementProcessorProps) {
    super(scope, id);
    validateProps('SettlementProcessor', props, checkSettlementProcessor);
    const redrive = queueRedrive(props.queue);
    const maxReceiveCount = props.maxReceiveCount ?? redrive?.maxReceiveCount ?? ProcessorDefaults.maxReceiveCount;
    this.queue = props.queue;
    this.deadLetterQueue = props.deadLetterQueue ?? redrive!.queue;
    this.eventSource = props.eventSource ?? ProcessorDefaults.eventSource;
    this.idempotencyTtl = props.idempotencyTtl ?? Duration.seconds(ProcessorDefaults.idempotencyTtlSeconds);
    this.bank = props.bank;
    this.account = props.bank.account;

    this.idempotencyTable = new dynamodb.Table(this, 'IdempotencyTable', {
      partitionKey: { name: IdempotencyTable.KEY, type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      timeToLiveAttribute: IdempotencyTable.TTL,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: dynamodb.TableEncryption.AWS_MANAGED,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    // Sparse: only payments not final yet carry its keys, so the sweep reads exactly those.
    this.idempotencyTable.addGlobalSecondaryIndex({
      indexName: PendingPaymentIndex.NAME,
      partitionKey: { name: PendingPaymentIndex.PARTITION, type: dynamodb.AttributeType.STRING },
      sortKey: { name: PendingPaymentIndex.SINCE, type: dynamodb.AttributeType.NUMBER },
      projectionType: dynamodb.ProjectionType.KEYS_ONLY,
    });

    if (props.eventBus) {
      this.eventBus = props.eventBus;
    } else {
      const bus = new events.EventBus(this, 'EventBus', { description: 'Verified bank webhook events (cdk-bank-webhooks)' });
      // A consumer that was down, or a rule added later, can replay what it missed.
      this.eventArchive = bus.archive('Archive', {
        description: 'Every verified bank event, for replay to a consumer that missed some',
        eventPattern: { source: [this.eventSource] },
        retention: props.eventArchiveRetention ?? Duration.days(30),
      });
      this.eventBus = bus;
    }

    const settings = processorSettings({
      eventBusName: this.eventBus.eventBusName,
      idempotencyTableName: this.idempotencyTable.tableName,
      quarantineQueueUrl: this.deadLetterQueue.queueUrl,
      queueUrl: this.queue.queueUrl,
    }, { ...props, maxReceiveCount, eventSource: this.eventSource, idempotencyTtlSeconds: this.idempotencyTtl.toSeconds() });
    const fn = new ProcessorFunction(this, 'Function', {
      description: 'Verifies each stored bank notification with the bank\'s query API and publishes verified events once',
      timeout: props.processorTimeout ?? Duration.seconds(ProcessorDefaults.timeoutSeconds),
      memorySize: props.processorMemorySize ?? 512,
      logGroupId: 'LogGroup',
      roleId: 'Role',
      roleDescription: 'Bank webhook processor: read the queue, quarantine to the DLQ, query the bank, record idempotency, publish verified events',
      logRetention: props.logRetention,
      logEncryptionKey: props.logEncryptionKey,
      tracing: props.tracingEnabled ?? false,
      network: functionNetwork(this, 'SecurityGroup', props),
    });
    this.processorFunction = fn;
    fn.addEnvironment(PROCESSOR_SETTINGS_ENV, Stack.of(this).toJsonString(settings));
    for (const [name, value] of Object.entries(bankConnectionEnvironment(this, props.bank, fn))) fn.addEnvironment(name, value);

    fn.addEventSource(new lambdaEventSources.SqsEventSource(this.queue, {
      batchSize: props.batchSize ?? 10,
      maxBatchingWindow: props.maxBatchingWindow,
      maxConcurrency: props.maxConcurrency,
      reportBatchItemFailures: true,
    }));
    acknowledgeInherent(fn, 'LambdaEventSourceMappingDestination', 'An SQS event source takes no on-failure destination (Lambda offers them for streams and Kafka): a message that keeps failing moves to the queue\'s own dead-letter queue after maxReceiveCount receives.');
    // Quarantine to the dead-letter queue, and what an invocation had no time for back to the queue: exactly SendMessage.
    fn.allow(new iam.PolicyStatement({ actions: ['sqs:SendMessage'], resources: [this.deadLetterQueue.queueArn, this.queue.queueArn] }));
    for (const key of new Set([this.queue.encryptionMasterKey, this.deadLetterQueue.encryptionMasterKey])) key?.grant(fn, 'kms:GenerateDataKey', 'kms:Decrypt');
    // Subject records: consistent get, conditional put and update of single items.
    fn.allow(new iam.PolicyStatement({ actions: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'], resources: [this.idempotencyTable.tableArn] }));
    this.eventBus.grantPutEventsTo(fn);

    const period = Duration.minutes(1);
    this.deadLetterQueueAlarm = thresholdAlarm(this, 'DeadLetterQueueAlarm', {
      description: 'Bank notifications are in the dead-letter queue (quarantined, or never verifiable): read the QuarantineReason attribute and the processor log, fix, then redrive.',
      metric: this.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period, statistic: cloudwatch.Stats.MAXIMUM }),
    });
    const oldest = props.oldestMessageAgeAlarmThreshold ?? Duration.minutes(30);
    this.oldestMessageAlarm = thresholdAlarm(this, 'OldestMessageAlarm', {
      description: `A bank notification has waited more than ${oldest.toHumanString()} to be verified: the bank's query API may be failing, or the processor cannot keep up.`,
      metric: this.queue.metricApproximateAgeOfOldestMessage({ period, statistic: cloudwatch.Stats.MAXIMUM }),
      threshold: oldest.toSeconds(),
    });
    this.processorErrorsAlarm = thresholdAlarm(this, 'ProcessorErrorsAlarm', {
      description: 'The settlement processor function failed whole invocations (configuration, permissions, or a crash): see its log.',
      metric: fn.metricErrors({ period: Duration.minutes(5), statistic: cloudwatch.Stats.SUM }),
    });
    notifyOn(props.alarmTopic, [this.deadLetterQueueAlarm, this.oldestMessageAlarm, this.processorErrorsAlarm]);
    warnWithoutAlarmTopic(this, props.alarmTopic);
  }

  /** A metric the processor emits (`ProcessorMetric`, such as `NotificationsQuarantined`): a 5-minute sum unless `props` says otherwise. */
  public metric(metricName: string, props: cloudwatch.MetricOptions = {}): cloudwatch.Metric {
    return libraryMetric(metricName, PROCESSOR_SERVICE_NAME, {}, props);
  }

  /** Verified events published, of one detail type. */
  public metricVerifiedEventsPublished(detailType: string, props: cloudwatch.MetricOptions = {}): cloudwatch.Metric {
    return libraryMetric(ProcessorMetric.PUBLISHED, PROCESSOR_SERVICE_NAME, { DetailType: detailType }, props);
  }

  /** Re-sent notifications that changed nothing (one event per change). */
  public metricDuplicatesSuppressed(props: cloudwatch.MetricOptions = {}): cloudwatch.Metric {
    return this.metric(ProcessorMetric.DUPLICATES, props);
  }

  /** Notifications put in the dead-letter queue with a reason. */
  public metricNotificationsQuarantined(props: cloudwatch.MetricOptions = {}): cloudwatch.Metric {
    return this.metric(ProcessorMetric.QUARANTINED, props);
  }

  /** Notifications whose claim the bank never confirmed. */
  public metricNotificationsNotConfirmed(props: cloudwatch.MetricOptions = {}): cloudwatch.Metric {
    return this.metric(ProcessorMetric.NOT_CONFIRMED, props);
  }

  /** Changes published from a reconciliation look before any notification told of them: webhooks the bank lost. */
  public metricNotificationsRecovered(props: cloudwatch.MetricOptions = {}): cloudwatch.Metric {
    return this.metric(ProcessorMetric.RECOVERED, props);
  }

  /** Bank calls that failed after their retries. */
  public metricBankCallFailures(props: cloudwatch.MetricOptions = {}): cloudwatch.Metric {
    return this.metric(ProcessorMetric.BANK_FAILURES, props);
  }

  /** 429 answers from the bank. */
  public metricBankCallsThrottled(props: cloudwatch.MetricOptions = {}): cloudwatch.Metric {
    return this.metric(ProcessorMetric.BANK_THROTTLED, props);
  }
}
