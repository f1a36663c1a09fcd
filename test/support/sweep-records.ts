/** The sweep's settings as its unit tests start from: generous caps, a short look-back. */
import type { SweepSettings } from '../../contracts/reconciliation';

export const sweepTestSettings = (lookbackDays: number, more: Partial<SweepSettings> = {}): SweepSettings => ({
  idempotencyTableName: 't',
  queueUrl: 'q',
  lookbackDays,
  paymentMaxAgeDays: 7,
  maxPaymentLooksPerSweep: 1_000,
  maxListingCallsPerSweep: 1_000,
  maxListingPage: 1_000,
  safetyMarginMs: 10_000,
  receiverName: 'r',
  ...more,
});
