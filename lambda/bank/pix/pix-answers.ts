/**
 * How the library reads the Pix API's answers (PIX-NOTES.md): every reading the standard and this
 * bank are known to write (`endToEndId` or `endToEndID`; `horario` as a string or
 * `{solicitacao, liquidacao}`; `devolucoes` as an array or one object), into one shape. What the
 * standard requires and is missing, or malformed, is the provider's error, never a guess.
 */
import { CHARGE_TXID, END_TO_END_ID, PIX_AMOUNT, PIX_TXID, RefundStatus } from '../../../contracts/pix';
import { BankApiError } from '../errors';

export enum ChargeState {
  ACTIVE = 'ATIVA',
  CONCLUDED = 'CONCLUIDA',
  /** `REMOVIDA_PELO_USUARIO_RECEBEDOR`, `REMOVIDA_PELO_PSP` (the prose also writes `REMOVIDO_...`). */
  REMOVED = 'REMOVIDA',
}

/** The statuses read as they are written; the removals are matched by prefix. */
const CHARGE_STATES: Readonly<Record<string, ChargeState>> = { ATIVA: ChargeState.ACTIVE, CONCLUIDA: ChargeState.CONCLUDED };

export interface PixRefundRead {
  readonly id: string;
  readonly rtrId?: string;
  readonly valor: string;
  readonly status: RefundStatus;
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
  /** When the Pix was settled (a query's `horario.liquidacao`, else its `horario`). */
  readonly horario: string;
  /** The payer's free-text message (at most 140 characters kept). */
  readonly infoPagador?: string;
  readonly refunds: readonly PixRefundRead[];
}

export interface ChargeRead {
  readonly txid: string;
  readonly state: ChargeState;
  /** The status as written (`REMOVIDA_PELO_PSP`...). */
  readonly status: string;
  readonly valorOriginal: string;
  readonly chave?: string;
  readonly pix: readonly PixRead[];
}

export interface PixPageRead {
  readonly pix: readonly PixRead[];
  readonly paginaAtual: number;
  readonly quantidadeDePaginas: number;
}

type Fields = Record<string, unknown>;

/** The standard bounds `infoPagador` at 140 characters: nothing longer is kept. */
const MAX_INFO_PAGADOR = 140;

/** Reads one answer: the operation, the HTTP status, and what is wrong, in one error. */
class Reader {
  constructor(private readonly operation: string, private readonly status: number) {}

  fail(what: string): never {
    throw new BankApiError(this.operation, this.status, `the answer ${what}`, false);
  }

  object(value: unknown, where: string): Fields {
    if (!value || typeof value !== 'object' || Array.isArray(value)) this.fail(`has no object at ${where}`);
    return value as Fields;
  }

  text(o: Fields, name: string, where: string, pattern?: RegExp): string {
    const value = o[name];
    if (typeof value !== 'string' || !value || (pattern && !pattern.test(value))) this.fail(`has no valid ${where}.${name}`);
    return value;
  }

  optionalText(o: Fields, name: string, where: string, pattern?: RegExp): string | undefined {
    return o[name] === undefined || o[name] === null ? undefined : this.text(o, name, where, pattern);
  }

  time(value: unknown, where: string): string {
    if (typeof value !== 'string' || !Number.isFinite(Date.parse(value))) this.fail(`has no valid time at ${where}`);
    return value;
  }

  refund(value: unknown, where: string): PixRefundRead {
    const o = this.object(value, where);
    const status = this.text(o, 'status', where);
    if (!(Object.values(RefundStatus) as string[]).includes(status)) this.fail(`has an unknown refund status at ${where}.status (${status.slice(0, 40)})`);
    const horario = o.horario && typeof o.horario === 'object' ? o.horario as Fields : {};
    return {
      id: this.text(o, 'id', where), rtrId: this.optionalText(o, 'rtrId', where), valor: this.text(o, 'valor', where, PIX_AMOUNT), status: status as RefundStatus,
      requestedAt: horario.solicitacao === undefined ? undefined : this.time(horario.solicitacao, `${where}.horario.solicitacao`),
      settledAt: horario.liquidacao === undefined ? undefined : this.time(horario.liquidacao, `${where}.horario.liquidacao`),
      motivo: this.optionalText(o, 'motivo', where),
    };
  }

  pix(value: unknown, where: string): PixRead {
    const o = this.object(value, where);
    const endToEndId = o.endToEndId ?? o.endToEndID;
    if (typeof endToEndId !== 'string' || !END_TO_END_ID.test(endToEndId)) this.fail(`has no valid ${where}.endToEndId`);
    const horario = o.horario && typeof o.horario === 'object'
      ? this.time((o.horario as Fields).liquidacao ?? (o.horario as Fields).solicitacao, `${where}.horario`)
      : this.time(o.horario, `${where}.horario`);
    const refunds = o.devolucoes === undefined || o.devolucoes === null ? [] : Array.isArray(o.devolucoes) ? o.devolucoes : [o.devolucoes];
    return {
      endToEndId, txid: this.optionalText(o, 'txid', where, PIX_TXID), valor: this.text(o, 'valor', where, PIX_AMOUNT), chave: this.optionalText(o, 'chave', where), horario,
      ...(typeof o.infoPagador === 'string' && o.infoPagador ? { infoPagador: o.infoPagador.slice(0, MAX_INFO_PAGADOR) } : {}),
      refunds: refunds.map((r, i) => this.refund(r, `${where}.devolucoes[${i}]`)),
    };
  }
}

/** A Pix (`GET /pix/{e2eid}`, a callback's item). */
export function readPix(value: unknown, operation: string, status: number): PixRead {
  return new Reader(operation, status).pix(value, 'pix');
}

/** One refund (`GET /pix/{e2eid}/devolucao/{id}`). */
export function readRefund(value: unknown, operation: string, status: number): PixRefundRead {
  return new Reader(operation, status).refund(value, 'devolucao');
}

/** A charge (`GET /cob/{txid}`, `GET /cobv/{txid}`) with the Pix that paid it. */
export function readCharge(value: unknown, operation: string, status: number): ChargeRead {
  const r = new Reader(operation, status);
  const o = r.object(value, 'cob');
  const written = r.text(o, 'status', 'cob');
  const state = CHARGE_STATES[written] ?? (/^REMOVID[AO]_/.test(written) ? ChargeState.REMOVED : r.fail(`has an unknown charge status (${written.slice(0, 40)})`));
  const pix = o.pix === undefined || o.pix === null ? [] : Array.isArray(o.pix) ? o.pix : r.fail('has cob.pix that is not a list');
  return {
    txid: r.text(o, 'txid', 'cob', CHARGE_TXID), state, status: written, valorOriginal: r.text(r.object(o.valor, 'cob.valor'), 'original', 'cob.valor', PIX_AMOUNT),
    chave: r.optionalText(o, 'chave', 'cob'), pix: pix.map((p, i) => r.pix(p, `cob.pix[${i}]`)),
  };
}

/** A page of `GET /pix`: its Pix, and which page of how many (pages from 0). */
export function readPixPage(value: unknown, operation: string, status: number): PixPageRead {
  const r = new Reader(operation, status);
  const o = r.object(value, '(root)');
  const paging = r.object(r.object(o.parametros, 'parametros').paginacao, 'parametros.paginacao');
  const count = (name: string) => (Number.isInteger(paging[name]) && (paging[name] as number) >= 0 ? paging[name] as number : r.fail(`has no valid parametros.paginacao.${name}`));
  if (!Array.isArray(o.pix)) r.fail('has no pix list');
  return { pix: (o.pix as unknown[]).map((p, i) => r.pix(p, `pix[${i}]`)), paginaAtual: count('paginaAtual'), quantidadeDePaginas: count('quantidadeDePaginas') };
}
