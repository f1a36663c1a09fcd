/**
 * The contract between the `BankWebhookReceiver` construct and the settlement processor: the
 * settings the construct passes, their defaults, and what the processor publishes. Both sides
 * import this module.
 */
import type { SubjectKind } from './events';

/** The processor's `service` (logs and metric dimension). */
export const PROCESSOR_SERVICE_NAME = 'bank-webhook-processor';

/** Environment variable holding the JSON of {@link ProcessorSettings}. */
export const PROCESSOR_SETTINGS_ENV = 'BANK_WEBHOOKS_PROCESSOR_SETTINGS';

/** Which boleto `situacao` texts (matched by prefix) mean what. */
export interface BoletoStatusMapping {
  readonly settled: readonly string[];
  readonly writtenOff: readonly string[];
  readonly rejected: readonly string[];
  readonly open: readonly string[];
}

/** Which boleto event `movimento` values (matched by prefix) mean what. */
export interface BoletoMovementMapping {
  readonly settlement: readonly string[];
  readonly reversal: readonly string[];
  readonly writeOff: readonly string[];
  readonly rejection: readonly string[];
}

/** Which payment `status` values (matched exactly) mean what. */
export interface PaymentStatusMapping {
  readonly settled: readonly string[];
  readonly pending: readonly string[];
  readonly rejected: readonly string[];
  readonly cancelled: readonly string[];
  readonly reversed: readonly string[];
}

export interface ProcessorSettings {
  readonly eventBusName: string;
  readonly eventSource: string;
  /** The receiver's name: the `receiver` dimension of its metrics. */
  readonly receiverName: string;
  readonly idempotencyTableName: string;
  /** How long an idempotency record is kept, in seconds. */
  readonly idempotencyTtlSeconds: number;
  /** Where notifications that cannot be understood are put, with a reason (the notification queue's dead-letter queue). */
  readonly quarantineQueueUrl: string;
  /** The notification queue the processor reads: what an invocation had no time for is sent back to it as a new message. */
  readonly queueUrl: string;
  /**
   * The look queue the processor also reads: look requests (the sweep's, Track Payment's, recovery
   * checks) wait there, apart from notifications, and are sent back to it when deferred.
   */
  readonly lookQueueUrl: string;
  /** Where look requests that cannot succeed are put, with a reason (the look queue's dead-letter queue). */
  readonly lookQuarantineQueueUrl: string;
  /** The queues' maxReceiveCount: on a message's last receive, a failure quarantines it with its reason. */
  readonly maxReceiveCount: number;
  /**
   * Receives of one message during which a notification the bank does not confirm is looked at
   * again (query lag); after the last, a Notification Not Confirmed event records it.
   */
  readonly maxVerificationAttempts: number;
  /**
   * The least time, in seconds, from a notification's arrival to its last verification: as long as
   * maxVerificationAttempts receives take when each waits a visibility timeout. A receive that
   * comes sooner (SQS delivers a message twice at times) is not the last, however it is counted.
   * @default 0 (receives alone: the settings of a function deployed before it existed)
   */
  readonly verificationWindowSeconds?: number;
  /** Time kept free at the end of an invocation to report results, in milliseconds. */
  readonly safetyMarginMs: number;
  /**
   * How long after a look publishes a change no notification told of the change counts as
   * recovered (a webhook lost) if still no notification of it has come, in seconds.
   */
  readonly recoveredGraceSeconds: number;
  /**
   * The share of the bank's query budget (`queriesPerSecond`) look requests may take: they book a
   * slot of their own schedule at that rate, and wait for it out of the queue (deferred), so
   * notifications are never stuck behind them.
   */
  readonly lookQueryShare: number;
  /**
   * The unique id of the processor's own role: SQS's `SenderId` of what it sends (`<id>:<session>`).
   * A look request's `admittedAt` (its look already booked a slot of the looks' share) is believed
   * only from a message the processor sent itself; from any other sender the look books again.
   */
  readonly ownSenderId: string;
  /** The bucket the raw journal is written to (none: no journal). */
  readonly journalBucketName?: string;
  readonly boletoStatuses: BoletoStatusMapping;
  readonly boletoMovements: BoletoMovementMapping;
  readonly paymentStatuses: PaymentStatusMapping;
  /** The receiver's Pix keys, normalized (contracts/pix.ts normalizePixKey): a Pix to any other is not ours. @default none (no Pix route) */
  readonly pixKeys?: readonly string[];
  /**
   * Whether this receiver is its account's receiver for keyless Pix (a Pix the provider ties to no
   * key: a transfer by account details, a Pix Automático payment): the one receiver that publishes
   * them. @default false
   */
  readonly pixKeyless?: boolean;
  /**
   * Whether this receiver takes its account's Pix Automático (only the receiver for keyless Pix may):
   * recurrences and recurring charges are verified and published here, and nowhere else. @default false
   */
  readonly pixRecurring?: boolean;
  /**
   * Whether Pix callbacks reach this receiver only over mutual TLS with a pin (`pix.domain`): only
   * the provider sends them, so a 404 for a callback's Pix or refund is its lag right after the
   * callback, retried until the last verification attempt. Without it, anyone can post, and a 404
   * is another customer's at once (one query each; the sweep finds a Pix of ours that lagged).
   * @default false
   */
  readonly pixCallbacksAuthenticated?: boolean;
  /**
   * Bulk verification of Pix at a peak (only with `pixCallbacksAuthenticated`): a callback that
   * waited longer than `afterSeconds` is verified by the provider's listing. @default none (one by one)
   */
  readonly pixBulk?: PixBulkSettings;
  /**
   * Lifetimes (seconds) of the kinds of subject whose records live longer than
   * `idempotencyTtlSeconds`: a Pix's and a refund's, past the MED window, so a refund found that
   * late is told from one published. @default none (every record lives idempotencyTtlSeconds)
   */
  readonly recordTtlSecondsByKind?: Readonly<Partial<Record<SubjectKind, number>>>;
}

/** When and how far bulk verification of Pix reads the provider's listings. */
export interface PixBulkSettings {
  /** A callback that waited at least this long since the receiver stored it is verified by listing. */
  readonly afterSeconds: number;
  /** How long before a Pix the charges it may pay were created: the charge listing's reach. */
  readonly chargeReachMinutes: number;
}

export const ProcessorDefaults = {
  eventSource: 'cdk-bank-webhooks',
  /** The processor function's memory size, in MiB (`processorMemorySize`). */
  memorySizeMb: 512,
  /** The processor function's timeout, in seconds. */
  timeoutSeconds: 30,
  /**
   * How long a subject's record (its last published state) lives after its last change: well over
   * the minimum, so a reversal weeks after a settlement still names the settlement it reverses.
   */
  idempotencyTtlSeconds: 30 * 24 * 3600,
  /** The queues' retention: a message redriven from the DLQ may come back this late. */
  queueRetentionSeconds: 14 * 24 * 3600,
  /** Default maxReceiveCount of the queue. */
  maxReceiveCount: 5,
  maxVerificationAttempts: 3,
  safetyMarginMs: 2_000,
  /**
   * The grace before a change a look found counts as recovered: the bank usually delivers within
   * seconds to a few minutes (cdk-bank-webhooks/docs/bank-api.md), so 10 minutes tells a lost webhook from a late one.
   */
  recoveredGraceSeconds: 600,
  /** Looks (sweep, Track Payment) take at most a fifth of the query budget; notifications always have the rest. */
  lookQueryShare: 0.2,
  /**
   * Environments the look queue's event source mapping may use at once (SQS's least): looks
   * wait for their share of the bank's rate anyway, so more would only defer more of them.
   */
  lookMaxConcurrency: 2,
  /** Records of one batch verified at once (the bank rate-limits its query API). */
  recordConcurrency: 4,
  /**
   * Subjects of one Pix callback verified at the notification's share of the bank's rate: one
   * second of the default 10 queries a second (a Pix costs one or two). A provider may group
   * several Pix in one callback, and anyone at the provider can point a webhook at our URL; one
   * body of hundreds would otherwise take the budget from every other notification. (The bank's
   * own notifications, which carry its token, have no bound.) The rest is sent again as a message of its own, verified at the look
   * queue's share (the rate's idle time), behind notifications.
   */
  subjectsPerNotification: 10,
  boletoStatuses: {
    settled: ['LIQUIDADO'],
    writtenOff: ['BAIXADO'],
    rejected: ['REJEITADO'],
    open: ['EM CARTEIRA', 'VENCIDO', 'A VENCER'],
  } satisfies BoletoStatusMapping,
  boletoMovements: {
    settlement: ['LIQUIDACAO', 'AVISO_PAGAMENTO'],
    reversal: ['ESTORNO'],
    writeOff: ['BAIXA'],
    rejection: ['REJEICAO'],
  } satisfies BoletoMovementMapping,
  paymentStatuses: {
    settled: ['EFETIVADO'],
    pending: ['RECEBIDO', 'AGENDADO', 'EM_PROCESSAMENTO'],
    rejected: ['REJEITADO'],
    cancelled: ['CANCELADO'],
    reversed: ['ESTORNADO', 'DEVOLVIDO'],
  } satisfies PaymentStatusMapping,
} as const;

/** Metric names the processor emits (namespace METRICS_NAMESPACE). */
export enum ProcessorMetric {
  PUBLISHED = 'VerifiedEventsPublished',
  DUPLICATES = 'DuplicatesSuppressed',
  QUARANTINED = 'NotificationsQuarantined',
  NOT_CONFIRMED = 'NotificationsNotConfirmed',
  VERIFICATION_RETRIES = 'VerificationRetries',
  BANK_FAILURES = 'BankCallFailures',
  BANK_RETRIES = 'BankCallRetries',
  PUBLISH_FAILURES = 'PublishFailures',
  /** Events of a large notification left for a new message when an invocation ran out of time. */
  REQUEUED = 'NotificationsRequeued',
  /** Notifications (or their rest) sent back with a delay because the bank's rate had no slot before the deadline. */
  DEFERRED_FOR_RATE = 'NotificationsDeferredForRate',
  /**
   * Verified changes published by a reconciliation look (the sweep, a Track Payment event) before
   * any notification told of them: each one is a webhook the bank lost.
   */
  RECOVERED = 'NotificationsRecovered',
  /** 429 answers from the bank (its rate limit was exceeded: something else shares the credentials, or the rate is set too high). */
  BANK_THROTTLED = 'BankCallsThrottled',
  /**
   * Settlements whose day in the listing differs from their day in the boleto query (read as the
   * bank connection's `zuluTimestamps` says): evidence that the setting is wrong (docs/bank-api.md).
   */
  SETTLEMENT_DAY_MISMATCH = 'SettlementDayMismatches',
  /** Track Payment events that cost no query: the payment was final, already followed, or a look of it was in flight. */
  TRACK_PAYMENTS_SKIPPED = 'TrackPaymentsSkipped',
  /** Track Payment events for a payment the bank did not know yet, asked again later. */
  TRACK_PAYMENTS_UNKNOWN = 'TrackPaymentsUnknown',
  /**
   * Age of a look request when the processor finished it, from when it was first asked for
   * (deferrals keep that time), in milliseconds: a backlog of looks, even one served by deferral.
   */
  LOOK_AGE = 'LookRequestAge',
  /** Look requests sent back to wait for their booked slot of the looks' share of the query budget. */
  LOOKS_WAITING_FOR_SHARE = 'LooksWaitingForShare',
  /** Raw notifications the journal could not store after the SDK's retries: the message is retried until it is. */
  JOURNAL_FAILURES = 'JournalWriteFailures',
  /**
   * Looks (the sweep's, a Track Payment's, a reverify's) at a subject with no record whose bank
   * state is dated before what records remember: it may have been published before its record
   * expired, so nothing is published (never counted as recovered).
   */
  LOOKS_PAST_RECORDS = 'LooksPastRecordLifetime',
  /**
   * Items another customer of the provider can send us (a Pix to a key that is not ours, one the
   * provider's query under our credentials does not know): dropped, kept in the journal only,
   * never published, never a dead-letter message.
   */
  FOREIGN = 'ForeignItemsDropped',
  /**
   * Pix (and refunds of Pix) the provider shows as the account's but ties to none of this
   * receiver's keys: another receiver's to publish, recorded in the subject's trail, never published here.
   */
  NOT_ATTRIBUTED = 'PixNotAttributed',
  /** Subjects of a notification beyond `subjectsPerNotification`, sent again to be verified at the look queue's share. */
  SUBJECTS_AT_LOOK_SHARE = 'SubjectsAtLookShare',
  /** Pix times the provider wrote without a zone, read in Brasília's (America/Sao_Paulo). */
  PIX_ZONE_ASSUMED = 'PixTimeZoneAssumed',
}

/**
 * How records' lifetime (`idempotencyTtl`) bounds what a look may publish: a record lives at least
 * that long after its last write, which came after the state it holds; a state dated earlier than
 * the lifetime, less this margin (a bank date read in the wrong zone, clocks), may have had a
 * record that expired. The processor and the operator CLI's reverify both read it.
 */
export const RecordLifetime = {
  marginSeconds: 86_400,
} as const;

/** The earliest a state may be dated for a look at a subject with no record to publish it (epoch ms). */
export function recordsRememberSince(now: number, idempotencyTtlSeconds: number): number {
  return now - (idempotencyTtlSeconds - RecordLifetime.marginSeconds) * 1000;
}

/** Message attributes of a quarantined message in the dead-letter queue. */
export enum QuarantineAttribute {
  REASON = 'QuarantineReason',
  AT = 'QuarantinedAt',
  SOURCE_MESSAGE_ID = 'SourceMessageId',
}

/** The name of the shared schedule of bank queries in the table (item `rate#queries`), taken by the processor and the sweep. */
export const QUERY_RATE_NAME = 'queries';

/** The name of the schedule look requests book their share of the query rate on (`rate#looks`). */
export const LOOK_RATE_NAME = 'looks';

/** The table of subject records: one item per boleto and per payment (its last published state). */
export const IdempotencyTable = {
  /** Partition key (string): the subject's id. */
  KEY: 'id',
  /** TTL attribute (epoch seconds). */
  TTL: 'expiration',
} as const;
