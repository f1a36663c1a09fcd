/**
 * The contract between the reconciliation sweep's construct, its function and the processor:
 * the sweep's settings and their defaults, the look request it puts in the processor's queue,
 * the items it keeps in the processor's table, the metrics it emits, and what one run answers.
 * Every side imports this module.
 */
import type { EventTrigger } from './events';
import type { PaymentType } from './bank-connection';
import type { DeployedRegistration } from './registration';

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
}

/**
 * A registration the watch reads: its name in findings and logs, what the stack deployed (the
 * watch compares the bank with it and repairs only to it), and where its last deploy recorded
 * what it learned (the token version registered, the contract's id, the deploy's request id).
 */
export interface WatchedRegistration {
  /** `payments`, `boleto <cooperativa>/<posto>/<beneficiário>`, or `pix <chave>`. */
  readonly label: string;
  /** The SSM parameter of its {@link AppliedRegistration} record. */
  readonly appliedRecord: string;
  /** The registration as the stack deployed it, defaults left out (contracts/registration.ts `compactDeployed`). */
  readonly deployed: DeployedRegistration;
}

/** Each Pix key's webhook as the stack deployed it: the URL and takeover once, then each key with its applied record. */
export interface PixKeysWatched {
  readonly url: string;
  readonly takeOverExisting?: boolean;
  /** `[chave, appliedRecord]` per key. */
  readonly keys: ReadonlyArray<readonly [string, string]>;
}

/** The registrations the watch compares with the bank's, and whether it repairs them. */
export interface WatchSettings {
  readonly payment?: WatchedRegistration;
  readonly contracts: readonly WatchedRegistration[];
  /**
   * The key of the stack output holding each Pix key's webhook as the stack deployed it
   * ({@link PixKeysWatched}): read through the DescribeStacks the watch makes anyway, since one
   * entry per key would not fit the function's 4 KB of environment. @default none
   */
  readonly pixKeysOutput?: string;
  /** Put back what the stack deployed when the bank's differs (`repairRegistrations`). */
  readonly repair: boolean;
  /** The stack's id (its ARN): a repair is made only while the stack is in a completed state. */
  readonly stackId: string;
}

/** How the watch repairs, and when it stops. */
export const WatchDefaults = {
  /**
   * A registration that drifts again within this long of a repair made under the same deploy's
   * record is contested (another stack or a person keeps changing it back): no further repair
   * until the bank matches again or a deploy applies it anew.
   */
  contestWindowSeconds: 86_400,
} as const;

/** What the watch does while its stack is in a status. */
export enum StackWatchMode {
  /** Not changing: drift is counted (alarmed) and may be repaired. */
  COMPLETED = 'completed',
  /** A deploy, rollback or delete is under way and will end by itself: reported, not counted; compared again at the next sweep. */
  CHANGING = 'changing',
  /** Stuck until someone acts (it can stay so for days): drift is counted and alarmed; the repair waits for a completed status. */
  STUCK = 'stuck',
  /** A create or a delete that failed or rolled back: no registration serves the stack; nothing is counted. */
  NOT_SERVING = 'not-serving',
}

/**
 * Every CloudFormation stack status, what the watch does in it and why. A status not listed (one
 * AWS adds later) is treated as STUCK: counted and alarmed, never repaired.
 */
export const STACK_STATUS_WATCH: Readonly<Record<string, { readonly mode: StackWatchMode; readonly why: string }>> = {
  CREATE_COMPLETE: { mode: StackWatchMode.COMPLETED, why: 'the stack is deployed' },
  UPDATE_COMPLETE: { mode: StackWatchMode.COMPLETED, why: 'the stack is deployed' },
  UPDATE_ROLLBACK_COMPLETE: { mode: StackWatchMode.COMPLETED, why: 'a failed update was rolled back: the registrations are the previous deploy\'s again' },
  IMPORT_COMPLETE: { mode: StackWatchMode.COMPLETED, why: 'the stack is deployed' },
  IMPORT_ROLLBACK_COMPLETE: { mode: StackWatchMode.COMPLETED, why: 'a failed import was rolled back' },
  CREATE_IN_PROGRESS: { mode: StackWatchMode.CHANGING, why: 'the stack is being created' },
  UPDATE_IN_PROGRESS: { mode: StackWatchMode.CHANGING, why: 'a deploy is under way (its registrations change the bank and the records)' },
  UPDATE_COMPLETE_CLEANUP_IN_PROGRESS: { mode: StackWatchMode.CHANGING, why: 'a deploy is removing what it replaced' },
  UPDATE_ROLLBACK_IN_PROGRESS: { mode: StackWatchMode.CHANGING, why: 'a rollback is putting the previous registrations back' },
  UPDATE_ROLLBACK_COMPLETE_CLEANUP_IN_PROGRESS: { mode: StackWatchMode.CHANGING, why: 'a rollback is removing what the failed deploy made' },
  IMPORT_IN_PROGRESS: { mode: StackWatchMode.CHANGING, why: 'an import is under way' },
  IMPORT_ROLLBACK_IN_PROGRESS: { mode: StackWatchMode.CHANGING, why: 'an import is being rolled back' },
  REVIEW_IN_PROGRESS: { mode: StackWatchMode.CHANGING, why: 'a change set is waiting to be executed' },
  ROLLBACK_IN_PROGRESS: { mode: StackWatchMode.CHANGING, why: 'a failed create is being rolled back' },
  DELETE_IN_PROGRESS: { mode: StackWatchMode.CHANGING, why: 'the stack is being destroyed (its registrations are being removed)' },
  UPDATE_FAILED: {
    mode: StackWatchMode.STUCK,
    why: 'a deploy with rollback disabled failed and the stack stays so until the next deploy or a rollback; notifications may be lost meanwhile',
  },
  UPDATE_ROLLBACK_FAILED: {
    mode: StackWatchMode.STUCK,
    why: 'a rollback failed and the stack stays so until someone continues it (ContinueUpdateRollback); notifications may be lost meanwhile',
  },
  IMPORT_ROLLBACK_FAILED: { mode: StackWatchMode.STUCK, why: 'an import\'s rollback failed and the stack stays so until someone fixes it' },
  CREATE_FAILED: { mode: StackWatchMode.NOT_SERVING, why: 'the stack\'s create failed: it never served notifications' },
  ROLLBACK_FAILED: { mode: StackWatchMode.NOT_SERVING, why: 'the stack\'s create failed and its rollback too: it never served notifications' },
  ROLLBACK_COMPLETE: { mode: StackWatchMode.NOT_SERVING, why: 'the stack\'s create was rolled back: it holds no registration' },
  DELETE_FAILED: { mode: StackWatchMode.NOT_SERVING, why: 'the stack is being destroyed (a delete failed): its registrations are being removed' },
  DELETE_COMPLETE: { mode: StackWatchMode.NOT_SERVING, why: 'the stack is destroyed' },
};

/** What the watch does in `status` (a status the table does not name: STUCK). */
export function stackWatchMode(status: string): { readonly mode: StackWatchMode; readonly why: string } {
  return STACK_STATUS_WATCH[status] ?? { mode: StackWatchMode.STUCK, why: `the stack is in a status this version does not know (${status}): counted as stuck, never repaired` };
}

/** How the bank's registration differs from what the last deploy applied. */
export enum RegistrationDrift {
  /** The bank holds none. */
  MISSING = 'missing',
  /** The bank holds another URL. */
  OTHER_URL = 'other-url',
  /** Our URL with another token (every notification would be refused with 401). */
  TOKEN = 'token',
  /** INATIVO where the deploy applied another status (the bank deactivated it, for example after failed deliveries). */
  INACTIVE = 'inactive',
  /** BLOQUEADO where the deploy applied another status. */
  BLOCKED = 'blocked',
  /** ATIVO where the deploy applied INATIVO or BLOQUEADO (a pause undone by someone). */
  ACTIVE = 'active',
  /**
   * The token the last deploy registered is no longer one the receiver accepts (the secret's value
   * changed without a deploy): every notification is refused. Only a deploy fixes it (tokenVersion).
   */
  STALE_TOKEN = 'stale-token',
}

/** Where one registration stands after a watch. */
export enum WatchState {
  /** The bank holds what the last deploy applied. */
  IN_SYNC = 'in-sync',
  /** The bank differs; not repaired (see `notRepaired`). */
  DRIFT = 'drift',
  /** The bank differed and the watch put back what the last deploy applied. */
  REPAIRED = 'repaired',
  /**
   * The deploy's record is missing or unreadable (deleted, edited, or a stack upgraded without a
   * registration change): the bank is still compared with what the stack deployed, never repaired.
   */
  UNKNOWN = 'unknown',
  /**
   * The deploy's record disagrees with what the stack deployed (another URL, token secret, status,
   * take-over or stack: written by someone else): compared with what the stack deployed, never repaired.
   */
  RECORD_MISMATCH = 'record-mismatch',
  /** It drifted again soon after a repair: another stack or a person changes it back; no more repairs. */
  CONTESTED = 'contested',
}

/** What a look request asks the processor to look at. */
export type LookSubject =
  | { readonly kind: 'boleto'; readonly nossoNumero: string }
  | { readonly kind: 'payment'; readonly paymentKind: PaymentType; readonly idTransacao: string }
  | { readonly kind: 'pix'; readonly endToEndId: string }
  | { readonly kind: 'pix-refund'; readonly endToEndId: string; readonly refundId: string };

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
  readonly days: readonly { readonly listing?: string; readonly day: string; readonly pages: number; readonly items: number; readonly restarted: boolean }[];
}

/** What the registration watch found of one registration. */
export interface WatchFinding {
  /** `payments`, `boleto <cooperativa>/<posto>/<beneficiário>`, or `pix <chave>`. */
  readonly registration: string;
  readonly state: WatchState;
  readonly drift: readonly RegistrationDrift[];
  readonly repaired: boolean;
  /** Why a drift was not repaired. */
  readonly notRepaired?: string;
}

/** What one run of the sweep function answers: its report, and the registration watch's findings when the stack registers. */
export type SweepResult = SweepReport & { readonly registrations?: readonly WatchFinding[] };
