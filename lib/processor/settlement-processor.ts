import { Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as lambdaEventSources from 'aws-cdk-lib/aws-lambda-event-sources';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { IdempotencyTable, PROCESSOR_SETTINGS_ENV, ProcessorDefaults, type ProcessorSettings } from '../../contracts/processor';
import { PendingPaymentIndex } from '../../contracts/reconciliation';
import { type BankConnectionProps, bankConnectionEnvironment } from '../bank-connection';
import { notifyOn, thresholdAlarm } from '../core/alarms';
import type { FunctionNetworkProps } from '../core/function-network';
import { acknowledgeInherent } from '../core/compliance';
import { bundledFunction } from '../core/bundled-function';

/** Which boleto query `situacao` texts (matched by prefix, any case) mean what. Unset lists keep their defaults. */
export interface BoletoStatusMappingProps {
  /** @default ['LIQUIDADO'] */
  readonly settled?: string[];
  /** @default ['BAIXADO'] */
  readonly writtenOff?: string[];
  /** @default ['REJEITADO'] */
  readonly rejected?: string[];
  /** @default ['EM CARTEIRA', 'VENCIDO', 'A VENCER'] */
  readonly open?: string[];
}

/** Which boleto event `movimento` values (matched by prefix, any case) mean what. Unset lists keep their defaults. */
export interface BoletoMovementMappingProps {
  /** @default ['LIQUIDACAO', 'AVISO_PAGAMENTO'] */
  readonly settlement?: string[];
  /** Checked first, so `ESTORNO_LIQUIDACAO_...` is a reversal. @default ['ESTORNO'] */
  readonly reversal?: string[];
  /** @default ['BAIXA'] */
  readonly writeOff?: string[];
  /** @default ['REJEICAO'] */
  readonly rejection?: string[];
}

/** Which payment `status` values (matched exactly) mean what. Unset lists keep their defaults. */
export interface PaymentStatusMappingProps {
  /** @default ['EFETIVADO'] */
  readonly settled?: string[];
  /** @default ['RECEBIDO', 'AGENDADO', 'EM_PROCESSAMENTO'] */
  readonly pending?: string[];
  /** @default ['REJEITADO'] */
  readonly rejected?: string[];
  /** @default ['CANCELADO'] */
  readonly cancelled?: string[];
  /** @default ['ESTORNADO', 'DEVOLVIDO'] */
  readonly reversed?: string[];
}

/** @internal */
export interface SettlementProcessorProps {
  readonly bank: BankConnectionProps;
  readonly queue: sqs.IQueue;
  readonly deadLetterQueue: sqs.IQueue;
  readonly queueEncryptionKey?: kms.IKey;
  readonly eventBus?: events.IEventBus;
  readonly eventSource: string;
  readonly timeout: Duration;
  readonly memorySize: number;
  readonly batchSize: number;
  readonly maxBatchingWindow?: Duration;
  readonly maxConcurrency?: number;
  readonly maxVerificationAttempts: number;
  readonly maxReceiveCount: number;
  readonly idempotencyTtl: Duration;
  /** Retention of the archive of the bus the construct creates (0: forever). */
  readonly eventArchiveRetention: Duration;
  readonly boletoStatuses?: BoletoStatusMappingProps;
  readonly boletoMovements?: BoletoMovementMappingProps;
  readonly paymentStatuses?: PaymentStatusMappingProps;
  readonly logRetention: logs.RetentionDays;
  readonly logEncryptionKey?: kms.IKey;
  /** VPC placement of the function. */
  readonly network: FunctionNetworkProps;
  readonly tracingEnabled: boolean;
  readonly alarmTopic?: sns.ITopic;
  readonly oldestMessageAgeAlarmThreshold: Duration;
}

/**
 * The settlement processor of a BankWebhookReceiver: the function that reads the queue,
 * verifies every notification with the bank's query API and publishes verified events once,
 * its idempotency table, the event bus, and the alarms.
 * @internal
 */
export class SettlementProcessor extends Construct {
  readonly processorFunction: lambda.Function;
  readonly idempotencyTable: dynamodb.Table;
  readonly eventBus: events.IEventBus;
  /** The archive of the bus the construct created (none on a bus you pass). */
  readonly eventArchive?: events.Archive;
  readonly deadLetterQueueAlarm: cloudwatch.Alarm;
  readonly oldestMessageAlarm: cloudwatch.Alarm;
  readonly processorErrorsAlarm: cloudwatch.Alarm;

  constructor(scope: Construct, id: string, props: SettlementProcessorProps) {
    super(scope, id);

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
        eventPattern: { source: [props.eventSource] },
        retention: props.eventArchiveRetention,
      });
      this.eventBus = bus;
    }

    const logGroup = new logs.LogGroup(this, 'LogGroup', { retention: props.logRetention, removalPolicy: RemovalPolicy.RETAIN, encryptionKey: props.logEncryptionKey });
    const role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: 'Bank webhook processor: read the queue, quarantine to the DLQ, query the bank, record idempotency, publish verified events',
    });
    logGroup.grantWrite(role);

    const settings: ProcessorSettings = {
      eventBusName: this.eventBus.eventBusName,
      eventSource: props.eventSource,
      idempotencyTableName: this.idempotencyTable.tableName,
      idempotencyTtlSeconds: props.idempotencyTtl.toSeconds(),
      quarantineQueueUrl: props.deadLetterQueue.queueUrl,
      queueUrl: props.queue.queueUrl,
      maxReceiveCount: props.maxReceiveCount,
      maxVerificationAttempts: props.maxVerificationAttempts,
      safetyMarginMs: ProcessorDefaults.safetyMarginMs,
      boletoStatuses: { ...ProcessorDefaults.boletoStatuses, ...props.boletoStatuses },
      boletoMovements: { ...ProcessorDefaults.boletoMovements, ...props.boletoMovements },
      paymentStatuses: { ...ProcessorDefaults.paymentStatuses, ...props.paymentStatuses },
    };
    this.processorFunction = bundledFunction(this, 'Function', {
      bundle: 'processor',
      description: 'Verifies each stored bank notification with the bank\'s query API and publishes verified events once',
      timeout: props.timeout,
      memorySize: props.memorySize,
      role,
      logGroup,
      tracing: props.tracingEnabled,
      network: props.network,
      whyNoDeadLetterQueue: 'Its SQS event source invokes it synchronously: a notification it cannot verify goes to the queue\'s own dead-letter queue (maxReceiveCount, and quarantine), which is alarmed.',
      whyNoReservedConcurrency: 'The event source\'s maxConcurrency bounds it, with the queue holding the backlog; reserved concurrency on an SQS-triggered function makes throttled batches be received again and reach the dead-letter queue, which AWS advises against.',
      environment: {
        ...bankConnectionEnvironment(this, props.bank, role),
        [PROCESSOR_SETTINGS_ENV]: Stack.of(this).toJsonString(settings),
      },
    });

    this.processorFunction.addEventSource(new lambdaEventSources.SqsEventSource(props.queue, {
      batchSize: props.batchSize,
      maxBatchingWindow: props.maxBatchingWindow,
      maxConcurrency: props.maxConcurrency,
      reportBatchItemFailures: true,
    }));
    acknowledgeInherent(this.processorFunction, 'LambdaEventSourceMappingDestination', 'An SQS event source takes no on-failure destination (Lambda offers them for streams and Kafka): a message that keeps failing moves to the queue\'s own dead-letter queue after maxReceiveCount receives.');
    // Quarantine to the dead-letter queue, and what an invocation had no time for back to the queue: exactly SendMessage.
    role.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['sqs:SendMessage'], resources: [props.deadLetterQueue.queueArn, props.queue.queueArn] }));
    props.queueEncryptionKey?.grant(role, 'kms:GenerateDataKey', 'kms:Decrypt');
    // Subject records: consistent get, conditional put and update of single items.
    role.addToPrincipalPolicy(new iam.PolicyStatement({
      actions: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
      resources: [this.idempotencyTable.tableArn],
    }));
    this.eventBus.grantPutEventsTo(role);
    if (props.tracingEnabled) {
      Validations.of(role).acknowledge({
        id: 'AwsSolutions::AwsSolutions-IAM5[Resource::*]',
        reason: 'X-Ray tracing (tracingEnabled) needs xray:PutTraceSegments and xray:PutTelemetryRecords, which support no resource-level permissions.',
      });
    }

    // Alarms.
    const period = Duration.minutes(1);
    this.deadLetterQueueAlarm = thresholdAlarm(this, 'DeadLetterQueueAlarm', {
      description: 'Bank notifications are in the dead-letter queue (quarantined, or never verifiable): read the QuarantineReason attribute and the processor log, fix, then redrive.',
      metric: props.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period, statistic: cloudwatch.Stats.MAXIMUM }),
    });
    this.oldestMessageAlarm = thresholdAlarm(this, 'OldestMessageAlarm', {
      description: `A bank notification has waited more than ${props.oldestMessageAgeAlarmThreshold.toHumanString()} to be verified: the bank's query API may be failing, or the processor cannot keep up.`,
      metric: props.queue.metricApproximateAgeOfOldestMessage({ period, statistic: cloudwatch.Stats.MAXIMUM }),
      threshold: props.oldestMessageAgeAlarmThreshold.toSeconds(),
    });
    this.processorErrorsAlarm = thresholdAlarm(this, 'ProcessorErrorsAlarm', {
      description: 'The settlement processor function failed whole invocations (configuration, permissions, or a crash): see its log.',
      metric: this.processorFunction.metricErrors({ period: Duration.minutes(5), statistic: cloudwatch.Stats.SUM }),
    });
    notifyOn(props.alarmTopic, [this.deadLetterQueueAlarm, this.oldestMessageAlarm, this.processorErrorsAlarm]);
  }
}

/**
 * Shortest record lifetime that keeps "one event per change": a message can come back from the
 * dead-letter queue after the queues' retention, the reconciliation sweep re-reads the last
 * `lookbackDays` days, and a pending payment's record is what keeps it in the sweep's index for
 * `paymentMaxAgeDays`; a record gone before any of these would let a change be published again
 * (or a pending payment be forgotten).
 */
export function minIdempotencyTtlSeconds(lookbackDays: number, paymentMaxAgeDays: number): number {
  return Math.max(ProcessorDefaults.queueRetentionSeconds + lookbackDays * 86_400, (paymentMaxAgeDays + 1) * 86_400);
}
