import { Annotations, Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as cloudwatchActions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';

/** What differs between the library's alarms. */
export interface ThresholdAlarmOptions {
  readonly description: string;
  readonly metric: cloudwatch.IMetric;
  /** @default 1 */
  readonly threshold?: number;
  /** @default 1 */
  readonly evaluationPeriods?: number;
}

/**
 * An alarm of the library, made the one way they all are: in ALARM when the metric reaches the
 * threshold in every evaluated period, a period without data not breaching.
 */
export function thresholdAlarm(scope: Construct, id: string, options: ThresholdAlarmOptions): cloudwatch.Alarm {
  return new cloudwatch.Alarm(scope, id, {
    alarmDescription: options.description,
    metric: options.metric,
    threshold: options.threshold ?? 1,
    evaluationPeriods: options.evaluationPeriods ?? 1,
    comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
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
  Annotations.of(scope).addWarningV2('cdk-bank-webhooks:noAlarmTopic',
    'No alarmTopic: the alarms of cdk-bank-webhooks in this stack (dead-letter queue, oldest message, processor errors, refused tokens, lost notifications recovered, registration drift) notify nobody. Pass an SNS topic someone reads as alarmTopic.');
}
