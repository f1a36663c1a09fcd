/**
 * Record factories for the Pix family's tests: a provider's Pix API as a fake (what it holds
 * under our credentials, 404 for anything else), callbacks as the standard writes them, and the
 * processor's fakes with a Pix client beside the bank.
 */
import type { ChargeRead, PixQueries, PixRead, PixRefundRead } from '../../lambda/bank/pix';
import type { ProcessorDeps } from '../../lambda/processor/deps';
import type { ProcessorSettings } from '../../contracts/processor';
import { ChargeState, readPix, readRefund } from '../../lambda/bank/pix';
import {
  readRecurrence,
  readRecurringCharge,
  type RecurrenceRead,
  type RecurringChargeRead,
} from '../../lambda/bank/pix/recurring-answers';
import type { PixChargeKind } from '../../contracts/events';
import { RefundStatus } from '../../contracts/pix';
import { fakeDeps } from './processor-records';

/** Our keys: an EVP key and an email, as the receiver's props normalize them. */
export const OUR_KEYS = ['0f9a3c52-7b1e-4e0a-9d7c-1c2b3a4d5e6f', 'financeiro@example.com.br'];
export const OUR_KEY = OUR_KEYS[0];

let sequence = 0;
/** A 32-character end-to-end id, as the standard writes them (`E` + ISPB + time + random). */
export const e2e = (tag = ''): string =>
  `E01181521202611271200${(tag + String(++sequence)).padStart(11, 'x')}`.slice(0, 32);
/** A charge's txid (26 to 35 letters and digits). */
export const chargeTxid = (tag = 'cob'): string => `${tag}${'0'.repeat(30)}${++sequence}`.slice(-32);

/** A Pix as a callback (and the query, unless told otherwise) writes it. */
export function pixElement(
  endToEndId: string,
  options: {
    txid?: string;
    valor?: string;
    chave?: string | null;
    horario?: string;
    infoPagador?: string;
    devolucoes?: unknown;
  } = {},
): Record<string, unknown> {
  return {
    endToEndId,
    ...(options.txid !== undefined ? { txid: options.txid } : {}),
    valor: options.valor ?? '110.00',
    ...(options.chave === null ? {} : { chave: options.chave ?? OUR_KEY }),
    horario: options.horario ?? '2026-11-27T12:00:01.000Z',
    ...(options.infoPagador ? { infoPagador: options.infoPagador } : {}),
    ...(options.devolucoes !== undefined ? { devolucoes: options.devolucoes } : {}),
  };
}

export function refundElement(
  id: string,
  status: RefundStatus,
  valor = '110.00',
  liquidacao = '2026-11-27T13:00:00.000Z',
): Record<string, unknown> {
  return {
    id,
    rtrId: `D01181521202611271300${id}`.slice(0, 32),
    valor,
    horario: { solicitacao: '2026-11-27T12:30:00.000Z', ...(status === RefundStatus.IN_PROCESS ? {} : { liquidacao }) },
    status,
  };
}

/** The provider's answer as the library reads it (the real reader: what it leaves out, the fake leaves out). */
const read = (element: Record<string, unknown>): PixRead => readPix(element, 'Pix query (fake)', 200);

/** The provider's Pix API as our credentials see it. */
export class FakePix implements PixQueries {
  readonly pix = new Map<string, PixRead>();
  readonly charges = new Map<string, ChargeRead & { kind: PixChargeKind | 'cob' | 'cobv' | 'cobr' }>();
  readonly refunds = new Map<string, PixRefundRead>();
  readonly recs = new Map<string, RecurrenceRead>();
  readonly cobrs = new Map<string, RecurringChargeRead>();
  readonly calls: string[] = [];

  /** A recurrence ours (`RecCompleta` as the standard writes it): `GET /rec/{idRec}` shows it. */
  holdsRec(element: Record<string, unknown>): void {
    this.recs.set(element.idRec as string, readRecurrence(element, 'recurrence query (fake)', 200));
  }

  /** A recurring charge ours (`CobRCompleta`): `GET /cobr/{txid}` shows it. */
  holdsCobr(element: Record<string, unknown>): void {
    this.cobrs.set(element.txid as string, readRecurringCharge(element, 'recurring charge query (fake)', 200));
  }

  async getRecurrence(idRec: string): Promise<RecurrenceRead | undefined> {
    this.calls.push(`GET /rec/${idRec}`);
    return this.recs.get(idRec);
  }

  async getRecurringCharge(txid: string): Promise<RecurringChargeRead | undefined> {
    this.calls.push(`GET /cobr/${txid}`);
    return this.cobrs.get(txid);
  }

  /** A Pix ours: the query shows it. */
  holds(element: Record<string, unknown>): void {
    this.pix.set(element.endToEndId as string, read(element));
  }

  /** A charge, concluded by the Pix given (or still active with none). */
  charge(
    txid: string,
    kind: 'cob' | 'cobv' | 'cobr',
    paidBy: readonly Record<string, unknown>[] | undefined,
    status = paidBy?.length !== 0 ? 'CONCLUIDA' : 'ATIVA',
    original = '110.00',
    chave?: string,
  ): void {
    this.charges.set(`${kind}/${txid}`, {
      txid,
      kind,
      status,
      state:
        status === 'CONCLUIDA' ? ChargeState.CONCLUDED : status === 'ATIVA' ? ChargeState.ACTIVE : ChargeState.REMOVED,
      valorOriginal: original,
      ...(paidBy ? { paidBy: paidBy.map((p) => p.endToEndId as string) } : {}),
      ...(chave ? { chave } : {}),
    });
  }

  refund(endToEndId: string, element: Record<string, unknown>): void {
    this.refunds.set(`${endToEndId}/${element.id as string}`, readRefund(element, 'refund query (fake)', 200));
  }

  async getPix(endToEndId: string): Promise<PixRead | undefined> {
    this.calls.push(`GET /pix/${endToEndId}`);
    return this.pix.get(endToEndId);
  }

  async getCharge(kind: PixChargeKind, txid: string): Promise<ChargeRead | undefined> {
    this.calls.push(`GET /${kind}/${txid}`);
    const charge = this.charges.get(`${kind}/${txid}`);
    if (!charge) return undefined;
    const { kind: _kind, ...rest } = charge;
    return rest;
  }

  async getRefund(endToEndId: string, id: string): Promise<PixRefundRead | undefined> {
    this.calls.push(`GET /pix/${endToEndId}/devolucao/${id}`);
    return this.refunds.get(`${endToEndId}/${id}`);
  }
}

/** The processor's fakes with a Pix client and our keys (`settings` over the fakes' settings). */
export function fakePixDeps(overrides: Partial<ProcessorDeps> = {}, settings: Partial<ProcessorSettings> = {}) {
  const provider = new FakePix();
  const fakes = fakeDeps(overrides);
  const bank = fakes.deps.bank;
  const deps: ProcessorDeps = {
    ...fakes.deps,
    bank: { clients: { ...bank.clients, pix: provider } },
    ...overrides,
    settings: { ...fakes.deps.settings, pixKeys: OUR_KEYS, ...settings },
  };
  return { ...fakes, deps, provider };
}
