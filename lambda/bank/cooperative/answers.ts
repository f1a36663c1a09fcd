/**
 * Reading the bank's answers: the values every answer writes its own way (amounts as numbers or
 * decimal strings, ids as strings or numbers, dates in four formats), and the bank's day. Pure
 * functions, shared by every path that reads an answer (the processor, the sweep, the tools).
 */
import { ZuluTimestamps } from '../../../contracts/bank-connection';
import type { EventAmount } from '../../../contracts/events';
import { BankApiError } from '../errors';
import { BRASILIA_OFFSET_MS, brasiliaDay } from '../base/calendar';

/** A money amount as a whole number of cents, or undefined when it is not one ("250.75", "250", 250.7). */
export function toCents(value: unknown): number | undefined {
  const text =
    typeof value === 'number' && Number.isFinite(value) ? String(value) : typeof value === 'string' ? value.trim() : '';
  const match = /^(\d{1,15})(?:\.(\d{1,2})0*)?$/.exec(text);
  if (!match) return undefined;
  return Number(match[1]) * 100 + Number((match[2] ?? '0').padEnd(2, '0'));
}

/** A string or whole-number id as text, or undefined. */
export function identifier(value: unknown): string | undefined {
  if (typeof value === 'string' && value.trim()) return value.trim();
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return String(value);
  return undefined;
}

/** The bank's offset: its dates are local to America/Sao_Paulo, which keeps UTC−3 all year. */
export const BANK_OFFSET = '-03:00';

/** Digits of a `nossoNumero`: the bank's boleto ids are always nine (cdk-bank-webhooks/docs/bank-api.md). */
export const NOSSO_NUMERO_DIGITS = 9;

/**
 * A `nossoNumero` as the bank writes it, nine digits (one of fewer digits, or a number, is
 * zero-padded as clients do); undefined when it is not one to nine digits.
 */
export function nossoNumeroOf(value: unknown): string | undefined {
  const text = identifier(value);
  return text && /^\d{1,9}$/.test(text) ? text.padStart(NOSSO_NUMERO_DIGITS, '0') : undefined;
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/**
 * A date the bank wrote in any of its formats, as ISO 8601 in the bank's offset: a date array
 * `[y, m, d, h, min, s, ns]` (notifications), `DD/MM/YYYY`, `YYYY-MM-DD HH:MM:SS.s` (listings),
 * `YYYY-MM-DDTHH:mm:ss.SSSZ` (the boleto query, its Z read as `zulu` says) or ISO text with an
 * offset. A date without a time stays a date (`YYYY-MM-DD`). Undefined when it is none of these.
 */
export function bankDateToIso(value: unknown, zulu: ZuluTimestamps = ZuluTimestamps.UTC): string | undefined {
  let parts: number[] | undefined;
  if (
    Array.isArray(value) &&
    value.length >= 3 &&
    value.every((n) => typeof n === 'number' && Number.isInteger(n) && n >= 0)
  ) {
    parts = value as number[];
  } else if (typeof value === 'string') {
    const text = value.trim();
    let m = /^(\d{2})\/(\d{2})\/(\d{4})$/.exec(text);
    if (m) parts = [Number(m[3]), Number(m[2]), Number(m[1])];
    m ??= /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?$/.exec(text);
    if (m && !parts) {
      parts = [Number(m[1]), Number(m[2]), Number(m[3])];
      // The listing's "2024-06-18 00:00:00.0" names a day, not a moment.
      const midnight =
        !m[4] || (Number(m[4]) === 0 && Number(m[5]) === 0 && Number(m[6] ?? 0) === 0 && Number(m[7] ?? 0) === 0);
      if (!midnight) parts.push(Number(m[4]), Number(m[5]), Number(m[6] ?? 0), Number((m[7] ?? '0').padEnd(9, '0')));
    } else if (!parts && /^\d{4}-\d{2}-\d{2}T.*(Z|[+-]\d{2}:\d{2})$/.test(text) && !Number.isNaN(Date.parse(text))) {
      if (!/Z$/i.test(text)) return text;
      // In the bank's offset, so that its first ten characters are the bank's day.
      const local = new Date(Date.parse(text) - (zulu === ZuluTimestamps.UTC ? BRASILIA_OFFSET_MS : 0));
      const t = local.toISOString();
      return `${t.slice(0, 23)}${BANK_OFFSET}`;
    }
  }
  if (!parts) return undefined;
  const [year, month, day, hour, minute, second, nanos] = parts;
  if (month < 1 || month > 12 || day < 1 || day > 31) return undefined;
  const date = `${pad(year, 4)}-${pad(month)}-${pad(day)}`;
  if (hour === undefined) return date;
  const millis = nanos === undefined ? '' : `.${pad(Math.floor(nanos / 1_000_000), 3)}`;
  return `${date}T${pad(hour)}:${pad(minute ?? 0)}:${pad(second ?? 0)}${millis}${BANK_OFFSET}`;
}

/** An amount as cents and as the bank's two-place decimal, or undefined when it is not one. */
export function amountOf(value: unknown): EventAmount | undefined {
  const cents = toCents(value);
  return cents === undefined ? undefined : { cents, decimal: (cents / 100).toFixed(2) };
}

/** Whether an answer is about the subject asked for (`field` when it names one). */
export function answerNames(answer: Record<string, unknown>, field: string, expected: string): boolean {
  const named = identifier(answer[field]);
  return named === undefined || named === expected;
}

/** The bank's local day (America/Sao_Paulo, UTC−3 all year) `daysBack` days before `now`: ISO and the listing's `DD/MM/YYYY`. */
export function bankDay(now: number, daysBack = 0): { iso: string; dia: string } {
  const iso = brasiliaDay(now, daysBack);
  return { iso, dia: `${iso.slice(8, 10)}/${iso.slice(5, 7)}/${iso.slice(0, 4)}` };
}

/** The JSON object of a bank answer, or a BankApiError naming the operation. */
export function answerObject(body: unknown, operation: string, status: number): Record<string, unknown> {
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw new BankApiError(operation, status, 'the answer is not a JSON object', false);
  return body as Record<string, unknown>;
}

/** One page of the settled boletos listing. */
export interface SettledBoletosPage {
  readonly items: readonly Record<string, unknown>[];
  /** Whether the bank says a next page exists; undefined when it does not say (then a full page may have more). */
  readonly hasNext?: boolean;
}

/**
 * A listing answer as a page: its object items, and `hasNext` read as a boolean or the string
 * "true"/"false" (the manual's table types it String, its example a boolean); anything else, or
 * nothing, is undefined: the reader decides by the page's size.
 */
export function settledPage(body: unknown, operation: string, status: number): SettledBoletosPage {
  const answer = answerObject(body, operation, status);
  if (!Array.isArray(answer.items)) throw new BankApiError(operation, status, 'the answer has no items list', false);
  const items = answer.items.filter(
    (item): item is Record<string, unknown> => !!item && typeof item === 'object' && !Array.isArray(item),
  );
  const text = typeof answer.hasNext === 'string' ? answer.hasNext.trim().toLowerCase() : answer.hasNext;
  const hasNext = text === true || text === 'true' ? true : text === false || text === 'false' ? false : undefined;
  return { items, hasNext };
}
