/**
 * How the library reads the Pix API's answers (cdk-bank-webhooks/docs/pix.md): every reading the standard and this
 * bank are known to write (`endToEndId` or `endToEndID`; `horario` as a string or
 * `{solicitacao, liquidacao}`, with its zone or without one; `devolucoes` as an array or one
 * object), into one shape. What the standard requires and is missing, or malformed, is the
 * provider's error, never a guess; an optional detail that is malformed is left out, and one
 * refund that cannot be read does not make its Pix unreadable (it is named in `unreadableRefunds`).
 */
import { CHARGE_TXID, END_TO_END_ID, PIX_AMOUNT, PIX_TXID, RefundNature, RefundStatus } from '../../../contracts/pix';
import { BankApiError } from '../errors';
import { errorMessage } from '../../shared/runtime';
import { readPixTime } from './time';
import { isObject } from './receiving';

export enum ChargeState {
  /** `ATIVA` (a `cobr`'s `CRIADA` too): waiting for its Pix. */
  ACTIVE = 'ATIVA',
  CONCLUDED = 'CONCLUIDA',
  /**
   * Closed unpaid: `REMOVIDA_PELO_USUARIO_RECEBEDOR`, `REMOVIDA_PELO_PSP` (the prose also writes
   * `REMOVIDO_...`); a `cobr`'s `EXPIRADA`, `REJEITADA`, `CANCELADA`.
   */
  REMOVED = 'REMOVIDA',
}

/** The statuses read as they are written; the removals are matched by prefix. */
const CHARGE_STATES: Readonly<Record<string, ChargeState>> = {
  ATIVA: ChargeState.ACTIVE,
  CRIADA: ChargeState.ACTIVE,
  CONCLUIDA: ChargeState.CONCLUDED,
  EXPIRADA: ChargeState.REMOVED,
  REJEITADA: ChargeState.REMOVED,
  CANCELADA: ChargeState.REMOVED,
};

/** The parts of a Pix's amount (`componentesValor`), each as written (`\d{1,10}\.\d{2}`). */
export const VALUE_COMPONENTS = ['original', 'saque', 'troco', 'juros', 'multa', 'abatimento', 'desconto'] as const;
export type ValueComponent = (typeof VALUE_COMPONENTS)[number];

export interface PixRefundRead {
  readonly id: string;
  readonly rtrId?: string;
  readonly valor: string;
  readonly status: RefundStatus;
  /** `ORIGINAL` when the answer names none (the standard's rule); undefined for a nature the standard does not define. */
  readonly natureza?: RefundNature;
  /** A nature the standard does not define, as written (at most 40 characters). */
  readonly naturezaAsWritten?: string;
  readonly descricao?: string;
  readonly requestedAt?: string;
  /** `horario.liquidacao`: when the refund reached its final status. */
  readonly settledAt?: string;
  readonly motivo?: string;
}

export interface PixRead {
  readonly endToEndId: string;
  readonly txid?: string;
  readonly valor: string;
  readonly chave?: string;
  /** When the Pix was settled (a query's `horario.liquidacao`, else its `horario`), with its zone. */
  readonly horario: string;
  /** Whether the provider wrote `horario` without a zone (read in Brasília's). */
  readonly horarioZoneAssumed?: boolean;
  /** The payer's free-text message (at most 140 characters kept). */
  readonly infoPagador?: string;
  /** The parts of the amount the provider shows (`componentesValor`), each well-formed one. */
  readonly componentesValor?: Readonly<Partial<Record<ValueComponent, string>>>;
  readonly refunds: readonly PixRefundRead[];
  /** Why each refund that could not be read was left out (`devolucoes[i]: ...`). */
  readonly unreadableRefunds?: readonly string[];
}

export interface ChargeRead {
  readonly txid: string;
  readonly state: ChargeState;
  /** The status as written (`REMOVIDA_PELO_PSP`...). */
  readonly status: string;
  readonly valorOriginal: string;
  readonly chave?: string;
  /** The end-to-end ids of the Pix that paid it; undefined when the answer leaves its optional `pix` list out. */
  readonly paidBy?: readonly string[];
  /** The account it pays into (a `cobr`'s `recebedor`: `agencia`, `conta`), where the answer writes one. */
  readonly account?: { readonly agencia?: string; readonly conta?: string };
}

export interface PixPageRead {
  readonly pix: readonly PixRead[];
  readonly paginaAtual: number;
  readonly quantidadeDePaginas: number;
}

type Fields = Record<string, unknown>;

/** The standard bounds `infoPagador`, `descricao` and `motivo` at 140 characters: nothing longer is kept. */
const MAX_TEXT = 140;
const NATURES = new Set<string>(Object.values(RefundNature));
/** An optional text field, at most 140 characters kept; undefined when absent, empty or not a string. */
export const optionalTextOf = (o: Fields, name: string): string | undefined =>
  typeof o[name] === 'string' && o[name] ? o[name].slice(0, MAX_TEXT) : undefined;

/** A Pix's `devolucoes` as written: an array, one object (the standard's own example), or none. */
export const refundsWritten = (value: unknown): unknown[] =>
  value === undefined || value === null ? [] : Array.isArray(value) ? value : [value];

/** Reads one answer: the operation, the HTTP status, and what is wrong, in one error. */
export class Reader {
  constructor(
    private readonly operation: string,
    private readonly status: number,
  ) {}

  fail(what: string): never {
    throw new BankApiError(this.operation, this.status, `the answer ${what}`, false);
  }

  object(value: unknown, where: string): Fields {
    if (!isObject(value)) this.fail(`has no object at ${where}`);
    return value;
  }

  text(o: Fields, name: string, where: string, pattern?: RegExp): string {
    const value = o[name];
    if (typeof value !== 'string' || !value || (pattern && !pattern.test(value)))
      this.fail(`has no valid ${where}.${name}`);
    return value;
  }

  optionalText(o: Fields, name: string, where: string, pattern?: RegExp): string | undefined {
    return o[name] === undefined || o[name] === null ? undefined : this.text(o, name, where, pattern);
  }

  /**
   * The end-to-end ids of a charge's `pix` list (what ties a Pix to it: a malformed one is the
   * provider's error); undefined when the answer leaves the optional list out.
   */
  paidBy(value: unknown, where: string): string[] | undefined {
    if (value === undefined || value === null) return undefined;
    if (!Array.isArray(value)) this.fail(`has ${where} that is not a list`);
    return value.map((p, i) => {
      const id = isObject(p) ? (p.endToEndId ?? p.endToEndID) : undefined;
      return typeof id === 'string' && END_TO_END_ID.test(id)
        ? id
        : this.fail(`has no valid ${where}[${i}].endToEndId`);
    });
  }

  /** A required time: refused with a reason when it is not a date-time. */
  time(value: unknown, where: string): { at: string; zoneAssumed: boolean } {
    return readPixTime(value) ?? this.fail(`has no valid time at ${where} (an RFC 3339 date-time)`);
  }

  refund(value: unknown, where: string): PixRefundRead {
    const o = this.object(value, where);
    const status = this.text(o, 'status', where);
    if (!(Object.values(RefundStatus) as string[]).includes(status))
      this.fail(`has an unknown refund status at ${where}.status (${status.slice(0, 40)})`);
    // Its optional details: one malformed is left out, never a reason to refuse the refund.
    const horario = isObject(o.horario) ? o.horario : {};
    const written = o.natureza === undefined || o.natureza === null ? RefundNature.ORIGINAL : o.natureza;
    const natureza = typeof written === 'string' && NATURES.has(written) ? (written as RefundNature) : undefined;
    const asWritten =
      natureza === undefined && typeof written === 'string' && /^[A-Z0-9_]{1,40}$/.test(written) ? written : undefined;
    const rtrId = typeof o.rtrId === 'string' && END_TO_END_ID.test(o.rtrId) ? o.rtrId : undefined;
    const [descricao, motivo] = [optionalTextOf(o, 'descricao'), optionalTextOf(o, 'motivo')];
    const [requestedAt, settledAt] = [readPixTime(horario.solicitacao)?.at, readPixTime(horario.liquidacao)?.at];
    return {
      id: this.text(o, 'id', where),
      valor: this.text(o, 'valor', where, PIX_AMOUNT),
      status: status as RefundStatus,
      ...(rtrId ? { rtrId } : {}),
      ...(natureza ? { natureza } : {}),
      ...(asWritten ? { naturezaAsWritten: asWritten } : {}),
      ...(descricao ? { descricao } : {}),
      ...(requestedAt ? { requestedAt } : {}),
      ...(settledAt ? { settledAt } : {}),
      ...(motivo ? { motivo } : {}),
    };
  }

  pix(value: unknown, where: string): PixRead {
    const o = this.object(value, where);
    const endToEndId = o.endToEndId ?? o.endToEndID;
    if (typeof endToEndId !== 'string' || !END_TO_END_ID.test(endToEndId))
      this.fail(`has no valid ${where}.endToEndId`);
    const horario = isObject(o.horario)
      ? this.time(o.horario.liquidacao ?? o.horario.solicitacao, `${where}.horario`)
      : this.time(o.horario, `${where}.horario`);
    const refunds: PixRefundRead[] = [];
    const unreadable: string[] = [];
    refundsWritten(o.devolucoes).forEach((r, i) => {
      try {
        refunds.push(this.refund(r, `${where}.devolucoes[${i}]`));
      } catch (error) {
        unreadable.push(`devolucoes[${i}]: ${errorMessage(error)}`);
      }
    });
    const components = componentsOf(o.componentesValor);
    const infoPagador = optionalTextOf(o, 'infoPagador');
    return {
      endToEndId,
      txid: this.optionalText(o, 'txid', where, PIX_TXID),
      valor: this.text(o, 'valor', where, PIX_AMOUNT),
      chave: this.optionalText(o, 'chave', where),
      horario: horario.at,
      ...(horario.zoneAssumed ? { horarioZoneAssumed: true } : {}),
      ...(infoPagador ? { infoPagador } : {}),
      ...(components ? { componentesValor: components } : {}),
      refunds,
      ...(unreadable.length ? { unreadableRefunds: unreadable } : {}),
    };
  }
}

/** The well-formed parts of `componentesValor` (`{original: {valor}, saque: {valor, ...}, ...}`), or undefined for none. */
function componentsOf(value: unknown): PixRead['componentesValor'] {
  if (!isObject(value)) return undefined;
  const parts: Partial<Record<ValueComponent, string>> = {};
  for (const name of VALUE_COMPONENTS) {
    const part = value[name];
    if (isObject(part) && typeof part.valor === 'string' && PIX_AMOUNT.test(part.valor)) parts[name] = part.valor;
  }
  return Object.keys(parts).length ? parts : undefined;
}

/** A Pix (`GET /pix/{e2eid}`, a callback's item). */
export function readPix(value: unknown, operation: string, status: number): PixRead {
  return new Reader(operation, status).pix(value, 'pix');
}

/** One refund (`GET /pix/{e2eid}/devolucao/{id}`). */
export function readRefund(value: unknown, operation: string, status: number): PixRefundRead {
  return new Reader(operation, status).refund(value, 'devolucao');
}

/**
 * A charge (`GET /cob/{txid}`, `/cobv/{txid}`, `/cobr/{txid}`) and the end-to-end ids of the Pix
 * that paid it: only their ids are read (a malformed detail of a paying Pix is that Pix's own
 * answer's to show).
 */
export function readCharge(value: unknown, operation: string, status: number): ChargeRead {
  const r = new Reader(operation, status);
  const o = r.object(value, 'cob');
  const written = r.text(o, 'status', 'cob');
  const state =
    CHARGE_STATES[written] ??
    (/^REMOVID[AO]_/.test(written)
      ? ChargeState.REMOVED
      : r.fail(`has an unknown charge status (${written.slice(0, 40)})`));
  const paidBy = r.paidBy(o.pix, 'cob.pix');
  const account = accountOf(o.recebedor);
  return {
    txid: r.text(o, 'txid', 'cob', CHARGE_TXID),
    state,
    status: written,
    valorOriginal: r.text(r.object(o.valor, 'cob.valor'), 'original', 'cob.valor', PIX_AMOUNT),
    chave: r.optionalText(o, 'chave', 'cob'),
    ...(paidBy ? { paidBy } : {}),
    ...(account ? { account } : {}),
  };
}

/** A charge's `recebedor` account (`agencia` up to 4 digits, `conta` letters, digits and a dash), where written; undefined for neither. */
export function accountOf(value: unknown): { agencia?: string; conta?: string } | undefined {
  if (!isObject(value)) return undefined;
  const agencia = typeof value.agencia === 'string' && /^\d{1,4}$/.test(value.agencia) ? value.agencia : undefined;
  const conta = typeof value.conta === 'string' && /^[0-9A-Za-z-]{1,20}$/.test(value.conta) ? value.conta : undefined;
  return agencia || conta ? { ...(agencia ? { agencia } : {}), ...(conta ? { conta } : {}) } : undefined;
}

/**
 * A page of `GET /pix`: its Pix, and which page of how many (pages from 0). An answer without a
 * `pix` array is an empty page (the standard's schema makes the list optional).
 */
export function readPixPage(value: unknown, operation: string, status: number): PixPageRead {
  const r = new Reader(operation, status);
  const { listed, ...paging } = readListingPage(r, value, 'pix');
  return { pix: listed.map((p, i) => r.pix(p, `pix[${i}]`)), ...paging };
}

/** A page of `GET /cob` or `GET /cobv`: its charges (`cobs`), each read as its query's answer. */
export interface ChargePageRead {
  readonly cobs: readonly ChargeRead[];
  readonly paginaAtual: number;
  readonly quantidadeDePaginas: number;
}

/** A page of `GET /cob` or `GET /cobv` (an answer without `cobs` is an empty page). */
export function readChargePage(value: unknown, operation: string, status: number): ChargePageRead {
  const { listed, ...paging } = readListingPage(new Reader(operation, status), value, 'cobs');
  return { cobs: listed.map((c) => readCharge(c, operation, status)), ...paging };
}

/**
 * A listing page's items (its `list`, as written; a page without it is empty, the standard's schemas
 * making every list optional) and which page of how many (pages from 0).
 */
export function readListingPage(
  r: Reader,
  value: unknown,
  list: string,
): { listed: unknown[]; paginaAtual: number; quantidadeDePaginas: number } {
  const o = r.object(value, '(root)');
  const paging = r.object(r.object(o.parametros, 'parametros').paginacao, 'parametros.paginacao');
  const count = (name: string) =>
    Number.isInteger(paging[name]) && (paging[name] as number) >= 0
      ? (paging[name] as number)
      : r.fail(`has no valid parametros.paginacao.${name}`);
  const items = o[list];
  const listed =
    items === undefined || items === null
      ? []
      : Array.isArray(items)
        ? items
        : r.fail(`has ${list} that is not a list`);
  return { listed, paginaAtual: count('paginaAtual'), quantidadeDePaginas: count('quantidadeDePaginas') };
}
