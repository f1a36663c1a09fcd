import { ArnFormat, Duration, Names, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { AuditLogDefaults } from '../../contracts/operations';
import { allowLogsToUse } from '../core/log-encryption';
import { Runbook, thresholdAlarm } from '../core/alarms';
import { QueueSenders } from '../core/queue-senders';
import { guardRule } from '../core/configuration-guard';
import { targetDeadLetterQueue, WithDeliveryGuarantees } from '../core/verified-event-rule';
import type { PropsValidation } from '../core/props-validation';

/**
 * The audit log: every event of the receiver's source that reaches its bus, kept by the bus itself
 * (a rule whose target is a log group), a record the processor does not write.
 * `cdk-bank-webhooks audit` reads it beside the journal (cdk-bank-webhooks/docs/guarantees.md).
 */
export interface AuditLogOptions {
  /**
   * Whether a rule on the bus keeps every event of the receiver's source in a log group of its
   * own, for `cdk-bank-webhooks audit`. It costs CloudWatch Logs' ingestion and storage (an event
   * is about 2 KB), and one of the region's CloudWatch Logs resource policies (10 per account).
   * @default false
   */
  readonly enabled?: boolean;

  /**
   * How long the log keeps each event. `audit` reads no further back than the records remember
   * (the processor's idempotencyTtl), so a retention at least that long is enough for it.
   * @default logs.RetentionDays.ONE_YEAR
   */
  readonly retention?: logs.RetentionDays;
}

/** Checks AuditLogOptions: a retention CloudWatch Logs has. */
export function checkAuditLogOptions(v: PropsValidation, options: AuditLogOptions | undefined): void {
  if (options?.retention === undefined) return;
  v.check(
    Object.values(logs.RetentionDays).includes(options.retention),
    'auditLog.retention',
    `must be one of logs.RetentionDays, got ${String(options.retention)}`,
  );
}

export interface AuditLogParts {
  readonly logGroup: logs.LogGroup;
  readonly rule: events.Rule;
  /** Where EventBridge puts an event it could not write to the log after its retries. */
  readonly deadLetterQueue: sqs.Queue;
  /** Alarm: events the audit log misses are in its dead-letter queue. */
  readonly deadLetterQueueAlarm: cloudwatch.Alarm;
}

/**
 * Makes the audit log in `scope`: the log group `AuditLog` (under the logs key), the rule
 * `AuditRule` on `bus` that sends it every event of `source`, the resource policy that lets that
 * rule alone write it (the account's other rules and principals get no write from it), and the
 * rule's dead-letter queue (under the queues' key) with its alarm.
 */
export function createAuditLog(
  scope: Construct,
  options: AuditLogOptions,
  bus: events.IEventBus,
  source: string,
  keys: { readonly logs?: kms.IKey; readonly queues?: kms.IKey },
  removalPolicy = RemovalPolicy.RETAIN,
): AuditLogParts {
  const key = keys.logs;
  allowLogsToUse(scope, key);
  const logGroup = new logs.LogGroup(scope, 'AuditLog', {
    retention: options.retention ?? AuditLogDefaults.retentionDays,
    encryptionKey: key,
    removalPolicy,
  });
  // The target is the group's ARN without the `:*` of its streams, as EventBridge takes it.
  const target = Stack.of(scope).formatArn({
    service: 'logs',
    resource: 'log-group',
    resourceName: logGroup.logGroupName,
    arnFormat: ArnFormat.COLON_RESOURCE_NAME,
  });
  // Retried for a day, then kept in a dead-letter queue of its own (alarmed): the log misses nothing silently.
  const deadLetterQueue = targetDeadLetterQueue(scope, 'AuditDeadLetterQueue', keys.queues);
  const rule = new events.Rule(scope, 'AuditRule', {
    eventBus: bus,
    description: "Keeps every event of the receiver's source in its audit log (cdk-bank-webhooks audit)",
    eventPattern: { source: [source] },
    targets: [new WithDeliveryGuarantees({ bind: () => ({ arn: target }) }, deadLetterQueue, 185, Duration.hours(24))],
  });
  QueueSenders.guard(deadLetterQueue).addRule(rule);
  guardRule(rule, bus);
  const deadLetterQueueAlarm = thresholdAlarm(scope, 'AuditDeadLetterQueueAlarm', {
    runbook: Runbook.AUDIT_DEAD_LETTER_QUEUE,
    description:
      "Events EventBridge could not write to the audit log in a day of retries are in its dead-letter queue: the log misses them, and audit over their window names them. Read the queue, fix the cause (the log key's policy, the log group), keep the messages with the audit.",
    metric: deadLetterQueue.metricApproximateNumberOfMessagesVisible({
      period: Duration.minutes(1),
      statistic: cloudwatch.Stats.MAXIMUM,
    }),
  });
  new logs.ResourcePolicy(scope, 'AuditLogPolicy', {
    resourcePolicyName: `cdk-bank-webhooks-audit-${Names.uniqueId(logGroup).slice(-40)}`,
    policyStatements: [
      new iam.PolicyStatement({
        sid: 'OnlyTheAuditRuleWrites',
        principals: [
          new iam.ServicePrincipal('events.amazonaws.com'),
          new iam.ServicePrincipal('delivery.logs.amazonaws.com'),
        ],
        actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        resources: [logGroup.logGroupArn],
        conditions: { ArnEquals: { 'aws:SourceArn': rule.ruleArn } },
      }),
    ],
  });
  return { logGroup, rule, deadLetterQueue, deadLetterQueueAlarm };
}
