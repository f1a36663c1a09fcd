import { BankEventDetailType, type BoletoStatusMapping, type PaymentStatusMapping } from '../shared/processor-contract';
import { type BoletoEventItem, type BoletoMovement, identifier, type PaymentItem, toCents } from './parse';

export type BoletoStatusClass = keyof BoletoStatusMapping | 'unknown';
export type PaymentStatusClass = keyof PaymentStatusMapping | 'unknown';

/** What the bank's query says about a notified change. */
export interface Verdict {
  /** The natural identity of the change: one event per key, however often it is delivered. */
  readonly idempotencyKey: string;
  readonly detailType: string;
  /** Whether the query confirms the notification. */
  readonly matches: boolean;
  /** Why it does not, when it does not. */
  readonly mismatches: string[];
  /** The verified status and its class under the configured mapping. */
  readonly status: string;
  readonly statusClass: string;
}

/** The natural identity of a boleto event: the bank's own event id. */
export function boletoEventKey(idEventoWebhook: string): string {
  return `boleto-event:${idEventoWebhook}`;
}

/** The class of a boleto `situacao` by prefix. */
export function classifyBoletoStatus(situacao: string, mapping: BoletoStatusMapping): BoletoStatusClass {
  const upper = situacao.toUpperCase();
  const order: (keyof BoletoStatusMapping)[] = ['settled', 'writtenOff', 'rejected', 'open'];
  return order.find((cls) => mapping[cls].some((prefix) => upper.startsWith(prefix.toUpperCase()))) ?? 'unknown';
}

/** The class of a payment `status`, matched exactly. */
export function classifyPaymentStatus(status: string, mapping: PaymentStatusMapping): PaymentStatusClass {
  const order: (keyof PaymentStatusMapping)[] = ['settled', 'pending', 'rejected', 'cancelled', 'reversed'];
  return order.find((cls) => mapping[cls].includes(status)) ?? 'unknown';
}

/** The boleto status each kind of event needs the query to show, and the event it becomes. */
const BOLETO_EXPECTATIONS: Record<BoletoMovement, { status: keyof BoletoStatusMapping; detailType: string }> = {
  settlement: { status: 'settled', detailType: BankEventDetailType.BOLETO_SETTLED },
  reversal: { status: 'open', detailType: BankEventDetailType.BOLETO_SETTLEMENT_REVERSED },
  writeOff: { status: 'writtenOff', detailType: BankEventDetailType.BOLETO_WRITTEN_OFF },
  rejection: { status: 'rejected', detailType: BankEventDetailType.BOLETO_REJECTED },
};

function amountMismatch(label: string, notified: string | undefined, verified: unknown): string | undefined {
  if (notified === undefined) return undefined;
  const verifiedCents = toCents(verified);
  if (verifiedCents === undefined) return `the bank shows no ${label} (notified ${notified})`;
  return verifiedCents === toCents(notified) ? undefined : `${label} differs: notified ${notified}, the bank says ${(verifiedCents / 100).toFixed(2)}`;
}

/**
 * Compares a boleto event with the boleto query's `resultado`. A settlement is confirmed when the
 * boleto is settled with the notified amount; a reversal when it is open again; a write-off or a
 * rejection when the boleto shows it.
 */
export function verifyBoletoEvent(event: BoletoEventItem, resultado: Record<string, unknown>, mapping: BoletoStatusMapping): Verdict {
  const situacao = typeof resultado.situacao === 'string' ? resultado.situacao : '';
  const statusClass = classifyBoletoStatus(situacao, mapping);
  const expected = BOLETO_EXPECTATIONS[event.movement];
  const mismatches: string[] = [];
  const nossoNumero = identifier(resultado.nossoNumero);
  if (nossoNumero !== undefined && nossoNumero !== event.nossoNumero) {
    mismatches.push(`the bank answered for nossoNumero ${nossoNumero}, not ${event.nossoNumero}`);
  }
  if (statusClass !== expected.status) {
    mismatches.push(`${event.movimento} needs a ${expected.status} boleto, the bank says situacao "${situacao}" (${statusClass})`);
  } else if (event.movement === 'settlement') {
    const liquidacao = resultado.dadosLiquidacao as Record<string, unknown> | null | undefined;
    const difference = amountMismatch('settled amount', event.valorLiquidacao, liquidacao?.valor);
    if (difference) mismatches.push(difference);
  }
  const matches = mismatches.length === 0;
  return {
    idempotencyKey: boletoEventKey(event.idEventoWebhook),
    detailType: matches ? expected.detailType : BankEventDetailType.BOLETO_NOT_CONFIRMED,
    matches,
    mismatches,
    status: situacao,
    statusClass,
  };
}

/**
 * Compares a payment notification with the payment query's answer: the same status and amount.
 * The event reports the bank's status either way; its key is the payment and that status, so
 * each verified status of a payment is published once.
 */
export function verifyPayment(payment: PaymentItem, answer: Record<string, unknown>, mapping: PaymentStatusMapping): Verdict {
  const status = typeof answer.status === 'string' ? answer.status.trim() : '';
  const mismatches: string[] = [];
  const idTransacao = identifier(answer.idTransacao);
  if (idTransacao !== undefined && idTransacao !== payment.idTransacao) {
    mismatches.push(`the bank answered for idTransacao ${idTransacao}, not ${payment.idTransacao}`);
  }
  if (status !== payment.status) mismatches.push(`status differs: notified ${payment.status}, the bank says ${status || '(none)'}`);
  const difference = amountMismatch('amount', payment.valorPagamento, answer.valorPagamento);
  if (difference) mismatches.push(difference);
  return {
    idempotencyKey: `payment:${payment.type}:${payment.idTransacao}:${status || 'UNKNOWN'}`,
    detailType: BankEventDetailType.PAYMENT_STATUS_VERIFIED,
    matches: mismatches.length === 0,
    mismatches,
    status,
    statusClass: classifyPaymentStatus(status, mapping),
  };
}
