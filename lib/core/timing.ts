/**
 * The timing rules the parts share: how long a queue hides a message from the processor that
 * reads it, and how long a subject's record must live for "one event per change" to hold.
 */
import { Duration } from 'aws-cdk-lib';
import { ProcessorDefaults } from '../../contracts/processor';
import { isWholeNumberIn, type PropsValidation } from './props-validation';

/**
 * Checks a record lifetime: at least the queues' retention plus the reconciliation's look-back
 * (a message redriven from the dead-letter queue, or a day the sweep reads again, must still find
 * the record), and longer than the payment age the sweep follows a pending payment for.
 */
export function checkIdempotencyTtl(
  v: PropsValidation,
  ttl: Duration | undefined,
  lookbackDays: number,
  paymentMaxAgeDays: number,
): void {
  if (!ttl) return;
  const minimum = minIdempotencyTtlSeconds(lookbackDays, paymentMaxAgeDays);
  const why =
    lookbackDays || paymentMaxAgeDays
      ? `the queues' 14-day retention plus the reconciliation's ${lookbackDays}-day look-back, and more than its ${paymentMaxAgeDays}-day payment age`
      : "the queues' 14-day retention";
  v.checkNumber(
    ttl.toSeconds(),
    'idempotencyTtl',
    isWholeNumberIn(minimum, 366 * 24 * 3600),
    `must be from ${minimum / 86_400} days (${why}: a record gone sooner lets a redriven or re-read change be published twice) to 366 days (seconds)`,
  );
}

/**
 * Shortest record lifetime that keeps "one event per change": a message can come back from the
 * dead-letter queue after the queues' retention, the reconciliation sweep re-reads the last
 * `lookbackDays` days, and a pending payment's record is what keeps it in the sweep's index for
 * `paymentMaxAgeDays`.
 */
export function minIdempotencyTtlSeconds(lookbackDays: number, paymentMaxAgeDays: number): number {
  return Math.max(ProcessorDefaults.queueRetentionSeconds + lookbackDays * 86_400, (paymentMaxAgeDays + 1) * 86_400);
}

/** The AWS rule for SQS event sources: visibility timeout at least 6 × function timeout + batching window. */
export function minimumVisibilitySeconds(
  timeout: Duration | undefined,
  maxBatchingWindow: Duration | undefined,
): number {
  return (
    6 * (timeout ?? Duration.seconds(ProcessorDefaults.timeoutSeconds)).toSeconds() +
    (maxBatchingWindow?.toSeconds() ?? 0)
  );
}
