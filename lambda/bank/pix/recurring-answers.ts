/**
 * How the library reads Pix Automático's answers (`GET /rec/{idRec}`, `GET /cobr/{txid}`, the
 * standard's `RecCompleta` and `CobRCompleta`, and their listings). What the standard
 * requires and is missing, or malformed, is the provider's error, never a guess. A status history
 * entry, an ending or an attempt whose own details are malformed keeps what is readable: the
 * standard's own example writes a settlement date with a month 20, so dates are kept as written
 * and decide nothing. A callback's ids are read by recurring-notification.ts.
 */
import { CHARGE_TXID, END_TO_END_ID, PIX_AMOUNT } from '../../../contracts/pix';
import { AttemptStatus, CancelledBy, REC_ID, RecStatus, RecurringChargeStatus } from '../../../contracts/pix-recurring';
import { accountOf, optionalTextOf, Reader, readListingPage } from './answers';
import { isObject } from './receiving';

/** One entry of a status history (`atualizacao`): the status, and when where it is a date-time. */
export interface StatusEntry {
  readonly status: string;
  readonly at?: string;
}

/** How a recurrence or a recurring charge ended, when it was rejected or cancelled (`encerramento`). */
export interface EndingRead {
  readonly kind: 'rejection' | 'cancellation';
  /** The catalog's code, as written (at most 4 letters and digits). */
  readonly codigo?: string;
  /** Who cancelled (`solicitante`), when the standard's. */
  readonly by?: CancelledBy;
  /** The provider's words (at most 140 characters kept). */
  readonly descricao?: string;
}

export interface RecurrenceRead {
  readonly idRec: string;
  readonly status: RecStatus;
  readonly history: readonly StatusEntry[];
  readonly ending?: EndingRead;
  /** How the payer authorized it (`ativacao.tipoJornada`). */
  readonly journey?: string;
  /** The company it pays (`recebedor.cnpj`) and its provider's ISPB, as written. */
  readonly receiver: { readonly cnpj?: string; readonly ispbParticipante?: string };
  /** `NAO_PERMITE` or `PERMITE_3R_7D`, as written. */
  readonly retryPolicy?: string;
  /** A fixed amount (`valor.valorRec`). */
  readonly fixedAmount?: string;
}

/** One attempt to settle a recurring charge, under the end-to-end id its Pix has. */
export interface AttemptRead {
  readonly endToEndId: string;
  readonly status: AttemptStatus;
  /** `AGND`, `NTAG` or `RIFL`, as written. */
  readonly kind?: string;
  /** `dataLiquidacao` as written (the standard's own example writes a month 20). */
  readonly settlementDate?: string;
  readonly rejection?: { readonly codigo?: string; readonly descricao?: string };
}

export interface RecurringChargeRead {
  readonly idRec: string;
  readonly txid: string;
  readonly status: RecurringChargeStatus;
  readonly valorOriginal: string;
  /** `calendario.dataDeVencimento` as written. */
  readonly dueDate?: string;
  /** The account it pays into (`recebedor`: `agencia`, `conta`), as written. */
  readonly receiver: { readonly agencia?: string; readonly conta?: string };
  readonly history: readonly StatusEntry[];
  readonly ending?: EndingRead;
  readonly attempts: readonly AttemptRead[];
  /** The end-to-end ids of the Pix that paid it; undefined when the answer leaves its optional `pix` list out. */
  readonly paidBy?: readonly string[];
}

type Fields = Record<string, unknown>;

const CODE = /^[A-Z0-9]{1,4}$/;
const REC_STATUSES: readonly string[] = Object.values(RecStatus);
const CHARGE_STATUSES: readonly string[] = Object.values(RecurringChargeStatus);
const ATTEMPT_STATUSES: readonly string[] = Object.values(AttemptStatus);
const CANCELLERS: readonly string[] = Object.values(CancelledBy);

const written = (o: Fields, name: string, pattern: RegExp): string | undefined =>
  typeof o[name] === 'string' && pattern.test(o[name]) ? o[name] : undefined;
const dateTime = (value: unknown): string | undefined =>
  typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(value) && Number.isFinite(Date.parse(value))
    ? value
    : undefined;
/** Spreads `{ [name]: value }` only when `value` is defined. */
export const some = <K extends string, V>(name: K, value: V | undefined) =>
  (value === undefined ? {} : { [name]: value }) as Partial<Record<K, V>>;

/** A status history's well-formed entries (an entry with an unknown status is left out). */
function historyOf(value: unknown, statuses: readonly string[]): StatusEntry[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((entry) =>
    isObject(entry) && typeof entry.status === 'string' && statuses.includes(entry.status)
      ? [{ status: entry.status, ...some('at', dateTime(entry.data)) }]
      : [],
  );
}

/** `encerramento`: a rejection or a cancellation, with what is readable of it; undefined for neither. */
function endingOf(value: unknown): EndingRead | undefined {
  if (!isObject(value)) return undefined;
  const [kind, o] = isObject(value.rejeicao)
    ? (['rejection', value.rejeicao] as const)
    : isObject(value.cancelamento)
      ? (['cancellation', value.cancelamento] as const)
      : [undefined, undefined];
  if (!kind) return undefined;
  const by = typeof o.solicitante === 'string' && CANCELLERS.includes(o.solicitante) ? o.solicitante : undefined;
  return {
    kind,
    ...some('codigo', written(o, 'codigo', CODE)),
    ...some('by', by as CancelledBy | undefined),
    ...some('descricao', optionalTextOf(o, 'descricao')),
  };
}

/** A recurrence (`GET /rec/{idRec}`): its id and status required, the rest read where well formed. */
export function readRecurrence(value: unknown, operation: string, status: number): RecurrenceRead {
  const r = new Reader(operation, status);
  const o = r.object(value, 'rec');
  const state = r.text(o, 'status', 'rec');
  if (!REC_STATUSES.includes(state)) r.fail(`has an unknown recurrence status (${state.slice(0, 40)})`);
  const receiver = isObject(o.recebedor) ? o.recebedor : {};
  const ending = endingOf(o.encerramento);
  const valor = isObject(o.valor) ? o.valor : {};
  const journey = isObject(o.ativacao) ? written(o.ativacao, 'tipoJornada', /^[A-Z0-9_]{1,40}$/) : undefined;
  return {
    idRec: r.text(o, 'idRec', 'rec', REC_ID),
    status: state as RecStatus,
    history: historyOf(o.atualizacao, REC_STATUSES),
    ...some('ending', ending),
    ...some('journey', journey),
    receiver: {
      ...some('cnpj', written(receiver, 'cnpj', /^[0-9A-Z]{14}$/)),
      ...some('ispbParticipante', written(receiver, 'ispbParticipante', /^[0-9A-Z]{8}$/)),
    },
    ...some('retryPolicy', written(o, 'politicaRetentativa', /^[A-Z0-9_]{1,40}$/)),
    ...some('fixedAmount', written(valor, 'valorRec', PIX_AMOUNT)),
  };
}

/** One attempt (`tentativas[i]`): its end-to-end id and status required, else undefined (the charge's reader leaves it out). */
function attemptOf(value: unknown): AttemptRead | undefined {
  if (!isObject(value)) return undefined;
  const endToEndId = value.endToEndId ?? value.endToEndID;
  if (typeof endToEndId !== 'string' || !END_TO_END_ID.test(endToEndId)) return undefined;
  if (typeof value.status !== 'string' || !ATTEMPT_STATUSES.includes(value.status)) return undefined;
  const rejection = isObject(value.rejeicao)
    ? {
        ...some('codigo', written(value.rejeicao, 'codigo', CODE)),
        ...some('descricao', optionalTextOf(value.rejeicao, 'descricao')),
      }
    : undefined;
  return {
    endToEndId,
    status: value.status as AttemptStatus,
    ...some('kind', written(value, 'tipo', /^[A-Z]{4}$/)),
    ...some('settlementDate', written(value, 'dataLiquidacao', /^\d{4}-\d{2}-\d{2}$/)),
    ...some('rejection', rejection),
  };
}

/**
 * A recurring charge (`GET /cobr/{txid}`): its recurrence, txid, status and amount required; its
 * attempts and the ids of the Pix that paid it read where well formed (a malformed id in `pix` is
 * the provider's error: it is what ties a Pix to the charge).
 */
export function readRecurringCharge(value: unknown, operation: string, status: number): RecurringChargeRead {
  const r = new Reader(operation, status);
  const o = r.object(value, 'cobr');
  const state = r.text(o, 'status', 'cobr');
  if (!CHARGE_STATUSES.includes(state)) r.fail(`has an unknown recurring charge status (${state.slice(0, 40)})`);
  const paidBy = r.paidBy(o.pix, 'cobr.pix');
  const calendar = isObject(o.calendario) ? o.calendario : {};
  const attempts = Array.isArray(o.tentativas) ? o.tentativas.map(attemptOf) : [];
  return {
    idRec: r.text(o, 'idRec', 'cobr', REC_ID),
    txid: r.text(o, 'txid', 'cobr', CHARGE_TXID),
    status: state as RecurringChargeStatus,
    valorOriginal: r.text(r.object(o.valor, 'cobr.valor'), 'original', 'cobr.valor', PIX_AMOUNT),
    ...some('dueDate', written(calendar, 'dataDeVencimento', /^\d{4}-\d{2}-\d{2}$/)),
    receiver: accountOf(o.recebedor) ?? {},
    history: historyOf(o.atualizacao, CHARGE_STATUSES),
    ...some('ending', endingOf(o.encerramento)),
    attempts: attempts.filter((a): a is AttemptRead => a !== undefined),
    ...some('paidBy', paidBy),
  };
}

/** A page of `GET /rec` or `GET /cobr` (by creation time): each item read as its query's answer, and which page of how many. */
export interface RecurringPageRead<T> {
  readonly items: readonly T[];
  readonly paginaAtual: number;
  readonly quantidadeDePaginas: number;
}

/** A page of `GET /rec` (`recs`). A malformed item fails the page, as a malformed Pix fails a Pix listing's. */
export function readRecurrencePage(
  value: unknown,
  operation: string,
  status: number,
): RecurringPageRead<RecurrenceRead> {
  const { listed, ...paging } = readListingPage(new Reader(operation, status), value, 'recs');
  return { items: listed.map((item) => readRecurrence(item, operation, status)), ...paging };
}

/** A page of `GET /cobr` (`cobsr`). */
export function readRecurringChargePage(
  value: unknown,
  operation: string,
  status: number,
): RecurringPageRead<RecurringChargeRead> {
  const { listed, ...paging } = readListingPage(new Reader(operation, status), value, 'cobsr');
  return { items: listed.map((item) => readRecurringCharge(item, operation, status)), ...paging };
}
