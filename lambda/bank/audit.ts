/**
 * What the audit of a receiver's record (cli/audit/invariants.ts: `cdk-bank-webhooks audit`, the
 * local runner's, the property harness's) asks each API family: how the events published account
 * for one item of a notification the front door accepted. Each family's audit.ts answers for its
 * items; families.ts lists them. Nothing here runs in a handler (no handler imports the list).
 */
import type { BankEventDetailType, StatusClass } from '../../contracts/events';
import type { BoletoMovementMapping, PaymentStatusMapping } from '../../contracts/processor';
import type { SubjectItem } from './family';

/** The promises the audit checks. */
export enum Invariant {
  UNVERIFIED = 'nothing unverified',
  TWICE = 'nothing twice',
  LOST = 'nothing lost',
  ORDER = 'in order',
  SECRET = 'no secret',
}

/** How a notification is accounted for. */
export enum Outcome {
  /** A change published of the state it claimed, or a later one it led to. */
  VERIFIED = 'verified',
  /** A Notification Not Confirmed names it: the bank never bore its claim out. */
  NOT_CONFIRMED = 'notConfirmed',
  /** A dead-letter queue holds it, with its reason. */
  QUARANTINED = 'quarantined',
  /** The processor's record says it is still being verified (its looks go on), or it came too recently to tell. */
  PENDING = 'pending',
  /**
   * A callback of a Pix to a key that is not the receiver's (dropped: anyone at the provider can
   * send one), or of a Pix the provider ties to another receiver (its record's trail says so): never published.
   */
  FOREIGN = 'foreign',
}

/** An event that reached the bus, as the audit reads it. */
export interface AuditedEvent {
  readonly detailType: BankEventDetailType;
  readonly key: string;
  readonly subjectId: string;
  /** `nossoNumero` or `idTransacao`: what a notification names. */
  readonly subjectName: string;
  readonly sequence: number;
  readonly status: string;
  readonly statusClass: StatusClass;
  readonly settledCents?: number;
  readonly notificationId?: string;
  readonly endToEndId?: string;
  readonly refundId?: string;
  /** A Pix Received's key as the provider's answers showed it (none: tied by its charge, or to no key). */
  readonly chave?: string;
  /** A Pix Automático recurrence's id (its subject's). */
  readonly idRec?: string;
  /** A Pix Automático recurring charge's txid (its subject's). */
  readonly txid?: string;
}

/** What the audit knows besides the events. */
export interface AuditContext {
  readonly movements: BoletoMovementMapping;
  readonly paymentStatuses: PaymentStatusMapping;
  /** The receiver's Pix keys (normalized), when known. */
  readonly pixKeys?: readonly string[];
  /** The Pix the provider holds for our account, with their refunds, when known. */
  readonly pixHeld?: ReadonlyArray<{
    readonly endToEndId: string;
    readonly devolucoes: ReadonlyArray<{ readonly id: string; readonly status: string }>;
  }>;
  /** The Pix Automático recurrences (`idRec`) and recurring charges (`txid`) the provider holds for our account, when known. */
  readonly recurringHeld?: { readonly recs: readonly string[]; readonly cobrs: readonly string[] };
}

/** How the events account for one item. */
export type ItemAccount =
  /** What the events show (undefined: nothing yet); without it, a quarantine or the records must account for the request. */
  | { readonly kind: 'found'; readonly outcome: Outcome | undefined }
  /** Counted as it is, whatever the quarantine and the records say. */
  | { readonly kind: 'counted'; readonly outcome: Outcome }
  /** A promise broken. */
  | { readonly kind: 'broken'; readonly invariant: Invariant; readonly detail: string }
  /** Nothing to account for (the provider holds no such movement for us: never to be published). */
  | { readonly kind: 'none' };

/** One family's part of the audit. */
export interface FamilyAudit {
  /** The family's name (its `ApiFamily.name`). */
  readonly family: string;
  /** The item's identity: a notification counted once however often it was delivered. */
  identity(item: SubjectItem): string;
  /** How the events account for the item. */
  account(item: SubjectItem, events: readonly AuditedEvent[], context: AuditContext): ItemAccount;
  /** Whether a body of the family's in which no item can be read must be in quarantine (the processor quarantines it). */
  readonly unreadableQuarantined: boolean;
}
