import { type PixReceiverProps, validatePixReceiver } from '../families/pix/receiver';
import { checkReceiverName, type ReceiverNameProps } from '../core/metrics';
import { Duration, RemovalPolicy, Token } from 'aws-cdk-lib';
import type * as events from 'aws-cdk-lib/aws-events';
import type * as iam from 'aws-cdk-lib/aws-iam';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { ProcessorDefaults } from '../../contracts/processor';
import { type CooperativeConnectionProps, validateBankConnection } from '../families/cooperative/connection';
import { checkFunctionNetwork, type FunctionNetworkProps } from '../core/function-network';
import { isWholeNumberIn, type PropsValidation } from '../core/props-validation';
import { checkIdempotencyTtl, minimumVisibilitySeconds } from '../core/timing';
import { checkJournalOptions, type NotificationJournalOptions } from './notification-journal';
import { type AuditLogOptions, checkAuditLogOptions } from './audit-log';
import { JournalObjectLock } from '../../contracts/record';
import { BankStage } from '../core/bank-stage';
import { checkConfigurationGuard, type ConfigurationGuardProps } from '../core/configuration-guard';
import type {
  BoletoMovementMappingProps,
  BoletoStatusMappingProps,
  PaymentStatusMappingProps,
} from './status-mappings';
import { checkTracing } from '../core/tracing';
import type { ObservabilityProps } from '../core/observability-props';

/** How a SettlementProcessor verifies and publishes (BankWebhookReceiver takes the same props). */
export interface SettlementProcessorOptions extends ReceiverNameProps {
  /**
   * What becomes of the stateful parts when the receiver leaves its stack (or the stack is
   * destroyed): the records' table, the raw journal and the log groups. `RemovalPolicy.DESTROY`
   * is for staging and tests: the journal is emptied first (its deny on deletes is lifted for
   * that clean-up alone), which Object Lock forbids, so DESTROY with `journal.objectLock` is refused.
   * RETAIN is the default whatever the stage: a receiver that is NON_PRODUCTION only because it
   * registers nothing may be someone's production.
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
  /**
   * Who may change the stack's own configuration: the library's rules on the bus and the bus's
   * policy, the journal's lifecycle, policy, versioning and Object Lock, and (when asked) the
   * queues' attributes (cdk-bank-webhooks/docs/security.md, "The stack's own configuration").
   * @default - on: each denied to all but the stack's CloudFormation execution role; queue denies off
   */
  readonly configurationGuard?: ConfigurationGuardProps;

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
   * How long after a reconciliation look publishes a change the processor waits for a
   * notification of it before counting it recovered (NotificationsRecovered, the "webhooks are
   * being lost" alarm): a notification that comes late is not a lost one. From 0 to 15 minutes.
   * A Track Payment look is never counted recovered.
   * @default Duration.minutes(10)
   */
  readonly recoveredGracePeriod?: Duration;

  /**
   * The share of the bank's query budget (`bank.queriesPerSecond`) look requests (the sweep's,
   * Track Payment's) may take. A look books a slot at that rate and waits for it out of the queue,
   * so notifications are verified first, with at least the rest of the budget. From 0.05 to 0.9.
   * @default 0.2
   */
  readonly lookQueryShare?: number;

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
   * The raw journal: every authenticated notification kept as received in an S3 bucket the
   * processor writes (never on the receiver's path), for `retention` (5 years by default).
   * @default - on, with the defaults of NotificationJournalOptions
   */
  readonly journal?: NotificationJournalOptions;

  /**
   * The audit log: a rule on the bus keeps every event of `eventSource` in a log group of its own,
   * which `cdk-bank-webhooks audit` reads beside the journal to check that nothing was published
   * twice or lost (cdk-bank-webhooks/docs/guarantees.md).
   * @default - off
   */
  readonly auditLog?: AuditLogOptions;

  /**
   * Age of the oldest queued message that raises the oldest-message alarm.
   * @default Duration.minutes(30)
   */
  readonly oldestMessageAgeAlarmThreshold?: Duration;
}

/** Properties of `SettlementProcessor`. */
export interface SettlementProcessorProps extends SettlementProcessorOptions, FunctionNetworkProps, ObservabilityProps {
  /** How to reach the bank: every notification is verified with its query API before anything is published. */
  readonly bank: CooperativeConnectionProps;

  /**
   * Pix received (cdk-bank-webhooks/docs/pix.md): the provider's standard Pix API every Pix is confirmed with, and
   * the receiver's keys. Needed to verify what a Pix route stores.
   * @default - no Pix: a Pix callback in the queue cannot be verified (it is retried, then quarantined)
   */
  readonly pix?: PixReceiverProps;

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
   * Roles of the operators who redrive the look dead-letter queue or reverify (both send to the
   * look queue): with the processor, the sweep and the Track Payment rule, the only principals
   * that may send to it (cdk-bank-webhooks/docs/security.md).
   * @default - none: nobody else can send to the look queue
   */
  readonly operatorRoles?: iam.IRole[];

  /**
   * What this processor's stack is to the bank: a PRODUCTION processor's journal, kept under
   * RETAIN, takes S3 Object Lock (GOVERNANCE) unless `journal.objectLock` says otherwise.
   * (BankWebhookReceiver passes its own.)
   * @default BankStage.NON_PRODUCTION
   */
  readonly stage?: BankStage;
}

const QUEUE_RETENTION = Duration.seconds(ProcessorDefaults.queueRetentionSeconds);

/**
 * Checks SettlementProcessorProps. The wiring (queue, dead-letter queue) and the network are
 * checked when given: a facade checks the rest before it makes the queue.
 */
export function checkSettlementProcessor(v: PropsValidation, props: Partial<SettlementProcessorProps>): void {
  checkReceiverName(v, props.receiverName, 'receiverName');
  checkConfigurationGuard(v, props.configurationGuard);
  checkTracing(v, props);
  if (props.stage !== undefined)
    v.check(
      Object.values(BankStage).includes(props.stage),
      'stage',
      `must be BankStage.PRODUCTION or BankStage.NON_PRODUCTION, got "${props.stage}"`,
    );
  if (props.removalPolicy !== undefined) {
    v.check(
      [RemovalPolicy.DESTROY, RemovalPolicy.RETAIN].includes(props.removalPolicy),
      'removalPolicy',
      `must be RemovalPolicy.RETAIN or RemovalPolicy.DESTROY, got ${props.removalPolicy}`,
    );
    const locked =
      props.journal?.enabled !== false &&
      props.journal?.objectLock !== undefined &&
      props.journal.objectLock !== JournalObjectLock.NONE;
    v.check(
      props.removalPolicy !== RemovalPolicy.DESTROY || !locked,
      'removalPolicy',
      `is RemovalPolicy.DESTROY, but journal.objectLock (${props.journal?.objectLock}) forbids deleting a raw notification before its retention, so the journal could never be emptied and removed. Leave objectLock out on a stack you destroy (staging), or keep RETAIN`,
    );
  }
  validateBankConnection(v, props.bank, 'bank');
  if (props.processorTimeout) {
    v.checkNumber(
      props.processorTimeout.toSeconds(),
      'processorTimeout',
      isWholeNumberIn(10, 900),
      'must be from 10 seconds to 15 minutes (seconds)',
    );
  }
  v.checkNumber(
    props.processorMemorySize,
    'processorMemorySize',
    isWholeNumberIn(128, 10240),
    'must be a whole number of MiB from 128 to 10240',
  );
  v.checkNumber(props.batchSize, 'batchSize', isWholeNumberIn(1, 10000), 'must be a whole number from 1 to 10000');
  if (props.maxBatchingWindow) {
    v.checkNumber(
      props.maxBatchingWindow.toSeconds(),
      'maxBatchingWindow',
      isWholeNumberIn(0, 300),
      'must be from 0 to 300 seconds',
    );
  }
  if (props.batchSize !== undefined && !Token.isUnresolved(props.batchSize) && props.batchSize > 10) {
    v.check(
      !!props.maxBatchingWindow && props.maxBatchingWindow.toSeconds() > 0,
      'maxBatchingWindow',
      `must be set (above 0) when batchSize is above 10 (got batchSize ${props.batchSize}); SQS event sources require it`,
    );
  }
  v.checkNumber(
    props.maxConcurrency,
    'maxConcurrency',
    isWholeNumberIn(2, 1000),
    'must be a whole number from 2 to 1000',
  );
  v.checkNumber(
    props.lookQueryShare,
    'lookQueryShare',
    (n) => n >= 0.05 && n <= 0.9,
    'must be a share of the query budget from 0.05 to 0.9',
  );
  if (props.recoveredGracePeriod) {
    v.checkNumber(
      props.recoveredGracePeriod.toSeconds(),
      'recoveredGracePeriod',
      isWholeNumberIn(0, 900),
      "must be whole seconds from 0 to 15 minutes (SQS's longest delay)",
    );
  }
  v.checkNumber(
    props.maxVerificationAttempts,
    'maxVerificationAttempts',
    isWholeNumberIn(1, 100),
    'must be a whole number from 1 to 100',
  );
  const attempts = props.maxVerificationAttempts;
  const receives =
    props.maxReceiveCount ?? queueRedrive(props.queue)?.maxReceiveCount ?? ProcessorDefaults.maxReceiveCount;
  if (attempts !== undefined && !Token.isUnresolved(attempts) && !Token.isUnresolved(receives) && receives >= 1) {
    v.check(
      attempts < receives,
      'maxVerificationAttempts',
      `must be less than maxReceiveCount (${attempts} is not less than ${receives}), or a notification the bank does not confirm goes to the DLQ before its last verification`,
    );
  }
  checkIdempotencyTtl(v, props.idempotencyTtl, 0, 0);
  validatePixReceiver(v, props.pix, 'pix');
  checkJournalOptions(v, props.journal);
  checkAuditLogOptions(v, props.auditLog);
  if (props.eventArchiveRetention) {
    v.checkNumber(
      props.eventArchiveRetention.toDays(),
      'eventArchiveRetention',
      isWholeNumberIn(0, 3650),
      'must be a whole number of days from 0 (forever) to 3650',
    );
    v.check(
      !props.eventBus,
      'eventArchiveRetention',
      'applies only to the bus the construct creates: archive the eventBus you pass yourself, or remove eventArchiveRetention',
    );
  }
  if (props.oldestMessageAgeAlarmThreshold) {
    v.checkNumber(
      props.oldestMessageAgeAlarmThreshold.toSeconds(),
      'oldestMessageAgeAlarmThreshold',
      isWholeNumberIn(60, QUEUE_RETENTION.toSeconds()),
      'must be from 1 minute to 14 days (seconds)',
    );
  }
  if (props.eventSource !== undefined && !Token.isUnresolved(props.eventSource)) {
    v.check(
      /^[A-Za-z0-9._\-/]{1,256}$/.test(props.eventSource) && !props.eventSource.startsWith('aws.'),
      'eventSource',
      `must be 1 to 256 letters, digits, dots, hyphens, underscores or slashes, not starting with "aws.", got "${props.eventSource}"`,
    );
  }
  if (props.queue) {
    v.check(
      !!(props.deadLetterQueue ?? queueRedrive(props.queue)),
      'deadLetterQueue',
      'is required when queue has no dead-letter queue of its own (an sqs.Queue made with deadLetterQueue): quarantined messages go there',
    );
    const visibility = visibilityTimeoutSeconds(props.queue);
    const minimum = minimumVisibilitySeconds(props.processorTimeout, props.maxBatchingWindow);
    if (visibility !== undefined) {
      v.check(
        visibility >= minimum,
        'queue',
        `has a visibility timeout of ${visibility} seconds; an SQS event source needs at least 6 × processorTimeout + maxBatchingWindow = ${minimum} seconds: raise it, or lower processorTimeout`,
      );
    }
  }
  checkFunctionNetwork(v, props);
}

export function queueRedrive(queue: sqs.IQueue | undefined): sqs.DeadLetterQueue | undefined {
  return queue instanceof sqs.Queue ? queue.deadLetterQueue : undefined;
}

/** The visibility timeout of a queue made in this app, when known at synth (SQS's default is 30 s). */
export function visibilityTimeoutSeconds(queue: sqs.IQueue): number | undefined {
  if (!(queue instanceof sqs.Queue)) return undefined;
  const value = (queue.node.defaultChild as sqs.CfnQueue).visibilityTimeout;
  return value === undefined ? 30 : Token.isUnresolved(value) ? undefined : value;
}
