/**
 * The contract of the events the settlement processor publishes (detail version 3): detail
 * types, enums and the detail of each. The processor builds these; `lib/` exports them to
 * consumers; `npm run schemas` generates one JSON Schema per detail type from these very
 * interfaces (schemas/events/, shipped in the package), so the types and the schemas cannot
 * drift. jsii-safe: interfaces, string enums, no unions.
 */

import type { RefundNature } from './pix';

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

/** A money amount, both ways. */
export interface EventAmount {
  /** Whole cents. */
  readonly cents: number;
  /** The bank's decimal string with two places, such as "250.75". */
  readonly decimal: string;
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
   * `pix:<endToEndId>` or `pix-refund:<endToEndId>:<refundId>`.
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

/** Where the provider keeps a charge: `cob` (immediate) or `cobv` (with a due date). */
export enum PixChargeKind {
  COB = 'cob',
  COBV = 'cobv',
  /** A recurring charge of Pix Automático (`GET /cobr/{txid}`): it names an account, not a key. */
  COBR = 'cobr',
}

/** How a Pix paid a charge: which one, and what the provider shows of it. */
export interface PixCharge {
  /** The charge's txid (26 to 35 letters and digits). */
  readonly txid: string;
  /** Where the provider showed it. */
  readonly kind: PixChargeKind;
  /** The charge's status as the provider writes it (`CONCLUIDA`). */
  readonly status: string;
  /** `valor.original`. */
  readonly original: EventAmount;
}

/**
 * The parts of a Pix's amount (`componentesValor`), each present when the provider shows it:
 * `amount` = original + saque + troco + multa + juros - abatimento - desconto.
 */
export interface PixValueComponents {
  /** The charge's or the purchase's own amount. */
  readonly original?: EventAmount;
  /** Cash withdrawn (Pix Saque). */
  readonly saque?: EventAmount;
  /** Change given (Pix Troco). */
  readonly troco?: EventAmount;
  /** Interest of a charge paid late (`cobv`). */
  readonly juros?: EventAmount;
  /** A fine of a charge paid late (`cobv`). */
  readonly multa?: EventAmount;
  /** A rebate (`cobv`). */
  readonly abatimento?: EventAmount;
  /** A discount (`cobv`). */
  readonly desconto?: EventAmount;
}

/** A Pix received, as the provider's query shows it: only what the standard defines (no payer identity). */
export interface PixReceived {
  readonly endToEndId: string;
  /** The txid the payer's code carried: a charge's, or a static code's short one. */
  readonly txid?: string;
  /** The receiver's key it was paid to, when the provider says. */
  readonly chave?: string;
  readonly amount: EventAmount;
  /** When it was settled (RFC 3339, as the provider writes it; with `-03:00` appended when it wrote no zone). */
  readonly horario: string;
  /** Set when the provider wrote `horario` without a zone: it was read in Brasília's (America/Sao_Paulo). */
  readonly horarioZoneAssumed?: boolean;
  /** The parts of the amount, when the provider shows them (`componentesValor`). */
  readonly componentesValor?: PixValueComponents;
  /** The payer's free-text message (`infoPagador`). */
  readonly infoPagador?: string;
  /** The charge it paid (a txid of 26 to 35 characters), confirmed concluded with this Pix. */
  readonly charge?: PixCharge;
}

/** A refund of a Pix received, as the provider's query shows it. */
export interface PixRefund {
  /** The Pix it returns. */
  readonly endToEndId: string;
  /** The refund's id (`id`, ours when we asked for it). */
  readonly id: string;
  /** The return's end-to-end id (`rtrId`). */
  readonly rtrId?: string;
  readonly amount: EventAmount;
  /** `DEVOLVIDO` (returned) or `NAO_REALIZADO` (not done). */
  readonly status: string;
  /** When it reached that status (`horario.liquidacao`). */
  readonly settledAt?: string;
  /** The provider's words about it (`motivo`, at most 140 characters). */
  readonly motivo?: string;
  /**
   * Who made it and why (`natureza`; `ORIGINAL` when the provider names none, as the standard
   * says): `ORIGINAL` and `RETIRADA` are refunds the receiver asked for; `MED_OPERACIONAL`,
   * `MED_FRAUDE` and `MED_PIX_AUTOMATICO` are returns the provider made without being asked, under
   * the Central Bank's special return mechanism (MED). Left out only when the provider writes a
   * nature the standard does not define: `naturezaAsWritten` then holds it.
   */
  readonly natureza?: RefundNature;
  /** The nature as the provider wrote it, when the standard does not define it (at most 40 characters). */
  readonly naturezaAsWritten?: string;
  /** The refund's description (`descricao`, at most 140 characters), when given. */
  readonly descricao?: string;
}

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
};

/** Largest detail published as is (EventBridge takes 256 KB per entry, source and detail type included). */
export const MAX_DETAIL_BYTES = 250_000;
