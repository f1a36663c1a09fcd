/**
 * Pix Automático's listings for the sweep: `GET /rec` and `GET /cobr` over a day of creation time
 * (pages from 0). Each recurrence or recurring charge listed is an entry, held once its record holds
 * the state the listing shows (its status; a charge's latest attempt too) or names another
 * receiver; else a look asks the provider again (`GET /rec/{idRec}`, `GET /cobr/{txid}`): the listing
 * only says where to look. Read only on the receiver that takes the account's Pix Automático.
 */
import { RecurringWebhookKind } from '../../../contracts/pix-recurring';
import type { HeldRecord, ListedEntry, ListedPage, WindowListing } from '../family';
import { pixDay, pixDayWindow } from './listing';
import type { RecurrenceRead, RecurringChargeRead, RecurringPageRead } from './recurring-answers';
import { chargeStateOf, recurrenceStateOf } from './recurring-subjects';

/** What the listings need of the Pix client. */
export interface RecurringLister {
  listRecurring<K extends RecurringWebhookKind>(
    kind: K,
    window: { readonly inicio: string; readonly fim: string },
    page: number,
    deadline: number,
    itensPorPagina?: number,
  ): Promise<RecurringPageRead<K extends RecurringWebhookKind.REC ? RecurrenceRead : RecurringChargeRead>>;
}

/** Held once the record holds the listed state's key, or says the subject is another receiver's. */
const holding =
  (key: string) =>
  (record: HeldRecord): boolean =>
    record.history.includes(key) || record.notAttributed !== undefined;

function recEntry(rec: RecurrenceRead, day: string): ListedEntry {
  const { key } = recurrenceStateOf(rec);
  return {
    key: rec.idRec,
    target: { kind: 'pix-recurrence', idRec: rec.idRec },
    reason: `the provider lists a recurrence created on ${day} at ${rec.status}, which no record holds`,
    holds: holding(key),
  };
}

function chargeEntry(charge: RecurringChargeRead, day: string): ListedEntry {
  const { key } = chargeStateOf(charge);
  return {
    key: charge.txid,
    target: { kind: 'pix-recurring-charge', txid: charge.txid },
    reason: `the provider lists a recurring charge created on ${day} at ${charge.status}, which no record holds`,
    holds: holding(key),
  };
}

function listing(kind: RecurringWebhookKind, lister: RecurringLister, pageSize: number, name: string): WindowListing {
  return {
    name,
    firstPage: 0,
    pageSize,
    dayOf: pixDay,
    async page(day, page, deadline): Promise<ListedPage> {
      const answer = await lister.listRecurring(kind, pixDayWindow(day), page, deadline, pageSize);
      const entries =
        kind === RecurringWebhookKind.REC
          ? (answer.items as readonly RecurrenceRead[]).map((rec) => recEntry(rec, day))
          : (answer.items as readonly RecurringChargeRead[]).map((charge) => chargeEntry(charge, day));
      // As the Pix listing: a page numbered otherwise than asked is not believed to end the day.
      const hasNext = answer.paginaAtual !== page ? undefined : answer.paginaAtual + 1 < answer.quantidadeDePaginas;
      return { entries, ...(hasNext !== undefined ? { hasNext } : {}) };
    },
  };
}

/** The recurrences created on a day (`GET /rec`). */
export function recurrenceListing(lister: RecurringLister, pageSize: number): WindowListing {
  return listing(RecurringWebhookKind.REC, lister, pageSize, 'pix-rec');
}

/**
 * The recurring charges created on a day (`GET /cobr`): `pix-cobr` for the days the sweep covers,
 * `pix-cobr-older` for the older days of the creation window, read in turn.
 */
export function recurringChargeListing(lister: RecurringLister, pageSize: number, older = false): WindowListing {
  return listing(RecurringWebhookKind.COBR, lister, pageSize, older ? 'pix-cobr-older' : 'pix-cobr');
}
