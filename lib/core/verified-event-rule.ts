import { createHash } from 'node:crypto';
import { Annotations, Duration, Stack, Token, Validations } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import { addToDeadLetterQueueResourcePolicy } from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as lambdaEventSources from 'aws-cdk-lib/aws-lambda-event-sources';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import type { BankAccount } from '../../contracts/bank-connection';
import type { BankEventDetailType } from '../../contracts/events';
import { consumerAlarmPrefix } from '../../contracts/operations';
import { ProcessorDefaults } from '../../contracts/processor';
import { notifyOn, Runbook, thresholdAlarm } from './alarms';
import { acknowledgeInherent } from './compliance';
import { isWholeNumberIn, validateProps } from './props-validation';
import { QueueSenders } from './queue-senders';
import { guardOf, guardRule } from './configuration-guard';

/** Where the verified events are: the bus, their source and the account they carry. */
export interface VerifiedEventSource {
  readonly eventBus: events.IEventBus;
  readonly eventSource: string;
  readonly account: BankAccount;
  /** The receiver's alarm topic: the rule's dead-letter queue alarm notifies it too. */
  readonly alarmTopic?: sns.ITopic;
  /**
   * The receiver's operators.
   * @deprecated not read: a consumer's queue takes only the roles its rule names (`operatorRoles`
   * of the rule's options), since its bodies are read as verified events
   */
  readonly operatorRoles?: iam.IRole[];
  /** The receiver's name: its consumers' alarms are named under it (`consumerAlarmPrefix`), so `status` finds them in any stack. */
  readonly receiverName?: string;
}

/**
 * A rule on the receiver's bus matching its verified events of one detail type for its account
 * (BankWebhookReceiver.onVerifiedEvent), with delivery guarantees on its target: a dead-letter
 * queue (alarmed when the rule made it) and a retry policy. With `consumer`, the rule delivers
 * into a queue of the consumer's own, which the function reads with partial batch failures: a
 * consumer that throws leaves the event in the queue, then in an alarmed dead-letter queue.
 */
export class VerifiedEventRule extends events.Rule {
  /** Where events go that could not be delivered (the rule's target) or consumed (`consumer`); undefined when the target brings its own. */
  public readonly deadLetterQueue?: sqs.IQueue;
  /** Alarm: an event is in the dead-letter queue this rule made (none for a queue you gave). */
  public readonly deadLetterQueueAlarm?: cloudwatch.Alarm;
  /** With `consumer`: the queue the rule delivers into and the function reads. */
  public readonly consumerQueue?: sqs.Queue;

  constructor(
    scope: Construct,
    id: string,
    source: VerifiedEventSource,
    detailType: BankEventDetailType,
    options: VerifiedEventRuleOptions,
  ) {
    super(scope, id, ruleProps(`${scope.node.path}/${id}`, source, detailType, options));
    const target = options.consumer ? undefined : options.target;
    if (target instanceof targets.LambdaFunction) {
      Annotations.of(this).addWarningV2(
        'cdk-bank-webhooks:lambdaTarget',
        `The rule ${this.node.path} invokes a Lambda function directly: EventBridge invokes it asynchronously, so an event the function fails is retried twice by Lambda and then dropped (the rule's dead-letter queue covers delivery only). Pass the function as consumer instead of target: the events then wait in a queue of its own and end in an alarmed dead-letter queue.`,
      );
    }
    if (!options.consumer && !target) return;
    const deadLetterQueue = options.deadLetterQueue ?? targetDeadLetterQueue(scope, `${id}DeadLetterQueue`);
    if (options.consumer) {
      const timeout = (options.consumer as Partial<Pick<lambda.Function, 'timeout'>>).timeout?.toSeconds() ?? 30;
      this.consumerQueue = new sqs.Queue(scope, `${id}Queue`, {
        encryption: sqs.QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        retentionPeriod: Duration.seconds(ProcessorDefaults.queueRetentionSeconds),
        // Lambda's advice for an SQS source: six times the function's timeout.
        visibilityTimeout: Duration.seconds(Token.isUnresolved(timeout) ? 180 : Math.max(30, 6 * timeout)),
        deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: options.consumerMaxReceiveCount ?? 5 },
      });
      // Only this rule's deliveries, and the redrives of the operators it names, go in: bodies here are
      // read as verified events, so the receiver's operators are no senders unless the rule says so.
      QueueSenders.guard(this.consumerQueue, options.operatorRoles).addRule(this);
      options.consumer.addEventSource(
        new lambdaEventSources.SqsEventSource(this.consumerQueue, {
          batchSize: options.consumerBatchSize ?? 10,
          reportBatchItemFailures: true,
        }),
      );
    }
    // With consumer, a delivery the queue refused goes to the same dead-letter queue as what the function failed.
    const guarded = new WithDeliveryGuarantees(
      this.consumerQueue ? new targets.SqsQueue(this.consumerQueue) : target!,
      deadLetterQueue,
      options.retryAttempts ?? 185,
      options.maxEventAge ?? Duration.hours(24),
    );
    this.addTarget(guarded);
    this.deadLetterQueue = this.consumerQueue || guarded.usedOwnDeadLetterQueue ? deadLetterQueue : undefined;
    if (this.deadLetterQueue && !options.deadLetterQueue) {
      // The dead-letter queue made here takes EventBridge's failed deliveries for this rule, and nothing else.
      QueueSenders.guard(this.deadLetterQueue as sqs.Queue).addRule(this);
      this.deadLetterQueueAlarm = thresholdAlarm(scope, `${id}DeadLetterQueueAlarm`, {
        alarmName: consumerAlarmName(scope, `${id}DeadLetterQueueAlarm`, source.receiverName),
        runbook: Runbook.CONSUMER_DEAD_LETTER_QUEUE,
        description: `Verified bank events (${detailType}) are in the dead-letter queue of the rule ${this.node.path}: ${options.consumer ? 'its consumer failed them on every receive' : 'its target refused them for 24 hours'}. Fix the consumer, then move them back (cdk-bank-webhooks/docs/events.md, "Consuming events").`,
        metric: this.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
          period: Duration.minutes(1),
          statistic: cloudwatch.Stats.MAXIMUM,
        }),
      });
      notifyOn(options.alarmTopic ?? source.alarmTopic, [this.deadLetterQueueAlarm]);
    }
    // The rule, and with queuePolicyDenies the queues it made, change with the deployment alone.
    guardRule(this, source.eventBus);
    const guard = guardOf(source.eventBus);
    if (guard?.queuePolicyDenies)
      for (const queue of [this.consumerQueue, this.deadLetterQueue])
        if (queue) QueueSenders.of(queue)?.guardConfiguration(guard);
  }
}

/**
 * The name of a consumer's dead-letter queue alarm: the receiver's prefix, then the alarm's path
 * made unique in the account (its stack's name is in it). None when the receiver's name is only
 * known at deploy time (CloudFormation names it; `status` then sees it only in the receiver's own stack).
 */
function consumerAlarmName(scope: Construct, id: string, receiverName: string | undefined): string | undefined {
  if (receiverName === undefined || Token.isUnresolved(receiverName)) return undefined;
  const stack = Stack.of(scope);
  if (Token.isUnresolved(stack.stackName)) return undefined;
  const path = [
    stack.stackName,
    ...scope.node.scopes.slice(scope.node.scopes.indexOf(stack) + 1).map((c) => c.node.id),
    id,
  ].join('-');
  const readable = path.replace(/[^A-Za-z0-9_.-]/g, '-');
  // A long path keeps its end and a hash of the whole, so two never share a name.
  const bounded =
    readable.length <= 150
      ? readable
      : `${readable.slice(-137)}-${createHash('sha256').update(path, 'utf8').digest('hex').slice(0, 12)}`;
  return `${consumerAlarmPrefix(receiverName)}${bounded}`;
}

/** The rule's props, once its options are checked (before anything is made). */
/** @param path the rule's construct path, for its errors (it is checked before it is made) */
function ruleProps(
  path: string,
  source: VerifiedEventSource,
  detailType: BankEventDetailType,
  options: VerifiedEventRuleOptions,
): events.RuleProps {
  validateProps(path, 'onVerifiedEvent', options, (v, o) => {
    v.check(
      !(o.target && o.consumer),
      'consumer',
      "cannot be given with target: consumer makes the rule's target (a queue the function reads); give one of them",
    );
    v.checkNumber(
      o.consumerMaxReceiveCount,
      'consumerMaxReceiveCount',
      isWholeNumberIn(1, 1000),
      'must be a whole number from 1 to 1000',
    );
    v.checkNumber(
      o.consumerBatchSize,
      'consumerBatchSize',
      isWholeNumberIn(1, 10),
      'must be a whole number from 1 to 10',
    );
  });
  const detail = options.allAccounts
    ? options.eventPattern?.detail
    : { ...options.eventPattern?.detail, account: accountPattern(source.account) };
  return {
    eventBus: source.eventBus,
    description: options.description ?? `Verified bank events: ${detailType}`,
    ruleName: options.ruleName,
    crossStackScope: options.crossStackScope,
    eventPattern: {
      ...options.eventPattern,
      source: [source.eventSource],
      detailType: [detailType],
      ...(detail ? { detail } : {}),
    },
  };
}

/** Options of {@link BankWebhookReceiver.onVerifiedEvent}. */
export interface VerifiedEventRuleOptions extends events.OnEventOptions {
  /**
   * Where the rule (and its target's dead-letter queue) is created, such as a construct in a
   * consumer's stack: the consumer's stack then depends on the receiver's, never the reverse.
   * Not `crossStackScope` (inherited from EventBridge's options): that one only places the
   * support stack CDK makes for a target in another account or region.
   * @default - the receiver
   */
  readonly scope?: Construct;
  /**
   * Matches the events of every receiver publishing to the bus with the same source, not just
   * this receiver's account.
   * @default false
   */
  readonly allAccounts?: boolean;
  /**
   * Where events the target could not take after every retry go.
   * @default - an encrypted queue created beside the rule (`<id>DeadLetterQueue`), unless the target brings its own
   */
  readonly deadLetterQueue?: sqs.IQueue;
  /**
   * Retries of a delivery the target refused.
   * @default 185 (EventBridge's maximum), unless the target brings its own retry policy
   */
  readonly retryAttempts?: number;
  /**
   * How long EventBridge keeps retrying a delivery.
   * @default Duration.hours(24), unless the target brings its own retry policy
   */
  readonly maxEventAge?: Duration;
  /**
   * A Lambda function that consumes the events through a queue of its own (`<id>Queue`): it reads
   * them in batches with partial batch failures, and an event it fails `consumerMaxReceiveCount`
   * times ends in the dead-letter queue, whose alarm goes off. Prefer it to a Lambda `target`:
   * EventBridge invokes a target function asynchronously, and an event the function throws on is
   * retried twice by Lambda and then dropped. Not with `target`.
   * @default - none: `target` is the rule's target
   */
  readonly consumer?: lambda.IFunction;
  /**
   * Receives of an event by `consumer` before it goes to the dead-letter queue.
   * @default 5
   */
  readonly consumerMaxReceiveCount?: number;
  /**
   * Events `consumer` gets in one invocation (1 to 10).
   * @default 10
   */
  readonly consumerBatchSize?: number;
  /**
   * With `consumer`: the roles that may send to its queue besides this rule (who moves failed
   * events back from the dead-letter queue); the queue denies `sqs:SendMessage` to everyone else.
   * Its bodies are read as verified events, so the receiver's `operatorRoles` are not senders here
   * unless named again.
   * @default - none: only the rule delivers (a redrive needs a role named here)
   */
  readonly operatorRoles?: iam.IRole[];
  /**
   * Told when the rule's dead-letter queue alarm goes off and clears.
   * @default - the receiver's alarmTopic
   */
  readonly alarmTopic?: sns.ITopic;
}

/** The event pattern that matches one account's events: boleto events by beneficiary, payment events by account number. */
function accountPattern(account: BankAccount): Record<string, unknown> {
  return {
    cooperativa: [account.cooperativa],
    $or: [{ codigoBeneficiario: [account.codigoBeneficiario] }, { conta: [account.conta] }],
  };
}

/**
 * An encrypted dead-letter queue for a rule's target (the consumers' rules', the audit log's):
 * SSE-SQS, or SSE-KMS under `key`, which EventBridge is then granted to encrypt with.
 */
export function targetDeadLetterQueue(scope: Construct, id: string, key?: kms.IKey): sqs.Queue {
  const encryption = key
    ? { encryption: sqs.QueueEncryption.KMS, encryptionMasterKey: key }
    : { encryption: sqs.QueueEncryption.SQS_MANAGED };
  const queue = new sqs.Queue(scope, id, {
    ...encryption,
    enforceSSL: true,
    retentionPeriod: Duration.seconds(ProcessorDefaults.queueRetentionSeconds),
  });
  // EventBridge encrypts what it sends with the key: for this account's rules only (no confused deputy).
  key?.addToResourcePolicy(
    new iam.PolicyStatement({
      principals: [new iam.ServicePrincipal('events.amazonaws.com')],
      actions: ['kms:GenerateDataKey', 'kms:Decrypt'],
      resources: ['*'],
      conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(scope).account } },
    }),
  );
  Validations.of(queue).acknowledge({
    id: 'AwsSolutions::AwsSolutions-SQS3',
    reason:
      'This queue is the dead-letter queue of an EventBridge rule target: what lands here is read and redriven by an operator, not consumed again.',
  });
  acknowledgeInherent(
    queue,
    'SQSRedrivePolicy',
    'This queue is the dead-letter queue of an EventBridge rule target: it is the end of the line, read and redriven by an operator.',
  );
  return queue;
}

/**
 * A rule target with a dead-letter queue and a retry policy: EventBridge otherwise drops an
 * event after 24 hours of failed deliveries, and a consumer of settlements must not lose one.
 */
export class WithDeliveryGuarantees implements events.IRuleTarget {
  constructor(
    private readonly inner: events.IRuleTarget,
    private readonly deadLetterQueue: sqs.IQueue,
    private readonly retryAttempts: number,
    private readonly maxEventAge: Duration,
  ) {}

  /** Whether the target took the rule's dead-letter queue (it brought none of its own); known once bound. */
  public usedOwnDeadLetterQueue = false;

  public bind(rule: events.IRule, id?: string): events.RuleTargetConfig {
    const config = this.inner.bind(rule, id);
    this.usedOwnDeadLetterQueue = !config.deadLetterConfig;
    if (!config.deadLetterConfig) addToDeadLetterQueueResourcePolicy(rule, this.deadLetterQueue);
    return {
      ...config,
      deadLetterConfig: config.deadLetterConfig ?? { arn: this.deadLetterQueue.queueArn },
      retryPolicy: config.retryPolicy ?? {
        maximumRetryAttempts: this.retryAttempts,
        maximumEventAgeInSeconds: this.maxEventAge.toSeconds(),
      },
    };
  }
}
