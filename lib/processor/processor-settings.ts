import { Token } from 'aws-cdk-lib';
import { ProcessorDefaults, type ProcessorSettings } from '../../contracts/processor';
import { UNNAMED_RECEIVER } from '../../contracts/receiver';
import { minimumVisibilitySeconds } from '../core/timing';
import type {
  BoletoMovementMappingProps,
  BoletoStatusMappingProps,
  PaymentStatusMappingProps,
} from './status-mappings';

/** What the processor works on: its bus, table and queues. */
export type ProcessorResources = Pick<
  ProcessorSettings,
  | 'eventBusName'
  | 'idempotencyTableName'
  | 'quarantineQueueUrl'
  | 'queueUrl'
  | 'lookQueueUrl'
  | 'lookQuarantineQueueUrl'
  | 'journalBucketName'
  | 'ownSenderId'
>;

/** How it works, where it differs from the defaults. */
export interface ProcessorTuning {
  readonly eventSource?: string;
  /** @default UNNAMED_RECEIVER (a stack always names its receiver) */
  readonly receiverName?: string;
  readonly idempotencyTtlSeconds?: number;
  readonly maxReceiveCount?: number;
  readonly maxVerificationAttempts?: number;
  /** The notification queue's visibility timeout: how long a receive waits for the next. @default the least an SQS event source needs at the default timeout (minimumVisibilitySeconds) */
  readonly queueVisibilityTimeoutSeconds?: number;
  readonly safetyMarginMs?: number;
  readonly recoveredGraceSeconds?: number;
  readonly lookQueryShare?: number;
  readonly boletoStatuses?: BoletoStatusMappingProps;
  readonly boletoMovements?: BoletoMovementMappingProps;
  readonly paymentStatuses?: PaymentStatusMappingProps;
}

/**
 * The settings the processor function gets, every default filled: the one place they are
 * resolved (the construct writes them; the local harnesses and the bench use the same).
 */
export function processorSettings(resources: ProcessorResources, tuning: ProcessorTuning = {}): ProcessorSettings {
  const maxReceiveCount = tuning.maxReceiveCount ?? ProcessorDefaults.maxReceiveCount;
  const maxVerificationAttempts = tuning.maxVerificationAttempts ?? defaultVerificationAttempts(maxReceiveCount);
  return {
    eventBusName: resources.eventBusName,
    eventSource: tuning.eventSource ?? ProcessorDefaults.eventSource,
    receiverName: tuning.receiverName ?? UNNAMED_RECEIVER,
    idempotencyTableName: resources.idempotencyTableName,
    idempotencyTtlSeconds: tuning.idempotencyTtlSeconds ?? ProcessorDefaults.idempotencyTtlSeconds,
    quarantineQueueUrl: resources.quarantineQueueUrl,
    queueUrl: resources.queueUrl,
    lookQueueUrl: resources.lookQueueUrl,
    lookQuarantineQueueUrl: resources.lookQuarantineQueueUrl,
    ownSenderId: resources.ownSenderId,
    maxReceiveCount,
    maxVerificationAttempts,
    verificationWindowSeconds: verificationWindowSeconds(
      maxVerificationAttempts,
      tuning.queueVisibilityTimeoutSeconds ?? minimumVisibilitySeconds(undefined, undefined),
    ),
    safetyMarginMs: tuning.safetyMarginMs ?? ProcessorDefaults.safetyMarginMs,
    recoveredGraceSeconds: tuning.recoveredGraceSeconds ?? ProcessorDefaults.recoveredGraceSeconds,
    lookQueryShare: tuning.lookQueryShare ?? ProcessorDefaults.lookQueryShare,
    ...(resources.journalBucketName ? { journalBucketName: resources.journalBucketName } : {}),
    boletoStatuses: { ...ProcessorDefaults.boletoStatuses, ...tuning.boletoStatuses },
    boletoMovements: { ...ProcessorDefaults.boletoMovements, ...tuning.boletoMovements },
    paymentStatuses: { ...ProcessorDefaults.paymentStatuses, ...tuning.paymentStatuses },
  };
}

/** How long maxVerificationAttempts receives take at the least: the first, then each after a visibility timeout. */
export function verificationWindowSeconds(maxVerificationAttempts: number, visibilityTimeoutSeconds: number): number {
  if (Token.isUnresolved(maxVerificationAttempts) || Token.isUnresolved(visibilityTimeoutSeconds)) return 0;
  return Math.max(0, maxVerificationAttempts - 1) * visibilityTimeoutSeconds;
}

/** 3, or fewer when maxReceiveCount leaves less room (the last verification must come before the DLQ). */
function defaultVerificationAttempts(maxReceiveCount: number): number {
  if (Token.isUnresolved(maxReceiveCount)) return ProcessorDefaults.maxVerificationAttempts;
  return Math.max(1, Math.min(ProcessorDefaults.maxVerificationAttempts, maxReceiveCount - 1));
}
