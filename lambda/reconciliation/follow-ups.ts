/**
 * What the sweep follows besides its listings: the subjects the processor keeps in the index of
 * pending subjects (payments not final, and a family's subjects it follows until final, such as
 * Pix Automático's), each looked at again by a look request.
 */
import { createHash, randomUUID } from 'node:crypto';
import { EventTrigger } from '../../contracts/events';
import { LookDefaults, type LookSubject, SweepMetric, type SweepSettings } from '../../contracts/reconciliation';
import { encodeLookRequest, paymentOfSubjectId } from '../store/look-request';
import type { LookMarkers } from '../store/look-markers';
import type { PendingPayment } from '../store/pending-payments';
import type { Log } from '../shared/runtime';

/** What following the pending subjects needs. */
export interface FollowUpDeps {
  readonly settings: SweepSettings;
  readonly pendingPayments: {
    /** Every payment in the index, oldest first. */
    list(): AsyncIterable<PendingPayment>;
    /** Takes a payment out of the index (it stays pending at the bank, past the maximum age). */
    giveUp(payment: PendingPayment): Promise<void>;
  };
  /**
   * The subject a pending-index id names when it is not a payment, and how often it is re-read (a
   * Pix Automático recurrence: once a day, never given up for age). @default payments only
   */
  readonly followed?: (subjectId: string) => { subject: LookSubject; everyMinutes?: number } | undefined;
  /** Which subjects have a look in flight: a pending payment's look is sent only by the sweep that takes its marker. */
  readonly markers: LookMarkers;
  /** A new look id (a marker's owner). @default crypto.randomUUID */
  readonly newLookId?: () => string;
  /** Sends look requests (message bodies) to the processor's queue. */
  readonly send: (messageBodies: readonly string[]) => Promise<void>;
  /** Counts a metric (or records `value`, in milliseconds when `milliseconds`). */
  readonly count: (metric: string, value?: number, milliseconds?: boolean) => void;
  readonly logger: Log;
  readonly now?: () => number;
}

/** The least time worth starting another page with. */
const MIN_STEP_MS = 2_000;

/** The sweep ran out of time: the next one resumes from the cursors. */
export class OutOfTime extends Error {}

/** Throws {@link OutOfTime} when less than a step's time is left. */
export function checkTime(deps: { readonly now?: () => number }, deadline: number): void {
  if (deadline - (deps.now ?? Date.now)() < MIN_STEP_MS) throw new OutOfTime();
}

/**
 * Whether a subject re-read every `everyMinutes` is due at this sweep: of the sweeps in that
 * period (one every `intervalMinutes`), the one its id picks, so the re-reads spread evenly. A
 * sweep that fails leaves its share for the next period.
 */
export function followedNow(
  subjectId: string,
  everyMinutes: number,
  intervalMinutes: number | undefined,
  at: number,
): boolean {
  if (!intervalMinutes || intervalMinutes >= everyMinutes) return true;
  const sweeps = Math.round(everyMinutes / intervalMinutes);
  const slot = createHash('sha256').update(subjectId).digest().readUInt32BE(0) % sweeps;
  return Math.floor(at / (intervalMinutes * 60_000)) % sweeps === slot;
}

/**
 * Every pending payment is looked at again, the oldest first, up to the per-sweep cap; a payment
 * whose last look is still in flight (its marker held) is not sent another; those older than the
 * maximum age are given up.
 */
export async function sweepPayments(
  deps: FollowUpDeps,
  deadline: number,
  report: { paymentsToVerify: number; paymentsGivenUp: number },
): Promise<void> {
  const now = deps.now ?? Date.now;
  const newLookId = deps.newLookId ?? randomUUID;
  const maxAgeMs = deps.settings.paymentMaxAgeDays * 86_400_000;
  let batch: string[] = [];
  let inFlight = 0;
  let capped = 0;
  const flush = async () => {
    if (batch.length) await deps.send(batch);
    report.paymentsToVerify += batch.length;
    batch = [];
  };
  for await (const payment of deps.pendingPayments.list()) {
    checkTime(deps, deadline);
    const asPayment = paymentOfSubjectId(payment.subjectId);
    const followed = asPayment ? { subject: asPayment } : deps.followed?.(payment.subjectId);
    if (!followed) continue;
    const { subject, everyMinutes } = followed;
    if (everyMinutes !== undefined) {
      if (!followedNow(payment.subjectId, everyMinutes, deps.settings.pix?.intervalMinutes, now())) continue;
    } else if (now() - payment.pendingSince > maxAgeMs) {
      await deps.pendingPayments.giveUp(payment);
      report.paymentsGivenUp++;
      deps.count(SweepMetric.PAYMENTS_GIVEN_UP);
      deps.logger.warn('A payment stayed pending past the maximum age; the sweep no longer queries it', {
        subject: payment.subjectId,
        pendingSince: new Date(payment.pendingSince).toISOString(),
        paymentMaxAgeDays: deps.settings.paymentMaxAgeDays,
      });
      continue;
    }
    if (report.paymentsToVerify + batch.length >= deps.settings.maxPaymentLooksPerSweep) {
      capped++;
      continue;
    }
    const lookId = newLookId();
    if (!(await deps.markers.claim(payment.subjectId, lookId, now() + LookDefaults.markerSeconds * 1000, now()))) {
      inFlight++;
      continue;
    }
    batch.push(
      encodeLookRequest({
        trigger: EventTrigger.RECONCILIATION,
        subject,
        requestedAt: new Date(now()).toISOString(),
        reason: `the ${subject.kind === 'payment' ? 'payment' : 'subject'} was last seen not final`,
        lookId,
      }),
    );
    if (batch.length >= 10) await flush();
  }
  await flush();
  if (inFlight) deps.count(SweepMetric.PAYMENT_LOOKS_IN_FLIGHT, inFlight);
  if (capped) {
    deps.count(SweepMetric.PAYMENT_LOOKS_CAPPED, capped);
    deps.logger.warn('More payments are pending than one sweep sends looks for; the newest wait for the next sweep', {
      sent: report.paymentsToVerify,
      leftForNextSweep: capped,
      maxPaymentLooksPerSweep: deps.settings.maxPaymentLooksPerSweep,
    });
  }
}
