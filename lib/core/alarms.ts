import { Annotations, Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as cloudwatchActions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';

/**
 * The section of cdk-bank-webhooks/docs/operations.md ("Runbooks") that says how to diagnose and fix what an alarm
 * tells: every alarm's description names its own (a test holds each to a heading there).
 */
export enum Runbook {
  DEAD_LETTER_QUEUE = 'deadletterqueuealarm',
  LOOK_DEAD_LETTER_QUEUE = 'lookdeadletterqueuealarm',
  OLDEST_MESSAGE = 'oldestmessagealarm',
  LOOK_AGE = 'lookagealarm',
  PROCESSOR_ERRORS = 'processorerrorsalarm',
  JOURNAL = 'journalalarm',
  UNAUTHORIZED_REQUESTS = 'unauthorizedrequestsalarm',
  SILENCE = 'silencealarm',
  PIX_CERTIFICATE_EXPIRY = 'pixcertificateexpiryalarm',
  RECOVERED = 'recoveredalarm',
  SWEEP_ERRORS = 'sweeperrorsalarm',
  REGISTRATION_DRIFT = 'registrationdriftalarm',
  REGISTRATION_CONTESTED = 'registrationcontestedalarm',
  REGISTRATION_RECORD = 'registrationrecordalarm',
  CONFIGURATION_DRIFT = 'configurationdriftalarm',
  CONSUMER_DEAD_LETTER_QUEUE = 'consumer-deadletterqueuealarm',
  AUDIT_DEAD_LETTER_QUEUE = 'auditdeadletterqueuealarm',
}

/** Where a runbook is, as an alarm's description names it. */
export function runbookLink(runbook: Runbook): string {
  return `cdk-bank-webhooks/docs/operations.md#${runbook}`;
}

/** What differs between the library's alarms. */
export interface ThresholdAlarmOptions {
  /** @default - CloudFormation names it */
  readonly alarmName?: string;
  readonly description: string;
  /** The runbook section, appended to the description. */
  readonly runbook: Runbook;
  readonly metric: cloudwatch.IMetric;
  /** @default 1 */
  readonly threshold?: number;
  /** @default 1 */
  readonly evaluationPeriods?: number;
  /** @default GREATER_THAN_OR_EQUAL_TO_THRESHOLD */
  readonly comparisonOperator?: cloudwatch.ComparisonOperator;
  /** @default NOT_BREACHING */
  readonly treatMissingData?: cloudwatch.TreatMissingData;
}

/**
 * An alarm of the library, made the one way they all are: in ALARM when the metric reaches the
 * threshold in every evaluated period (a period without data not breaching, unless said), its
 * description ending with its runbook.
 */
export function thresholdAlarm(scope: Construct, id: string, options: ThresholdAlarmOptions): cloudwatch.Alarm {
  const evaluationPeriods = options.evaluationPeriods ?? 1;
  return new cloudwatch.Alarm(scope, id, {
    alarmName: options.alarmName,
    alarmDescription: `${options.description} Runbook: ${runbookLink(options.runbook)}`,
    metric: options.metric,
    threshold: options.threshold ?? 1,
    evaluationPeriods,
    datapointsToAlarm: evaluationPeriods > 1 ? evaluationPeriods : undefined,
    comparisonOperator: options.comparisonOperator ?? cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    treatMissingData: options.treatMissingData ?? cloudwatch.TreatMissingData.NOT_BREACHING,
  });
}

/** Tells `topic` when each alarm goes off and when it clears (nothing without a topic). */
export function notifyOn(topic: sns.ITopic | undefined, alarms: ReadonlyArray<cloudwatch.Alarm | undefined>): void {
  if (!topic) return;
  const action = new cloudwatchActions.SnsAction(topic);
  for (const alarm of alarms) {
    alarm?.addAlarmAction(action);
    alarm?.addOkAction(action);
  }
}

/** Stacks already warned that their alarms notify nobody. */
const warnedStacks = new WeakSet<Stack>();

/** Warns at synth, once per stack, when the library's alarms there have no topic to notify. */
export function warnWithoutAlarmTopic(scope: Construct, topic: sns.ITopic | undefined): void {
  const stack = Stack.of(scope);
  if (topic || warnedStacks.has(stack)) return;
  warnedStacks.add(stack);
  Annotations.of(scope).addWarningV2(
    'cdk-bank-webhooks:noAlarmTopic',
    'No alarmTopic: the alarms of cdk-bank-webhooks in this stack (dead-letter queue, oldest message, processor errors, refused tokens, lost notifications recovered, registration drift) notify nobody. Pass an SNS topic someone reads as alarmTopic.',
  );
}
