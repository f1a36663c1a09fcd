/**
 * The bank's notifications read: boleto events (one object, an array, or `{"eventos": [...]}`)
 * and payments, each checked, and what cannot be understood as problems with their reason.
 */
import {
  PAYMENT_ID_PATTERN,
  PAYMENT_ID_RULE,
  PAYMENT_TYPES,
  type PaymentType,
} from '../../../contracts/bank-connection';
import type { BoletoMovementMapping } from '../../../contracts/processor';
import type { Route } from '../../../contracts/receiver';
import { identifier, nossoNumeroOf, toCents } from './answers';

export type BoletoMovement = keyof BoletoMovementMapping;

/** One boleto event of a `/boleto` notification. */
export interface BoletoEventItem {
  readonly kind: 'boleto-event';
  readonly idEventoWebhook: string;
  readonly nossoNumero: string;
  /** The beneficiary code the event names, when it names one. */
  readonly beneficiario?: string;
  readonly movimento: string;
  readonly movement: BoletoMovement;
  /** `valorLiquidacao` as a decimal string, when present. */
  readonly valorLiquidacao?: string;
  /** The event exactly as received. */
  readonly raw: Record<string, unknown>;
}

/** A `/payments` notification: a Pix payment, a paid boleto or a tax payment. */
export interface PaymentItem {
  readonly kind: 'payment';
  readonly type: PaymentType;
  readonly idTransacao: string;
  readonly status: string;
  readonly valorPagamento?: string;
  readonly raw: Record<string, unknown>;
}

export type NotificationItem = BoletoEventItem | PaymentItem;

export interface ParsedNotification {
  readonly items: NotificationItem[];
  /** Why parts (or all) of the notification cannot be understood. */
  readonly problems: string[];
}

/** The bank's transaction id pattern (cdk-bank-webhooks/docs/bank-api.md). */

/** Fields that tell the payment kinds apart (the payment query's id field of each kind first). */
const PAYMENT_TYPE_MARKERS: Record<PaymentType, readonly string[]> = {
  pix: ['idPagamentoPix', 'chavePix', 'endToEnd'],
  boleto: ['idPagamentoBoleto', 'linhaDigitavel'],
  tributos: ['idPagamentoTributo', 'tipoTributo'],
};

/** The class of a `movimento` by prefix, or undefined when no prefix matches. */
export function classifyMovement(movimento: string, mapping: BoletoMovementMapping): BoletoMovement | undefined {
  // Reversals first: ESTORNO_LIQUIDACAO_... must not count as a LIQUIDACAO... settlement.
  const order: BoletoMovement[] = ['reversal', 'settlement', 'writeOff', 'rejection'];
  return order.find((movement) =>
    mapping[movement].some((prefix) => movimento.toUpperCase().startsWith(prefix.toUpperCase())),
  );
}

function parseBoletoEvent(value: unknown, where: string, mapping: BoletoMovementMapping): BoletoEventItem | string {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return `${where} is not a JSON object`;
  const raw = value as Record<string, unknown>;
  const problems: string[] = [];
  const idEventoWebhook = identifier(raw.idEventoWebhook);
  const nossoNumero = nossoNumeroOf(raw.nossoNumero);
  const movimento = typeof raw.movimento === 'string' ? raw.movimento.trim() : '';
  if (!idEventoWebhook) problems.push('idEventoWebhook is missing');
  if (!nossoNumero) {
    problems.push(
      raw.nossoNumero === undefined || raw.nossoNumero === null
        ? 'nossoNumero is missing'
        : `nossoNumero ${JSON.stringify(raw.nossoNumero).slice(0, 40)} is not the bank's boleto id (up to 9 digits)`,
    );
  }
  if (!movimento) problems.push('movimento is missing');
  const movement = movimento ? classifyMovement(movimento, mapping) : undefined;
  if (movimento && !movement) {
    problems.push(
      `movimento "${movimento.slice(0, 60)}" is not a known settlement, reversal, write-off or rejection (configure boletoMovements to add it)`,
    );
  }
  let valorLiquidacao: string | undefined;
  if (raw.valorLiquidacao !== undefined && raw.valorLiquidacao !== null) {
    const cents = toCents(raw.valorLiquidacao);
    if (cents === undefined)
      problems.push(`valorLiquidacao ${JSON.stringify(raw.valorLiquidacao).slice(0, 40)} is not an amount`);
    else valorLiquidacao = (cents / 100).toFixed(2);
  } else if (movement === 'settlement') {
    problems.push('valorLiquidacao is missing from a settlement');
  }
  if (problems.length) return `${where}: ${problems.join('; ')}`;
  return {
    kind: 'boleto-event',
    idEventoWebhook: idEventoWebhook!,
    nossoNumero: nossoNumero!,
    beneficiario: identifier(raw.beneficiario),
    movimento,
    movement: movement!,
    valorLiquidacao,
    raw,
  };
}

function paymentTypeOf(raw: Record<string, unknown>): PaymentType[] {
  return PAYMENT_TYPES.filter((type) =>
    PAYMENT_TYPE_MARKERS[type].some((field) => raw[field] !== undefined && raw[field] !== null),
  );
}

function parsePayment(value: unknown): PaymentItem | string {
  if (!value || typeof value !== 'object' || Array.isArray(value))
    return 'a payment notification must be one JSON object';
  const raw = value as Record<string, unknown>;
  const problems: string[] = [];
  const idTransacao = typeof raw.idTransacao === 'string' ? raw.idTransacao : undefined;
  if (!idTransacao) problems.push('idTransacao is missing');
  else if (!PAYMENT_ID_PATTERN.test(idTransacao))
    problems.push(`idTransacao does not match the bank's pattern ${PAYMENT_ID_RULE}`);
  const status = typeof raw.status === 'string' && raw.status.trim() ? raw.status.trim() : undefined;
  if (!status) problems.push('status is missing');
  const types = paymentTypeOf(raw);
  if (types.length !== 1) {
    problems.push(
      types.length === 0
        ? 'it is not recognisably a Pix, boleto or tax payment (expected idPagamentoPix, idPagamentoBoleto or idPagamentoTributo)'
        : `it looks like more than one payment kind (${types.join(', ')})`,
    );
  }
  let valorPagamento: string | undefined;
  if (raw.valorPagamento !== undefined && raw.valorPagamento !== null) {
    const cents = toCents(raw.valorPagamento);
    if (cents === undefined)
      problems.push(`valorPagamento ${JSON.stringify(raw.valorPagamento).slice(0, 40)} is not an amount`);
    else valorPagamento = (cents / 100).toFixed(2);
  }
  if (problems.length) return `payment notification: ${problems.join('; ')}`;
  return { kind: 'payment', type: types[0], idTransacao: idTransacao!, status: status!, valorPagamento, raw };
}

/** Deepest nesting of arrays and objects a notification may have (the bank's are 2 or 3 deep). */
export const MAX_NESTING = 32;

/** Whether `value` nests arrays or objects deeper than `limit` (iterative: a hostile body cannot overflow the stack). */
export function nestedDeeperThan(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [current, depth] = stack.pop()!;
    if (!current || typeof current !== 'object') continue;
    if (depth >= limit) return true;
    for (const child of Object.values(current)) stack.push([child, depth + 1]);
  }
  return false;
}

/** The boleto events of a body: one object, an array of them, or an `{"eventos": [...]}` wrapper. */
function boletoEventList(value: unknown): { list: unknown[]; wrapped: boolean } {
  if (Array.isArray(value)) return { list: value, wrapped: true };
  const eventos = value && typeof value === 'object' ? (value as Record<string, unknown>).eventos : undefined;
  if (Array.isArray(eventos) && (value as Record<string, unknown>).nossoNumero === undefined)
    return { list: eventos, wrapped: true };
  return { list: [value], wrapped: false };
}

/**
 * Turns a stored request's body into the changes it announces: boleto events (one object, an
 * array of them, or `{"eventos": [...]}`) on `/boleto`; one payment on `/payments`. What cannot
 * be understood is returned as problems, with the reason.
 */
export function parseNotification(route: Route, body: Buffer, movements: BoletoMovementMapping): ParsedNotification {
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch {
    return { items: [], problems: [`the ${route} notification body is not JSON (${body.length} bytes)`] };
  }
  if (nestedDeeperThan(value, MAX_NESTING)) {
    return {
      items: [],
      problems: [
        `the ${route} notification body nests objects or arrays deeper than ${MAX_NESTING} levels (${body.length} bytes); no notification of the bank does`,
      ],
    };
  }
  if (route === 'payments') {
    const result = parsePayment(value);
    return typeof result === 'string' ? { items: [], problems: [result] } : { items: [result], problems: [] };
  }
  const { list, wrapped } = boletoEventList(value);
  if (list.length === 0) return { items: [], problems: ['the boleto notification is an empty array'] };
  const items: NotificationItem[] = [];
  const problems: string[] = [];
  list.forEach((entry, index) => {
    const result = parseBoletoEvent(entry, wrapped ? `boleto event ${index}` : 'boleto event', movements);
    if (typeof result === 'string') problems.push(result);
    else items.push(result);
  });
  return { items, problems };
}
