/**
 * Pix Automático's callbacks read: `{"recs": [...]}` at `/rec` and `{"cobsr": [...]}` at `/cobr`.
 * The standard never says when they fire, so each item is only "something changed: go and look":
 * its id (`idRec`, a charge's `txid`) is the subject, and nothing else of it decides anything. A
 * body without its list is the provider's validation call: nothing to verify.
 */
import { CHARGE_TXID } from '../../../contracts/pix';
import { REC_ID } from '../../../contracts/pix-recurring';
import type { Route } from '../../../contracts/receiver';
import type { ParsedBody, SubjectItem } from '../family';
import { isObject, RECURRING_CALLBACK_LISTS } from './receiving';

/** One recurrence a `/rec` callback names. Its `raw` is the item as received. */
export interface RecurrenceItem extends SubjectItem {
  readonly kind: 'pix-recurrence';
  readonly idRec: string;
}

/** One recurring charge a `/cobr` callback names. Its `raw` is the item as received. */
export interface RecurringChargeItem extends SubjectItem {
  readonly kind: 'pix-recurring-charge';
  readonly txid: string;
}

const READ = {
  rec: { field: 'idRec', pattern: REC_ID, kind: 'pix-recurrence', rule: '29 letters and digits' },
  cobr: { field: 'txid', pattern: CHARGE_TXID, kind: 'pix-recurring-charge', rule: '26 to 35 letters and digits' },
} as const;

/** Whether a route is one of Pix Automático's. */
export const isRecurringRoute = (route: Route): route is keyof typeof READ => route in READ;

/**
 * The items of a body stored from `/rec` or `/cobr`: a callback, or the items of one sent again as
 * a JSON array (what an invocation had no time for). An item without a well-formed id is a
 * problem (the rest of the body is still verified).
 */
export function parseRecurringNotification(route: keyof typeof READ, body: Buffer): ParsedBody {
  const list = RECURRING_CALLBACK_LISTS[route];
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return { items: [], problems: [`the Pix Automático callback (/${route}) is not JSON`] };
  }
  const elements = Array.isArray(parsed) ? parsed : isObject(parsed) ? parsed[list] : undefined;
  if (!Array.isArray(elements)) return { items: [], problems: [] };
  const { field, pattern, kind, rule } = READ[route];
  const items: (RecurrenceItem | RecurringChargeItem)[] = [];
  const problems: string[] = [];
  elements.forEach((element, i) => {
    const id = isObject(element) ? element[field] : undefined;
    if (!isObject(element) || typeof id !== 'string' || !pattern.test(id)) {
      problems.push(`${list}[${i}] has no valid ${field} (${rule})`);
      return;
    }
    items.push(
      kind === 'pix-recurrence'
        ? { kind, idRec: id, raw: element }
        : { kind: 'pix-recurring-charge', txid: id, raw: element },
    );
  });
  return { items, problems };
}
