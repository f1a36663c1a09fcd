import {
  type ConfigurationWatchSettings,
  type PixSweepSettings,
  SweepDefaults,
  type SweepSettings,
  type WatchSettings,
} from '../../contracts/reconciliation';
import { UNNAMED_RECEIVER } from '../../contracts/receiver';

/** What the sweep works on: the processor's table and queue. */
export type SweepResources = Pick<SweepSettings, 'idempotencyTableName' | 'queueUrl'>;

/** How it works, where it differs from the defaults. */
export interface SweepTuning {
  readonly lookbackDays?: number;
  readonly paymentMaxAgeDays?: number;
  readonly maxPaymentLooksPerSweep?: number;
  /** @default UNNAMED_RECEIVER (a stack always names its receiver) */
  readonly receiverName?: string;
  /** The registrations to watch. @default none */
  readonly watch?: WatchSettings;
  /** The Pix listing to read, with a Pix receiver. @default none */
  readonly pix?: PixSweepSettings;
  /** The configuration watch. @default none */
  readonly configuration?: ConfigurationWatchSettings;
}

/**
 * The settings the sweep function gets, every default filled: the one place they are resolved
 * (the construct writes them; the bench uses the same).
 */
export function sweepSettings(resources: SweepResources, tuning: SweepTuning = {}): SweepSettings {
  return {
    idempotencyTableName: resources.idempotencyTableName,
    queueUrl: resources.queueUrl,
    lookbackDays: tuning.lookbackDays ?? SweepDefaults.lookbackDays,
    paymentMaxAgeDays: tuning.paymentMaxAgeDays ?? SweepDefaults.paymentMaxAgeDays,
    maxPaymentLooksPerSweep: tuning.maxPaymentLooksPerSweep ?? SweepDefaults.maxPaymentLooksPerSweep,
    maxListingCallsPerSweep: SweepDefaults.maxListingCallsPerSweep,
    maxListingPage: SweepDefaults.maxListingPage,
    safetyMarginMs: SweepDefaults.safetyMarginMs,
    receiverName: tuning.receiverName ?? UNNAMED_RECEIVER,
    ...(tuning.watch ? { watch: tuning.watch } : {}),
    ...(tuning.pix ? { pix: tuning.pix } : {}),
    ...(tuning.configuration ? { configuration: tuning.configuration } : {}),
  };
}
