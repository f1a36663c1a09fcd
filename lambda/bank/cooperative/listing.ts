/**
 * This bank's listing for the sweep: the boletos settled on a day (`GET /boletos/liquidados/dia`,
 * pages from 1), each entry a boleto of this beneficiary whose settlement a record may hold.
 */
import { StatusClass } from '../../../contracts/events';
import type { ListedSettlement, LookSubject } from '../../../contracts/reconciliation';
import type { HeldRecord, ListedEntry, WindowListing } from '../family';
import { bankDateToIso, bankDay, identifier, nossoNumeroOf, type SettledBoletosPage, toCents } from './answers';

/** What the listing needs of the bank client. */
export interface SettledBoletosLister {
  listSettledBoletos(
    codigoBeneficiario: string,
    dia: string,
    pagina: number,
    deadline: number,
  ): Promise<SettledBoletosPage>;
}

/** A listing item's settlement: its day (`dataPagamento`) and amount (`valorLiquidado`), when it shows both. */
export function listedSettlement(item: Record<string, unknown>): ListedSettlement | undefined {
  const day = bankDateToIso(item.dataPagamento)?.slice(0, 10);
  const cents = toCents(item.valorLiquidado);
  return day && cents !== undefined ? { day, cents } : undefined;
}

const DAY_MS = 86_400_000;

/**
 * Whether a subject's record holds the settlement a listing item shows. `true`: the same id
 * (`settled:<day>:<cents>`, as the boleto query's `dadosLiquidacao` names it) is in the record's
 * history or state (a record with an outbox still being published holds it too); in the history
 * only while the record is not open: a boleto whose settlement of that day and amount was reversed
 * and that the bank lists as settled may have been settled again for the same amount, which its
 * own notification cannot tell from the reversed one's (docs/events.md), so it is looked at (one
 * query). `'other-day'`:
 * the record's current settlement has that amount on the day before or after: the same
 * settlement, its day read otherwise by the query (a Z timestamp; docs/bank-api.md), so it costs
 * no query. `false`: the record does not hold it.
 */
export function holdsSettlement(record: HeldRecord, listed: ListedSettlement | undefined): boolean | 'other-day' {
  if (!listed) return false;
  const id = `${listed.day}:${listed.cents}`;
  if (record.state?.settlement?.id === id) return true;
  if (record.history.includes(`${StatusClass.SETTLED}:${id}`) && record.state?.statusClass !== StatusClass.OPEN)
    return true;
  const current = record.state?.statusClass === StatusClass.SETTLED ? record.state.settlement : undefined;
  if (!current || current.amount.cents !== listed.cents) return false;
  const apart = Math.abs(Date.parse(current.id.slice(0, 10)) - Date.parse(listed.day));
  return apart === DAY_MS ? 'other-day' : false;
}

/** One item of the listing as the sweep reads it. */
export function settledEntry(item: Record<string, unknown>, day: string, codigoBeneficiario: string): ListedEntry {
  const nossoNumero = nossoNumeroOf(item.nossoNumero);
  const beneficiario = identifier(item.codigoBeneficiario);
  const key = identifier(item.nossoNumero) ?? '';
  const reason = `the bank lists it as settled on ${day} and no published event holds that settlement`;
  if (!nossoNumero || (beneficiario !== undefined && beneficiario !== codigoBeneficiario)) {
    return {
      key,
      reason,
      skipped: `a listing item names no nossoNumero of this beneficiary (nossoNumero ${nossoNumero ?? 'unreadable'}, codigoBeneficiario ${beneficiario ?? 'absent'})`,
      holds: () => false,
    };
  }
  const target: LookSubject = { kind: 'boleto', nossoNumero };
  const listed = listedSettlement(item);
  return { key, target, reason, ...(listed ? { listed } : {}), holds: (record) => holdsSettlement(record, listed) };
}

/** The settled-boletos listing of one beneficiary, as the sweep reads it. */
export function settledBoletoListing(
  bank: SettledBoletosLister,
  codigoBeneficiario: string,
  pageSize: number,
): WindowListing {
  return {
    name: 'boleto',
    firstPage: 1,
    pageSize,
    dayOf: (at, daysBack) => bankDay(at, daysBack).iso,
    async page(day, pagina, deadline) {
      const dia = `${day.slice(8, 10)}/${day.slice(5, 7)}/${day.slice(0, 4)}`;
      const answer = await bank.listSettledBoletos(codigoBeneficiario, dia, pagina, deadline);
      return {
        entries: answer.items.map((item) => settledEntry(item, day, codigoBeneficiario)),
        ...(answer.hasNext !== undefined ? { hasNext: answer.hasNext } : {}),
      };
    },
  };
}
