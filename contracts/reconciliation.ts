/**
 * The contract between the reconciliation sweep's construct, its function and the processor:
 * the sweep's settings and their defaults, the look request it puts in the processor's queue,
 * the items it keeps in the processor's table, the metrics it emits, and what one run answers.
 * Every side imports this module; the registration watch's names are watch.ts's, re-exported here.
 */
import type { EventTrigger } from './events';
import type { PaymentType } from './bank-connection';
import type { WatchFinding, WatchSettings } from './watch';
import type { ConfigurationWatchReport, ConfigurationWatchSettings } from './configuration-drift';

export * from './watch';
export * from './configuration-drift';

/** The sweep's `service` (logs and metric dimension). */
export const RECONCILIATION_SERVICE_NAME = 'bank-webhook-reconciliation';

/** Environment variable holding the JSON of {@link SweepSettings}. */
export const SWEEP_SETTINGS_ENV = 'BANK_WEBHOOKS_SWEEP_SETTINGS';

export const SweepDefaults = {
  /** Minutes between two sweeps. */
  intervalMinutes: 15,
  /** Days before the bank's today whose settlements are read again (today and the last N). */
  lookbackDays: 3,
  /** Days a payment seen in a non-final status is queried again before it is given up. */
  paymentMaxAgeDays: 7,
  /** The sweep's function timeout, in seconds: a sweep cut short resumes from its cursors. */
  timeoutSeconds: 300,
  /** Time kept free at the end of a sweep to save its cursors and report, in milliseconds. */
  safetyMarginMs: 10_000,
  /** Pending payments one sweep sends a look for at most (the oldest first); the rest wait for the next sweep. */
  maxPaymentLooksPerSweep: 1_000,
  /** Listing calls one sweep makes at most (a listing that never ends must not spend the budget); the next sweep resumes from the cursors. */
  maxListingCallsPerSweep: 1_000,
  /** The last page of a day read: past it (500,000 settlements a day at the manual's page), the listing is not believed. */
  maxListingPage: 1_000,
} as const;

/** How looks at one subject are kept from multiplying (look markers, lambda/store/look-markers.ts). */
export const LookDefaults = {
  /**
   * How long a look in flight (queued, deferred or being processed) holds its subject's marker
   * when nothing releases it (a look lost to a crash): no other look of the subject is sent or
   * started until then. Each deferral holds it again from the time it is sent back.
   */
  markerSeconds: 6 * 3600,
  /**
   * How long a payment a Track Payment event names is asked for again while the bank does not
   * know it (a payment started a moment ago), before it is quarantined once.
   */
  unknownPaymentWindowSeconds: 600,
  /** The first wait before asking the bank again about a payment it did not know; each next wait doubles. */
  unknownPaymentFirstRetrySeconds: 60,
} as const;

/** The sweep's settings, as the construct writes them in the function's environment. */
export interface SweepSettings {
  readonly idempotencyTableName: string;
  /** The processor's look queue: look requests go there. */
  readonly queueUrl: string;
  readonly lookbackDays: number;
  readonly paymentMaxAgeDays: number;
  /** Pending payments one sweep sends a look for at most, the oldest first. */
  readonly maxPaymentLooksPerSweep: number;
  /** Listing calls one sweep makes at most. */
  readonly maxListingCallsPerSweep: number;
  /** The last page number of a day the sweep asks for. */
  readonly maxListingPage: number;
  readonly safetyMarginMs: number;
  /** The receiver's name (its processor's): the `receiver` dimension of its metrics. */
  readonly receiverName: string;
  /** The registration watch, when the stack registers with the bank. */
  readonly watch?: WatchSettings;
  /** The configuration watch (drift detection of the stack's own security-relevant resources). @default none */
  readonly configuration?: ConfigurationWatchSettings;
  /** The Pix sweep, when the receiver has Pix. */
  readonly pix?: PixSweepSettings;
}

/**
 * How the sweep reads the standard Pix API's listing (`GET /pix?inicio&fim`, on each Pix's own
 * time): the Pix of today and the `lookbackDays` before it with their refunds, and, for refunds
 * of older Pix, the days back to `refundLookbackDays`, a few a sweep so each is read daily.
 */
export interface PixSweepSettings {
  /** The receiver's keys as contracts/pix.ts `pixKeyHash` writes them: a listed Pix to another key of the account is not this receiver's. */
  readonly keyHashes: readonly string[];
  /** Publish a Pix without a txid the listing shows (the standard notifies none). */
  readonly publishWithoutTxid: boolean;
  /** The oldest day (back from the bank's today) whose Pix are read for refunds. */
  readonly refundLookbackDays: number;
  /** Days older than `lookbackDays` read for refunds by one sweep, in turn. */
  readonly refundDaysPerSweep: number;
  /** Minutes between two sweeps: which older days a sweep reads follows from the schedule's time. */
  readonly intervalMinutes: number;
  /**
   * Pix Automático (`pix.recurring`): the recurrences and recurring charges created on the days the
   * sweep covers, and the charges' older days back to `chargeCreationDays`, `chargeDaysPerSweep` a
   * sweep. @default none
   */
  readonly recurring?: { readonly chargeCreationDays: number; readonly chargeDaysPerSweep: number };
}

/** What a look request asks the processor to look at. */
export type LookSubject =
  | { readonly kind: 'boleto'; readonly nossoNumero: string }
  | { readonly kind: 'payment'; readonly paymentKind: PaymentType; readonly idTransacao: string }
  | { readonly kind: 'pix'; readonly endToEndId: string }
  | { readonly kind: 'pix-refund'; readonly endToEndId: string; readonly refundId: string }
  | { readonly kind: 'pix-recurrence'; readonly idRec: string }
  | { readonly kind: 'pix-recurring-charge'; readonly txid: string };

/**
 * A message in the processor's queue that is not a notification: "ask the bank about this
 * subject and publish what changed". The sweep sends one for each settlement it finds unpublished
 * and for each payment still pending; the company sends one (through a Track Payment event) for a
 * payment it started.
 */
export interface LookRequest {
  readonly look: 1;
  readonly trigger: EventTrigger;
  readonly subject: LookSubject;
  /** When it was asked for (ISO 8601). */
  readonly requestedAt: string;
  /** Why, in words (logged with what it finds). */
  readonly reason: string;
  /** Keep the payment in the sweep's index while it is not final (a payment the company started). */
  readonly track?: boolean;
  /** The settlement the bank's listing shows (a boleto the sweep found): the processor compares its day with the query's. */
  readonly listed?: ListedSettlement;
  /**
   * The look marker this request holds (the sweep's, or the Track Payment event's id): the
   * processor releases it when the look is done, and holds it again when it defers the look.
   */
  readonly lookId?: string;
  /** The source of the Track Payment event the request came from. */
  readonly trackSource?: string;
  /**
   * Not a look: the keys of changes a look published, to count as recovered if the subject's
   * record still has no notification of them (sent when the grace period ends; asks the bank nothing).
   */
  readonly recoveryCheck?: readonly string[];
  /** When (epoch ms) the slot this look booked of the looks' share of the query budget starts: it is admitted. */
  readonly admittedAt?: number;
}

/** A settlement as the settled-by-day listing shows it. */
export interface ListedSettlement {
  /** The listing's day (`YYYY-MM-DD`, the bank's local day). */
  readonly day: string;
  /** `valorLiquidado` in cents. */
  readonly cents: number;
}

/**
 * The detail type of the event the company puts on the receiver's bus to have a payment it
 * started followed until it is final, even when every notification of it is lost.
 */
export const TRACK_PAYMENT_DETAIL_TYPE = 'Track Payment';

/** The detail of a Track Payment event. */
export interface TrackPaymentDetail {
  /** `pix`, `boleto` (a boleto paid) or `tributos`. */
  readonly paymentKind: string;
  /** The payment's transaction id, as the payments API returned it. */
  readonly idTransacao: string;
  /** The account that made it (the receiver's `bank.account`): only that receiver follows it. */
  readonly account: TrackPaymentAccount;
}

/** The account of a Track Payment event. */
export interface TrackPaymentAccount {
  /** Cooperative code. */
  readonly cooperativa: string;
  /** Account number. */
  readonly conta: string;
}

/**
 * Attributes of a payment's record while it is not final: a sparse global secondary index on
 * them lists exactly the payments the sweep must query again, without scanning the table.
 */
export const PendingPaymentIndex = {
  NAME: 'pending-payments',
  /** Partition key (string): always {@link PENDING_PAYMENTS_PARTITION}; absent when the payment is final. */
  PARTITION: 'pending',
  /** Sort key (number): when the payment was first seen not final (epoch ms). */
  SINCE: 'pendingSince',
} as const;

export const PENDING_PAYMENTS_PARTITION = 'payment';

/** Metric names the sweep emits (namespace METRICS_NAMESPACE); NotificationsRecovered is the processor's (ProcessorMetric). */
export enum SweepMetric {
  /** Settlements the listing showed that no record held: sent to the processor to be verified. */
  LOOKS_REQUESTED = 'ReconciliationLooksRequested',
  /** Bank calls one sweep made (listing pages). */
  BANK_CALLS = 'SweepBankCalls',
  /** How long one sweep took, in milliseconds. */
  DURATION = 'SweepDuration',
  /** Sweeps that stopped before reading everything (their cursors resume it). */
  INCOMPLETE = 'SweepsIncomplete',
  /** Payments given up after the maximum age without reaching a final status. */
  PAYMENTS_GIVEN_UP = 'PendingPaymentsGivenUp',
  /** A registration at the bank that is not this stack's (missing, another URL or token, INATIVO, BLOQUEADO), per sweep. */
  REGISTRATION_DRIFT = 'RegistrationDrift',
  /**
   * The stack's own security-relevant resources that drifted from the template (or were not
   * checked) as last read, emitted every sweep; 1 at least when the configuration watch failed.
   */
  CONFIGURATION_DRIFT = 'ConfigurationDrift',
  /** Registrations the watch put back. */
  REGISTRATIONS_REPAIRED = 'RegistrationsRepaired',
  /** A registration that drifted again soon after a repair (another stack or a person changes it back): not repaired again. */
  REGISTRATION_CONTESTED = 'RegistrationContested',
  /** Registrations whose deploy record is missing or unreadable (deploy a registration change to record one); also counted in RegistrationRecordUntrusted. */
  REGISTRATIONS_UNKNOWN = 'RegistrationsUnknown',
  /**
   * Registrations whose deploy record is missing, unreadable or disagrees with what the stack
   * deployed: never repaired to; someone may have written or deleted the record (alarmed).
   */
  REGISTRATION_RECORD_UNTRUSTED = 'RegistrationRecordUntrusted',
  /**
   * Listed settlements a record already holds under another day (the query's): the bank
   * connection's `zuluTimestamps` may be wrong (docs/bank-api.md). No query is made for them.
   */
  SETTLEMENT_DAY_MISMATCH = 'SettlementDayMismatches',
  /** Listing pages that repeated the page before (the bank ignoring `pagina`): the day's reading stopped there. */
  REPEATED_PAGES = 'ListingPagesRepeated',
  /** Days whose listing reached the page bound (`maxListingPage`): read no further, the sweep incomplete. */
  LISTING_PAGE_BOUND = 'ListingPageBoundReached',
  /** Sweeps that stopped reading listings at the per-sweep call cap; the next resumes from the cursors. */
  LISTING_CALLS_CAPPED = 'ListingCallsCapped',
  /** Pending payments not sent a look because their last one is still in flight (queued or deferred). */
  PAYMENT_LOOKS_IN_FLIGHT = 'PaymentLooksInFlight',
  /** Pending payments left for the next sweep by the per-sweep cap (`maxPaymentLooksPerSweep`). */
  PAYMENT_LOOKS_CAPPED = 'PaymentLooksCapped',
}

/** What one sweep found and did (the sweep function answers it, and logs it). */
export interface SweepReport {
  /** Listing pages read. */
  readonly bankCalls: number;
  /** Listed changes (settlements, Pix, refunds) that no record held (looks requested). */
  readonly settlementsToVerify: number;
  /** Listing entries already held by their subject's record. */
  readonly settlementsKnown: number;
  readonly paymentsToVerify: number;
  readonly paymentsGivenUp: number;
  /** False when the deadline stopped the sweep before it read everything (the cursors resume it). */
  readonly complete: boolean;
  /**
   * Each listing's days read. `listing`: `boleto` (settled boletos), `pix` (Pix received and their
   * refunds), `pix-refund` (refunds of older Pix); a sweep before Pix wrote none (boleto).
   */
  readonly days: readonly {
    readonly listing?: string;
    readonly day: string;
    readonly pages: number;
    readonly items: number;
    readonly restarted: boolean;
  }[];
}

/** What one run of the sweep function answers: its report, and the registration watch's findings when the stack registers. */
export type SweepResult = SweepReport & {
  readonly registrations?: readonly WatchFinding[];
  /** The configuration watch's report, when the sweep watches the stack's configuration. */
  readonly configuration?: ConfigurationWatchReport;
};
