/**
 * The contract of the events the settlement processor publishes (detail version 3): detail
 * types, enums and the detail of each. The processor builds these; `lib/` exports them to
 * consumers; `npm run schemas` generates one JSON Schema per detail type from these very
 * interfaces (schemas/events/, shipped in the package), so the types and the schemas cannot
 * drift. jsii-safe: interfaces, string enums, no unions.
 */

import type { EventAmount } from './amount';
import type { PixReceived, PixRecurrence, PixRecurringCharge, PixRefund } from './pix-events';

/** Version of the detail's shape. */
export const EVENT_DETAIL_VERSION = '3';

/** The `detail-type` of every event the processor publishes. */
export enum BankEventDetailType {
  /** The bank shows the boleto settled with a settlement not published before. */
  BOLETO_SETTLED = 'Boleto Settled',
  /** The bank no longer shows a settlement that was published: it was reversed (`reverses` names it). */
  BOLETO_SETTLEMENT_REVERSED = 'Boleto Settlement Reversed',
  /** The bank shows the boleto written off (BAIXADO). */
  BOLETO_WRITTEN_OFF = 'Boleto Written Off',
  /** The bank shows the boleto rejected. */
  BOLETO_REJECTED = 'Boleto Rejected',
  /** A payment's status, as the payment query answers it, changed. */
  PAYMENT_STATUS_VERIFIED = 'Payment Status Verified',
  /**
   * Informational: a notification claimed a state the bank never showed, after every
   * verification attempt. Never a settlement: nothing financial follows from it.
   */
  NOTIFICATION_NOT_CONFIRMED = 'Notification Not Confirmed',
  /** A Pix received to one of the receiver's keys, confirmed by the provider's query under our credentials (and its charge, when it paid one). */
  PIX_RECEIVED = 'Pix Received',
  /** A refund of a received Pix reached its final status (`DEVOLVIDO` or `NAO_REALIZADO`), as the provider's query shows it. */
  PIX_REFUND = 'Pix Refund',
  /**
   * A Pix Automático recurrence (the payer's authorization) reached a status not published before
   * (created, approved, rejected, expired, cancelled), as `GET /rec/{idRec}` shows it. No money.
   */
  PIX_RECURRENCE_CHANGED = 'Pix Recurrence Changed',
  /**
   * A recurring charge of Pix Automático changed, as `GET /cobr/{txid}` shows it: its status or its
   * latest settlement attempt (scheduled, paid, failed with the rejection, cancelled, expired). No
   * money: the Pix that paid it is published as Pix Received.
   */
  PIX_RECURRING_CHARGE_CHANGED = 'Pix Recurring Charge Changed',
}

/** What made the processor look at the bank. */
export enum EventTrigger {
  /** A notification the bank delivered to the receiver. */
  WEBHOOK = 'webhook',
  /** A look the notifications did not ask for: the reconciliation sweep, or a Track Payment event. */
  RECONCILIATION = 'reconciliation',
  /** A replay of stored notifications (reserved). */
  REPLAY = 'replay',
}

/** What an event is about. */
export enum SubjectKind {
  BOLETO = 'boleto',
  PAYMENT = 'payment',
  /** A Pix received (the standard Pix API). */
  PIX = 'pix',
  /** A refund (devolução) of a Pix received. */
  PIX_REFUND = 'pix-refund',
  /** A Pix Automático recurrence (`rec`). */
  PIX_RECURRENCE = 'pix-recurrence',
  /** A Pix Automático recurring charge (`cobr`). */
  PIX_RECURRING_CHARGE = 'pix-recurring-charge',
}

/** The payment kinds of the payments API. */
export enum PaymentKind {
  PIX = 'pix',
  BOLETO = 'boleto',
  TRIBUTOS = 'tributos',
}

/** The class of a verified status under the configured mappings. */
export enum StatusClass {
  /** Boleto LIQUIDADO…, payment EFETIVADO (by default). */
  SETTLED = 'settled',
  /** A boleto that is not settled, written off or rejected. */
  OPEN = 'open',
  WRITTEN_OFF = 'writtenOff',
  REJECTED = 'rejected',
  /** A payment not final yet (RECEBIDO, AGENDADO, EM_PROCESSAMENTO by default). */
  PENDING = 'pending',
  CANCELLED = 'cancelled',
  /** A payment returned after it was made (ESTORNADO, DEVOLVIDO by default). */
  REVERSED = 'reversed',
  /** A status no mapping names. */
  UNKNOWN = 'unknown',
}

/** The account the event belongs to (this receiver's), as the subject's kind has it. */
export interface EventAccount {
  /** Cooperative code. */
  readonly cooperativa: string;
  /** Branch code. */
  readonly posto: string;
  /** Account number (payment events). */
  readonly conta?: string;
  /** Beneficiary code of boleto collection (boleto events). */
  readonly codigoBeneficiario?: string;
}

/** A boleto settlement as the bank's query shows it (`dadosLiquidacao`). */
export interface BoletoSettlement {
  /** Identity of the settlement: its bank day and amount in cents, such as "2025-06-03:25075". */
  readonly id: string;
  /**
   * When it was settled, ISO 8601 in the bank's offset (`2025-06-03T14:05:09.120-03:00`), or the
   * bank day alone (`2025-06-03`) when the bank gives no time.
   */
  readonly date: string;
  readonly amount: EventAmount;
}

/** What the event is about, and where this event stands in its history. */
export interface EventSubject {
  readonly kind: SubjectKind;
  /**
   * Stable id of the subject: `boleto:<codigoBeneficiario>:<nossoNumero>`, `payment:<kind>:<idTransacao>`,
   * `pix:<endToEndId>`, `pix-refund:<endToEndId>:<refundId>`, `pix-recurrence:<idRec>` or
   * `pix-recurring-charge:<txid>`.
   */
  readonly id: string;
  /**
   * Position of this change in the subject's published history, from 1, with no gaps.
   * EventBridge does not keep order: sort a subject's events by it.
   */
  readonly sequence: number;
  /** Pix and Pix refund subjects: the Pix's end-to-end id. */
  readonly endToEndId?: string;
  /** Pix refund subjects: the refund's id (`devolucao.id`). */
  readonly refundId?: string;
  /** Pix Automático subjects: the recurrence's id (a recurring charge's, its recurrence's). */
  readonly idRec?: string;
  /** Pix Automático recurring charge subjects: the charge's txid. */
  readonly txid?: string;
  /** Boleto subjects. */
  readonly nossoNumero?: string;
  /** Boleto subjects. */
  readonly codigoBeneficiario?: string;
  /** Payment subjects. */
  readonly paymentKind?: PaymentKind;
  /** Payment subjects. */
  readonly idTransacao?: string;
}

/** A verified state of a subject. */
export interface VerifiedState {
  /** The bank's status text: boleto `situacao`, payment `status`. */
  readonly status: string;
  readonly statusClass: StatusClass;
  /** Boleto: its face value; payment: `valorPagamento`. */
  readonly amount?: EventAmount;
  /** Payment: `dataPagamento`, ISO 8601 in the bank's offset. */
  readonly paidAt?: string;
}

/** A part of the event left out for size: how large it was, and its SHA-256 (hex). */
export interface OmittedPart {
  readonly bytes: number;
  readonly sha256: string;
}

/** What a notification claimed: the change it announced. */
export interface NotificationClaim {
  /** Boleto `movimento`, or the payment's `status`. */
  readonly status: string;
  /** The class of state it announces. */
  readonly statusClass: StatusClass;
  /** `valorLiquidacao` or `valorPagamento`, when given. */
  readonly amount?: EventAmount;
}

/** The notification that made the processor look, when one did. */
export interface EventNotification {
  /** When the receiver got it. */
  readonly receivedAt: string;
  /** API Gateway's request id, also in the access log. */
  readonly requestId: string;
  /** The bank's id for it: `idEventoWebhook` (boleto), or the notified status (payments). */
  readonly id: string;
  readonly claim: NotificationClaim;
  /** The notification (one boleto event, or the payment) as received; left out when too large. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any JSON object; jsii carries it as a map
  readonly body?: { [key: string]: any };
  /** Set when `body` was left out for size. */
  readonly bodyOmitted?: OmittedPart;
}

export type { EventAmount } from './amount';
export {
  PixChargeKind,
  type PixCharge,
  type PixValueComponents,
  type PixReceived,
  type PixRefund,
  type PixRecurringEnding,
  type PixRecurrence,
  type PixRecurringAttempt,
  type PixRecurringCharge,
} from './pix-events';

/** What every event's detail has. (Subtypes add members and never redeclare one: jsii's rule.) */
export interface EventDetailBase {
  /**
   * "3" (3 added `traceparent`).
   * @pattern ^3$
   */
  readonly version: string;
  /** Unique per event; a copy republished after a crash carries the same one. */
  readonly idempotencyKey: string;
  readonly trigger: EventTrigger;
  readonly account: EventAccount;
  /** The subject, with this change's sequence number (Notification Not Confirmed: its last published change's, 0 when none). */
  readonly subject: EventSubject;
  /** The state the bank shows now. */
  readonly state: VerifiedState;
  /** Where the notification and the bank disagree, in words. */
  readonly mismatches: string[];
  /** The bank query's answer; left out when too large. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any JSON object; jsii carries it as a map
  readonly bankAnswer?: { [key: string]: any };
  /** Set when `bankAnswer` was left out for size. */
  readonly bankAnswerOmitted?: OmittedPart;
  /** When the bank was asked (ISO 8601, UTC). */
  readonly verifiedAt: string;
  /** Receives of the message it took (1 the first time). */
  readonly attempt: number;
  /**
   * The W3C trace context of the processor's span that verified the change, when it was traced
   * (docs/tracing.md): a consumer's span continues the trace from it. Never set otherwise.
   * @pattern ^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$
   */
  readonly traceparent?: string;
}

/**
 * The detail of a verified change (Boleto Written Off, Boleto Rejected, Payment Status Verified;
 * Boleto Settled and Boleto Settlement Reversed add a member). Consumers act on `state` (the
 * bank's answer); `matchesNotification` is information.
 */
export interface BankEventDetail extends EventDetailBase {
  /** The last published state of the subject, when there was one. */
  readonly previousState?: VerifiedState;
  /** Whether the bank's answer confirms what the notification claimed (information only). Absent without a notification. */
  readonly matchesNotification?: boolean;
  readonly notification?: EventNotification;
}

/** Boleto Settled: the bank shows a settlement not published before. */
export interface BoletoSettledDetail extends BankEventDetail {
  /** The new settlement (`dadosLiquidacao`). */
  readonly settlement: BoletoSettlement;
}

/** Boleto Settlement Reversed: a settlement that was published is gone. */
export interface BoletoSettlementReversedDetail extends BankEventDetail {
  /** The settlement that is no longer there. */
  readonly reverses: BoletoSettlement;
}

/** Pix Received: a Pix to one of the receiver's keys that the provider confirmed (and its charge, when it paid one). */
export interface PixReceivedDetail extends BankEventDetail {
  readonly pix: PixReceived;
}

/** Pix Refund: a refund of a received Pix reached its final status. */
export interface PixRefundDetail extends BankEventDetail {
  readonly refund: PixRefund;
}

/** Pix Recurrence Changed: a recurrence reached a status not published before. */
export interface PixRecurrenceChangedDetail extends BankEventDetail {
  readonly recurrence: PixRecurrence;
}

/** Pix Recurring Charge Changed: a recurring charge's status or latest attempt changed. No money: see Pix Received. */
export interface PixRecurringChargeChangedDetail extends BankEventDetail {
  readonly recurringCharge: PixRecurringCharge;
}

/** Notification Not Confirmed: the bank never showed what a notification claimed. */
export interface NotificationNotConfirmedDetail extends EventDetailBase {
  /** Always false. */
  readonly matchesNotification: boolean;
  /** The notification whose claim the bank never showed. */
  readonly notification: EventNotification;
}

/** The interface (in this module) each detail type's detail satisfies: the schema generator's input. */
export const DETAIL_INTERFACE_OF_TYPE: Readonly<Record<BankEventDetailType, string>> = {
  [BankEventDetailType.BOLETO_SETTLED]: 'BoletoSettledDetail',
  [BankEventDetailType.BOLETO_SETTLEMENT_REVERSED]: 'BoletoSettlementReversedDetail',
  [BankEventDetailType.BOLETO_WRITTEN_OFF]: 'BankEventDetail',
  [BankEventDetailType.BOLETO_REJECTED]: 'BankEventDetail',
  [BankEventDetailType.PAYMENT_STATUS_VERIFIED]: 'BankEventDetail',
  [BankEventDetailType.NOTIFICATION_NOT_CONFIRMED]: 'NotificationNotConfirmedDetail',
  [BankEventDetailType.PIX_RECEIVED]: 'PixReceivedDetail',
  [BankEventDetailType.PIX_REFUND]: 'PixRefundDetail',
  [BankEventDetailType.PIX_RECURRENCE_CHANGED]: 'PixRecurrenceChangedDetail',
  [BankEventDetailType.PIX_RECURRING_CHARGE_CHANGED]: 'PixRecurringChargeChangedDetail',
};

/** Largest detail published as is (EventBridge takes 256 KB per entry, source and detail type included). */
export const MAX_DETAIL_BYTES = 250_000;
