/**
 * The record of what happened, shared by the processor that writes it, the constructs that make
 * its store, and the tools that read it: the trail each subject's record keeps, and the keys of
 * the raw journal in S3.
 */
import type { EventTrigger } from './events';
import type { StoredNotification } from './receiver';

/** What a trail entry tells of. */
export enum TrailEntryKind {
  /** A notification of the subject was handled: it bore the bank's state out, or it never did. */
  NOTIFICATION = 'notification',
  /** The processor asked the bank about the subject, and what it saw. */
  LOOK = 'look',
  /** A verified change was written to be published (its outbox is published right after the write). */
  PUBLISHED = 'published',
  /** A change a look found that no notification told of within the grace period: a webhook the bank lost. */
  RECOVERED = 'recovered',
  /** A message about the subject was quarantined in a dead-letter queue, with its reason. */
  QUARANTINED = 'quarantined',
  /**
   * The provider shows the subject (a Pix, a refund of one) as the account's, tied to none of this
   * receiver's keys: another receiver's to publish, never published here.
   */
  NOT_ATTRIBUTED = 'notAttributed',
}

/** A notification the processor handled. */
export interface TrailNotification {
  readonly kind: TrailEntryKind.NOTIFICATION;
  /** When the receiver stored it (ISO 8601). */
  readonly at: string;
  /** API Gateway's request id (also in the access log and the journal's key). */
  readonly requestId: string;
  /** The notification's own id (`idEventoWebhook`; a payment's status). */
  readonly id: string;
  /** The status it claimed. */
  readonly claim: string;
  /** Whether the bank's state bore the claim out (false: a Notification Not Confirmed event was published). */
  readonly matched: boolean;
  /** The raw notification's key in the journal, when the receiver has one. */
  readonly journalKey?: string;
  /** The trace the receiver stored it in, when traced (docs/tracing.md). */
  readonly traceId?: string;
}

/** A look at the bank that changed the record. */
export interface TrailLook {
  readonly kind: TrailEntryKind.LOOK;
  readonly at: string;
  /** What made the processor look: a webhook, or a reconciliation look (the sweep, a Track Payment). */
  readonly trigger: EventTrigger;
  /** The look request's reason, or the Track Payment's source. */
  readonly reason?: string;
  /** The status the bank showed. */
  readonly status: string;
  /** Why the change it found was not published (its state is dated before what records remember). */
  readonly unpublished?: string;
  /** The trace the look ran in, when traced: the notification's, the sweep's, or its own. */
  readonly traceId?: string;
}

/** A verified change written with its event. */
export interface TrailPublished {
  readonly kind: TrailEntryKind.PUBLISHED;
  readonly at: string;
  readonly detailType: string;
  readonly sequence: number;
  readonly idempotencyKey: string;
}

/** A change no notification told of within the grace period. */
export interface TrailRecovered {
  readonly kind: TrailEntryKind.RECOVERED;
  readonly at: string;
  /** The change's key (the idempotency key's last part). */
  readonly change: string;
}

/** A message about the subject quarantined with its reason. */
export interface TrailQuarantined {
  readonly kind: TrailEntryKind.QUARANTINED;
  readonly at: string;
  /** The quarantine reason, cut to TrailDefaults.reasonChars. */
  readonly reason: string;
  /** The notification's request id, when a notification was quarantined. */
  readonly requestId?: string;
}

/** A subject the provider ties to another receiver: why, and the notification that asked, when one did. */
export interface TrailNotAttributed {
  readonly kind: TrailEntryKind.NOT_ATTRIBUTED;
  readonly at: string;
  /** Why it is not this receiver's (cut to TrailDefaults.reasonChars). */
  readonly reason: string;
  /** The notification's request id, when a notification asked. */
  readonly requestId?: string;
  /** What made the processor look. */
  readonly trigger: EventTrigger;
}

export type TrailEntry =
  TrailNotification | TrailLook | TrailPublished | TrailRecovered | TrailQuarantined | TrailNotAttributed;

export const TrailDefaults = {
  /** Entries a record keeps (the oldest go first): about 12 KB, 25 KB with every reason at its longest, well inside DynamoDB's 400 KB item. */
  entries: 60,
  /** Longest reason or claim kept in an entry. */
  reasonChars: 300,
} as const;

/** How the journal's objects are locked against deletion and overwrite (S3 Object Lock). */
export enum JournalObjectLock {
  /** No Object Lock: the bucket policy and versioning protect the objects. */
  NONE = 'NONE',
  /** Governance mode: only principals with s3:BypassGovernanceRetention may delete a version before its retention ends. */
  GOVERNANCE = 'GOVERNANCE',
  /** Compliance mode: nobody, the account's root included, may delete a version before its retention ends. */
  COMPLIANCE = 'COMPLIANCE',
}

export const JournalDefaults = {
  /**
   * How long raw notifications are kept: 5 years (and 2 leap days), the span after which Brazil's
   * tax authority can no longer assess (Código Tributário Nacional, art. 173; art. 195 asks that
   * the documents behind the books be kept until then): the usual span for financial records.
   */
  retentionDays: 5 * 365 + 2,
  /** When an object large enough to gain from it moves to Glacier Instant Retrieval. */
  transitionDays: 90,
} as const;

/** Prefix of the raw notifications: one object per notification, under the UTC day it was received. */
export const JOURNAL_NOTIFICATIONS_PREFIX = 'notifications/';
/** Prefix of the index by subject: an empty object per subject a notification named, beside its raw copy's name. */
export const JOURNAL_SUBJECTS_PREFIX = 'subjects/';
/**
 * Prefix of the operators' records of dead-letter messages they deleted (`cdk-bank-webhooks dlq
 * delete`): written create-only by the operator roles alone, before the message is deleted.
 */
export const JOURNAL_DELETIONS_PREFIX = 'deletions/';

/** What `dlq delete` records of a message before it deletes it. */
export interface DeadLetterDeletion {
  readonly kind: 'dead-letter-deletion';
  /** The dead-letter queue (`notifications` or `looks`). */
  readonly queue: string;
  readonly messageId: string;
  /** The stored notification's request id: its raw copy is in the journal under notifications/. */
  readonly requestId?: string;
  /** The subjects it is about. */
  readonly subjects: readonly string[];
  /** The processor's quarantine reason (none: moved by SQS). */
  readonly reason?: string;
  /** Who deleted it (the caller's ARN, as STS names it) and when (ISO time). */
  readonly deletedBy: string;
  readonly deletedAt: string;
  /** The body, when the message is not a stored notification (whose raw copy the journal already holds). */
  readonly body?: string;
}

/** The record's key: `deletions/<UTC day>/<HH-mm-ss.SSS>Z-<messageId>.json`. */
export function deletionKey(at: Date, messageId: string): string {
  const iso = at.toISOString();
  return `${JOURNAL_DELETIONS_PREFIX}${iso.slice(0, 10)}/${iso.slice(11).replace(/:/g, '-')}-${messageId.replace(KEY_SAFE, '_')}.json`;
}

/** Characters kept of a request id in a key (API Gateway's are UUIDs). */
const KEY_SAFE = /[^A-Za-z0-9._-]/g;

/** `2026-11-25` and `14-05-09.120Z` of a time (invalid: `fallback`'s). */
function keyTime(receivedAt: string, fallback: Date): { day: string; time: string } {
  const at = Number.isFinite(Date.parse(receivedAt)) ? new Date(receivedAt) : fallback;
  const iso = at.toISOString();
  return { day: iso.slice(0, 10), time: iso.slice(11).replace(/:/g, '-') };
}

/** The last part of both keys of a notification: `<day>/<time>-<requestId>.json`. */
function keyName(stored: Pick<StoredNotification, 'receivedAt' | 'requestId'>, fallback: Date): string {
  const { day, time } = keyTime(stored.receivedAt, fallback);
  return `${day}/${time}-${stored.requestId.replace(KEY_SAFE, '_').slice(0, 128) || 'no-request-id'}.json`;
}

/**
 * Where a notification's raw copy is in the journal: `notifications/<UTC day>/<time>-<requestId>.json`
 * (a day's notifications list under `notifications/<day>/`, in the order they came).
 */
export function journalKey(
  stored: Pick<StoredNotification, 'receivedAt' | 'requestId'>,
  fallback = new Date(),
): string {
  return `${JOURNAL_NOTIFICATIONS_PREFIX}${keyName(stored, fallback)}`;
}

/** The prefix a subject's notifications list under: `subjects/<subject id>/`. */
export function journalSubjectPrefix(subjectId: string): string {
  return `${JOURNAL_SUBJECTS_PREFIX}${subjectId.replace(/[^A-Za-z0-9:._-]/g, '_')}/`;
}

/** The index entry of a subject named by a notification: `subjects/<subject id>/<day>/<time>-<requestId>.json`. */
export function journalSubjectKey(
  subjectId: string,
  stored: Pick<StoredNotification, 'receivedAt' | 'requestId'>,
  fallback = new Date(),
): string {
  return `${journalSubjectPrefix(subjectId)}${keyName(stored, fallback)}`;
}

/** The raw copy an index entry stands for. */
export function journalKeyOfSubjectKey(subjectKey: string): string | undefined {
  const match = /^subjects\/[^/]+\/(\d{4}-\d{2}-\d{2}\/[^/]+\.json)$/.exec(subjectKey);
  return match ? `${JOURNAL_NOTIFICATIONS_PREFIX}${match[1]}` : undefined;
}
