import { Duration, Validations } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import { addToDeadLetterQueueResourcePolicy } from 'aws-cdk-lib/aws-events-targets';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import type { BankAccount } from '../../contracts/bank-connection';
import type { BankEventDetailType } from '../../contracts/events';
import { ProcessorDefaults } from '../../contracts/processor';
import { acknowledgeInherent } from './compliance';

/** Where the verified events are: the bus, their source and the account they carry. */
export interface VerifiedEventSource {
  readonly eventBus: events.IEventBus;
  readonly eventSource: string;
  readonly account: BankAccount;
}

/**
 * A rule on `source.eventBus` matching the verified events of one detail type for one account,
 * with delivery guarantees on its target (see BankWebhookReceiver.onVerifiedEvent).
 */
export function verifiedEventRule(owner: Construct, source: VerifiedEventSource, id: string, detailType: BankEventDetailType, options: VerifiedEventRuleOptions): events.Rule {
  const scope = options.scope ?? owner;
  const detail = options.allAccounts ? options.eventPattern?.detail : { ...options.eventPattern?.detail, account: accountPattern(source.account) };
  const rule = new events.Rule(scope, id, {
    eventBus: source.eventBus,
    description: options.description ?? `Verified bank events: ${detailType}`,
    ruleName: options.ruleName,
    crossStackScope: options.crossStackScope,
    eventPattern: { ...options.eventPattern, source: [source.eventSource], detailType: [detailType], ...(detail ? { detail } : {}) },
  });
  if (options.target) {
    const deadLetterQueue = options.deadLetterQueue ?? targetDeadLetterQueue(scope, `${id}DeadLetterQueue`);
    rule.addTarget(new WithDeliveryGuarantees(options.target, deadLetterQueue, options.retryAttempts ?? 185, options.maxEventAge ?? Duration.hours(24)));
  }
  return rule;
}

/** Options of {@link BankWebhookReceiver.onVerifiedEvent}. */
export interface VerifiedEventRuleOptions extends events.OnEventOptions {
  /**
   * Where the rule (and its target's dead-letter queue) is created, such as a construct in a
   * consumer's stack: the consumer's stack then depends on the receiver's, never the reverse.
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
}

/** The event pattern that matches one account's events: boleto events by beneficiary, payment events by account number. */
function accountPattern(account: BankAccount): Record<string, unknown> {
  return { cooperativa: [account.cooperativa], $or: [{ codigoBeneficiario: [account.codigoBeneficiario] }, { conta: [account.conta] }] };
}

function targetDeadLetterQueue(scope: Construct, id: string): sqs.Queue {
  const queue = new sqs.Queue(scope, id, { encryption: sqs.QueueEncryption.SQS_MANAGED, enforceSSL: true, retentionPeriod: Duration.seconds(ProcessorDefaults.queueRetentionSeconds) });
  Validations.of(queue).acknowledge({
    id: 'AwsSolutions::AwsSolutions-SQS3',
    reason: 'This queue is the dead-letter queue of an EventBridge rule target: what lands here is read and redriven by an operator, not consumed again.',
  });
  acknowledgeInherent(queue, 'SQSRedrivePolicy', 'This queue is the dead-letter queue of an EventBridge rule target: it is the end of the line, read and redriven by an operator.');
  return queue;
}

/**
 * A rule target with a dead-letter queue and a retry policy: EventBridge otherwise drops an
 * event after 24 hours of failed deliveries, and a consumer of settlements must not lose one.
 */
class WithDeliveryGuarantees implements events.IRuleTarget {
  constructor(
    private readonly inner: events.IRuleTarget,
    private readonly deadLetterQueue: sqs.IQueue,
    private readonly retryAttempts: number,
    private readonly maxEventAge: Duration,
  ) {}

  public bind(rule: events.IRule, id?: string): events.RuleTargetConfig {
    const config = this.inner.bind(rule, id);
    if (!config.deadLetterConfig) addToDeadLetterQueueResourcePolicy(rule, this.deadLetterQueue);
    return {
      ...config,
      deadLetterConfig: config.deadLetterConfig ?? { arn: this.deadLetterQueue.queueArn },
      retryPolicy: config.retryPolicy ?? { maximumRetryAttempts: this.retryAttempts, maximumEventAgeInSeconds: this.maxEventAge.toSeconds() },
    };
  }
}

