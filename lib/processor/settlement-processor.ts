import { Duration, RemovalPolicies, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as logs from 'aws-cdk-lib/aws-logs';
import * as lambdaEventSources from 'aws-cdk-lib/aws-lambda-event-sources';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { BankAccount } from '../../contracts/bank-connection';
import {
  IdempotencyTable,
  PROCESSOR_SERVICE_NAME,
  PROCESSOR_SETTINGS_ENV,
  ProcessorDefaults,
  ProcessorMetric,
} from '../../contracts/processor';
import { PendingPaymentIndex } from '../../contracts/reconciliation';
import { type CooperativeConnectionProps, bankConnectionEnvironment } from '../families/cooperative/connection';
import { pixConnectionEnvironment } from '../families/pix/connection';
import { pixProcessorSettings, type PixReceiverProps } from '../families/pix/receiver';
import { notifyOn, Runbook, thresholdAlarm, warnWithoutAlarmTopic } from '../core/alarms';
import { QueueSenders } from '../core/queue-senders';
import { ConfigurationGuard, guardBus } from '../core/configuration-guard';
import { acknowledgeInherent } from '../core/compliance';
import { functionNetwork } from '../core/function-network';
import { minimumVisibilitySeconds } from '../core/timing';
import { defaultReceiverName, libraryMetric } from '../core/metrics';
import { claimKeylessPix, claimReceiver } from '../core/receiver-claims';
import { onlyPublishers } from '../core/publisher-policy';
import { validateProps } from '../core/props-validation';
import { BankStage } from '../core/bank-stage';
import { createAuditLog } from './audit-log';
import { createNotificationJournal } from './notification-journal';
import { ProcessorFunction } from './processor-function';
import { processorSettings } from './processor-settings';
import {
  checkSettlementProcessor,
  queueRedrive,
  type SettlementProcessorProps,
  visibilityTimeoutSeconds,
} from './settlement-processor-props';
import { openTelemetryLayer, xrayTracing } from '../core/tracing';

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
  /** Where quarantined and failed notifications go. */
  public readonly deadLetterQueue: sqs.IQueue;
  /**
   * The look queue: look requests (the sweep's, Track Payment events, recovery checks) wait here,
   * apart from notifications, which never wait behind them.
   */
  public readonly lookQueue: sqs.Queue;
  /** Where quarantined and failed look requests go. */
  public readonly lookDeadLetterQueue: sqs.Queue;
  /** How long a subject's record is kept after its last change. */
  public readonly idempotencyTtl: Duration;
  /** How the processor reaches the bank (a reconciliation sweep of this processor uses it too). */
  public readonly bank: CooperativeConnectionProps;
  /** The account the processor verifies and publishes for (`bank.account`). */
  public readonly account: BankAccount;
  /** Alarm: messages in the dead-letter queue. */
  public readonly deadLetterQueueAlarm: cloudwatch.Alarm;
  /** Alarm: messages in the look dead-letter queue (a Track Payment for a payment the bank never knew, a look that kept failing). */
  public readonly lookDeadLetterQueueAlarm: cloudwatch.Alarm;
  /** Alarm: the oldest queued message is older than the threshold. */
  public readonly oldestMessageAlarm: cloudwatch.Alarm;
  /** Alarm: a look request (the sweep's, a Track Payment's) finished or was deferred longer than the oldest-message threshold after it was first asked for. */
  public readonly lookAgeAlarm: cloudwatch.Alarm;
  /** Alarm: the function failed whole invocations. */
  public readonly processorErrorsAlarm: cloudwatch.Alarm;
  /** The `receiver` dimension of its metrics (`receiverName`; the reconciliation sweep's too). */
  public readonly receiverName: string;
  /** What Pix it verifies, when it has Pix (the sweep reads the same keys). */
  public readonly pix?: PixReceiverProps;
  /** The raw journal's bucket (none when `journal.enabled` is false). */
  public readonly journalBucket?: s3.Bucket;
  /** The audit log's group: every event of `eventSource` on the bus (none unless `auditLog.enabled`). */
  public readonly auditLog?: logs.LogGroup;
  /** Where EventBridge puts an event it could not write to the audit log (none unless `auditLog.enabled`). */
  public readonly auditDeadLetterQueue?: sqs.Queue;
  /** Alarm: events the audit log misses are in its dead-letter queue. */
  public readonly auditDeadLetterQueueAlarm?: cloudwatch.Alarm;
  /** Alarm: a raw notification could not be written to the journal (the message is retried until it is). */
  public readonly journalAlarm?: cloudwatch.Alarm;

  constructor(scope: Construct, id: string, props: SettlementProcessorProps) {
    super(scope, id);
    validateProps(this.node.path, 'SettlementProcessor', props, checkSettlementProcessor, Stack.of(this).region);
    this.receiverName = props.receiverName ?? defaultReceiverName(this);
    claimReceiver(this, props.bank.account, this.receiverName);
    if (props.pix?.keylessPix) claimKeylessPix(this, props.bank.account, props.pix.connection.baseUrl);
    const redrive = queueRedrive(props.queue);
    const maxReceiveCount = props.maxReceiveCount ?? redrive?.maxReceiveCount ?? ProcessorDefaults.maxReceiveCount;
    this.queue = props.queue;
    this.deadLetterQueue = props.deadLetterQueue ?? redrive!.queue;
    this.eventSource = props.eventSource ?? ProcessorDefaults.eventSource;
    this.idempotencyTtl = props.idempotencyTtl ?? Duration.seconds(ProcessorDefaults.idempotencyTtlSeconds);
    this.bank = props.bank;
    this.account = props.bank.account;
    this.pix = props.pix;

    this.idempotencyTable = new dynamodb.Table(this, 'IdempotencyTable', {
      partitionKey: { name: IdempotencyTable.KEY, type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      timeToLiveAttribute: IdempotencyTable.TTL,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: dynamodb.TableEncryption.AWS_MANAGED,
      removalPolicy: props.removalPolicy ?? RemovalPolicy.RETAIN,
    });
    // Sparse: only payments not final yet carry its keys, so the sweep reads exactly those.
    this.idempotencyTable.addGlobalSecondaryIndex({
      indexName: PendingPaymentIndex.NAME,
      partitionKey: { name: PendingPaymentIndex.PARTITION, type: dynamodb.AttributeType.STRING },
      sortKey: { name: PendingPaymentIndex.SINCE, type: dynamodb.AttributeType.NUMBER },
      projectionType: dynamodb.ProjectionType.KEYS_ONLY,
    });

    // Who may change the bus's rules and policy, the journal's configuration and (asked) the queues'.
    const guard = ConfigurationGuard.of(this, props.configurationGuard);
    if (props.eventBus) {
      this.eventBus = props.eventBus;
    } else {
      const bus = new events.EventBus(this, 'EventBus', {
        description: 'Verified bank webhook events (cdk-bank-webhooks)',
      });
      // A consumer that was down, or a rule added later, can replay what it missed.
      this.eventArchive = bus.archive('Archive', {
        description: 'Every verified bank event, for replay to a consumer that missed some',
        eventPattern: { source: [this.eventSource] },
        retention: props.eventArchiveRetention ?? Duration.days(30),
      });
      this.eventBus = bus;
    }
    guardBus(this, this.eventBus, guard);

    // Looks wait in a queue of their own (with its own dead-letter queue): a notification is never behind them.
    const queueKey = this.queue.encryptionMasterKey;
    const lookQueueProps: sqs.QueueProps = {
      encryption: queueKey ? sqs.QueueEncryption.KMS : sqs.QueueEncryption.SQS_MANAGED,
      encryptionMasterKey: queueKey,
      enforceSSL: true,
      retentionPeriod: Duration.seconds(ProcessorDefaults.queueRetentionSeconds),
    };
    this.lookDeadLetterQueue = new sqs.Queue(this, 'LookDeadLetterQueue', lookQueueProps);
    this.lookQueue = new sqs.Queue(this, 'LookQueue', {
      ...lookQueueProps,
      visibilityTimeout: Duration.seconds(minimumVisibilitySeconds(props.processorTimeout, undefined)),
      deadLetterQueue: { queue: this.lookDeadLetterQueue, maxReceiveCount },
    });
    // Only the processor, the sweep, the Track Payment rule and the named operators send to them.
    QueueSenders.guard(this.lookDeadLetterQueue);
    QueueSenders.guard(this.lookQueue, props.operatorRoles);
    acknowledgeInherent(
      this.lookDeadLetterQueue,
      'SQSRedrivePolicy',
      "This queue is the look queue's dead-letter queue: what lands here is quarantined or undeliverable, alarmed, and redriven to the look queue by an operator, never dead-lettered further.",
    );

    const fn = new ProcessorFunction(this, 'Function', {
      description:
        "Verifies each stored bank notification with the bank's query API and publishes verified events once",
      timeout: props.processorTimeout ?? Duration.seconds(ProcessorDefaults.timeoutSeconds),
      memorySize: props.processorMemorySize ?? ProcessorDefaults.memorySizeMb,
      logGroupId: 'LogGroup',
      roleId: 'Role',
      roleDescription:
        'Bank webhook processor: read the queue, quarantine to the DLQ, query the bank, record idempotency, publish verified events',
      logRetention: props.logRetention,
      logEncryptionKey: props.logEncryptionKey,
      tracing: xrayTracing(props),
      openTelemetry: openTelemetryLayer(this, props),
      network: functionNetwork(this, 'SecurityGroup', props),
    });
    // The journal's bucket is written by the function's role alone (its policy names the role).
    const production = props.stage === BankStage.PRODUCTION;
    const journal = { removalPolicy: props.removalPolicy, production, guard, operators: props.operatorRoles };
    this.journalBucket =
      props.journal?.enabled === false
        ? undefined
        : createNotificationJournal(this, 'Journal', props.journal ?? {}, fn.role!, journal);
    const audit = props.auditLog?.enabled
      ? createAuditLog(this, props.auditLog, this.eventBus, this.eventSource, {
          logs: props.logEncryptionKey,
          queues: queueKey,
        })
      : undefined;
    [this.auditLog, this.auditDeadLetterQueue, this.auditDeadLetterQueueAlarm] = [
      audit?.logGroup,
      audit?.deadLetterQueue,
      audit?.deadLetterQueueAlarm,
    ];
    const queues = [this.queue, this.deadLetterQueue, this.lookQueue, this.lookDeadLetterQueue, audit?.deadLetterQueue];
    if (guard?.queuePolicyDenies) for (const q of queues) if (q) QueueSenders.of(q)?.guardConfiguration(guard);
    if (props.removalPolicy === RemovalPolicy.DESTROY)
      RemovalPolicies.of(this).apply(RemovalPolicy.DESTROY, { applyToResourceTypes: ['AWS::Logs::LogGroup'] });
    const settings = processorSettings(
      {
        eventBusName: this.eventBus.eventBusName,
        idempotencyTableName: this.idempotencyTable.tableName,
        quarantineQueueUrl: this.deadLetterQueue.queueUrl,
        queueUrl: this.queue.queueUrl,
        lookQueueUrl: this.lookQueue.queueUrl,
        lookQuarantineQueueUrl: this.lookDeadLetterQueue.queueUrl,
        journalBucketName: this.journalBucket?.bucketName,
        ownSenderId: (fn.role as iam.Role).roleId,
      },
      {
        ...props,
        maxReceiveCount,
        eventSource: this.eventSource,
        idempotencyTtlSeconds: this.idempotencyTtl.toSeconds(),
        receiverName: this.receiverName,
        recoveredGraceSeconds: props.recoveredGracePeriod?.toSeconds(),
        lookQueryShare: props.lookQueryShare,
        queueVisibilityTimeoutSeconds:
          visibilityTimeoutSeconds(this.queue) ??
          minimumVisibilitySeconds(props.processorTimeout, props.maxBatchingWindow),
      },
    );
    this.processorFunction = fn;
    const pixSettings = props.pix ? pixProcessorSettings(props.pix, this.idempotencyTtl) : {};
    fn.addEnvironment(PROCESSOR_SETTINGS_ENV, Stack.of(this).toJsonString({ ...settings, ...pixSettings }));
    for (const [name, value] of Object.entries(bankConnectionEnvironment(this, props.bank, fn)))
      fn.addEnvironment(name, value);
    if (props.pix)
      for (const [name, value] of Object.entries(pixConnectionEnvironment(this, props.pix.connection, fn)))
        fn.addEnvironment(name, value);

    fn.addEventSource(
      new lambdaEventSources.SqsEventSource(this.queue, {
        batchSize: props.batchSize ?? 10,
        maxBatchingWindow: props.maxBatchingWindow,
        maxConcurrency: props.maxConcurrency,
        reportBatchItemFailures: true,
      }),
    );
    fn.addEventSource(
      new lambdaEventSources.SqsEventSource(this.lookQueue, {
        batchSize: 10,
        maxConcurrency: ProcessorDefaults.lookMaxConcurrency,
        reportBatchItemFailures: true,
      }),
    );
    acknowledgeInherent(
      fn,
      'LambdaEventSourceMappingDestination',
      "An SQS event source takes no on-failure destination (Lambda offers them for streams and Kafka): a message that keeps failing moves to the queue's own dead-letter queue after maxReceiveCount receives.",
    );
    // Quarantine to a dead-letter queue, and what an invocation had no time or rate for back to its queue: exactly SendMessage.
    const ownQueues = [this.deadLetterQueue, this.queue, this.lookDeadLetterQueue, this.lookQueue];
    QueueSenders.allowFunction(fn, ownQueues);
    for (const key of new Set([this.queue.encryptionMasterKey, this.deadLetterQueue.encryptionMasterKey]))
      key?.grant(fn, 'kms:GenerateDataKey', 'kms:Decrypt');
    // Subject records and look markers: consistent get (a batch's subjects in one BatchGetItem), conditional put and update of single items.
    fn.allow(
      new iam.PolicyStatement({
        actions: ['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
        resources: [this.idempotencyTable.tableArn],
      }),
    );
    this.eventBus.grantPutEventsTo(fn);
    // Nobody else publishes this source on the bus: consumers act on it as verified.
    onlyPublishers(this, this.eventBus, this.eventSource, fn.role!);

    const period = Duration.minutes(1);
    this.deadLetterQueueAlarm = thresholdAlarm(this, 'DeadLetterQueueAlarm', {
      runbook: Runbook.DEAD_LETTER_QUEUE,
      description:
        'Bank notifications are in the dead-letter queue (quarantined, or never verifiable): read the QuarantineReason attribute and the processor log, fix, then redrive.',
      metric: this.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
        period,
        statistic: cloudwatch.Stats.MAXIMUM,
      }),
    });
    this.lookDeadLetterQueueAlarm = thresholdAlarm(this, 'LookDeadLetterQueueAlarm', {
      runbook: Runbook.LOOK_DEAD_LETTER_QUEUE,
      description:
        'Look requests are in the look dead-letter queue (a Track Payment naming a payment the bank never knew, a malformed request, or a look that kept failing): read the QuarantineReason attribute and the processor log; redrive once fixed. No notification is in it.',
      metric: this.lookDeadLetterQueue.metricApproximateNumberOfMessagesVisible({
        period,
        statistic: cloudwatch.Stats.MAXIMUM,
      }),
    });
    const oldest = props.oldestMessageAgeAlarmThreshold ?? Duration.minutes(30);
    this.oldestMessageAlarm = thresholdAlarm(this, 'OldestMessageAlarm', {
      runbook: Runbook.OLDEST_MESSAGE,
      description: `A bank notification has waited more than ${oldest.toHumanString()} to be verified: the bank's query API may be failing, or the processor cannot keep up.`,
      metric: this.queue.metricApproximateAgeOfOldestMessage({ period, statistic: cloudwatch.Stats.MAXIMUM }),
      threshold: oldest.toSeconds(),
    });
    // Deferral sends a look back as a new message, so the queue's age never shows a backlog of looks: their own age does.
    this.lookAgeAlarm = thresholdAlarm(this, 'LookAgeAlarm', {
      runbook: Runbook.LOOK_AGE,
      description: `A look request (the sweep's, or a Track Payment's) waited more than ${oldest.toHumanString()} since it was first asked for: looks are deferred for the bank's rate faster than they are served. See LookRequestAge and cdk-bank-webhooks/docs/reconciliation.md.`,
      metric: this.metric(ProcessorMetric.LOOK_AGE, {
        period: Duration.minutes(5),
        statistic: cloudwatch.Stats.MAXIMUM,
      }),
      threshold: oldest.toMilliseconds(),
    });
    this.processorErrorsAlarm = thresholdAlarm(this, 'ProcessorErrorsAlarm', {
      runbook: Runbook.PROCESSOR_ERRORS,
      description:
        'The settlement processor function failed whole invocations (configuration, permissions, or a crash): see its log.',
      metric: fn.metricErrors({ period: Duration.minutes(5), statistic: cloudwatch.Stats.SUM }),
    });
    if (this.journalBucket) {
      this.journalAlarm = thresholdAlarm(this, 'JournalAlarm', {
        runbook: Runbook.JOURNAL,
        description:
          "Raw notifications could not be written to the journal (S3): the messages are retried, and quarantined on their last receive. Check the processor log and the bucket's policy, key and availability.",
        metric: this.metric(ProcessorMetric.JOURNAL_FAILURES),
      });
    }
    notifyOn(props.alarmTopic, [
      this.deadLetterQueueAlarm,
      this.lookDeadLetterQueueAlarm,
      this.oldestMessageAlarm,
      this.lookAgeAlarm,
      this.processorErrorsAlarm,
      this.journalAlarm,
      this.auditDeadLetterQueueAlarm,
    ]);
    warnWithoutAlarmTopic(this, props.alarmTopic);
  }

  /** A metric the processor emits (`ProcessorMetric`, such as `NotificationsQuarantined`): a 5-minute sum unless `props` says otherwise. */
  public metric(metricName: string, props: cloudwatch.MetricOptions = {}): cloudwatch.Metric {
    return libraryMetric(metricName, PROCESSOR_SERVICE_NAME, this.receiverName, {}, props);
  }

  /** Verified events published, of one detail type. */
  public metricVerifiedEventsPublished(detailType: string, props: cloudwatch.MetricOptions = {}): cloudwatch.Metric {
    return libraryMetric(
      ProcessorMetric.PUBLISHED,
      PROCESSOR_SERVICE_NAME,
      this.receiverName,
      { DetailType: detailType },
      props,
    );
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

  /** Settlements the bank's listing puts on another day than its query: the bank connection's `zuluTimestamps` may be wrong. */
  public metricSettlementDayMismatches(props: cloudwatch.MetricOptions = {}): cloudwatch.Metric {
    return this.metric(ProcessorMetric.SETTLEMENT_DAY_MISMATCH, props);
  }
}
