/**
 * The standard Pix API's callback read (cdk-bank-webhooks/docs/pix.md): `{"pix": [Pix, ...]}`, each Pix its own
 * subject, and each refund of it at a final status (`DEVOLVIDO`, `NAO_REALIZADO`) a subject of
 * its own. A body with no `pix` array is the provider's validation call: nothing to verify. What
 * a Pix says is only a claim; the provider's query decides.
 */
import { END_TO_END_ID, isFinalRefund } from '../../../contracts/pix';
import { errorMessage } from '../../shared/runtime';
import type { ParsedBody, SubjectItem } from '../family';
import { type PixRead, type PixRefundRead, readPix, readRefund, refundsWritten } from './answers';
import { isObject } from './receiving';

/** One Pix of a callback. Its `raw` is the Pix as received without its refunds (they are subjects of their own). */
export interface PixItem extends SubjectItem {
  readonly kind: 'pix';
  readonly pix: PixRead;
}

/**
 * One refund of a callback's Pix at a final status. Its `raw` is `{endToEndId, chave?, devolucao}`:
 * the refund as received, with the Pix it returns.
 */
export interface PixRefundItem extends SubjectItem {
  readonly kind: 'pix-refund';
  readonly endToEndId: string;
  /** The key of the Pix it returns, when the callback named one. */
  readonly chave?: string;
  readonly refund: PixRefundRead;
}

export type PixNotificationItem = PixItem | PixRefundItem;

/**
 * The items of one element: a Pix (with its final refunds), or a refund sent again on its own; and
 * why any refund of it could not be read (the Pix is still verified; the rest is quarantined).
 */
function itemsOf(element: unknown, where: string): { items: PixNotificationItem[]; problems: string[] } {
  if (isObject(element) && isObject(element.devolucao)) {
    const refund = readRefund(element.devolucao, 'the Pix callback', 200);
    if (typeof element.endToEndId !== 'string' || !END_TO_END_ID.test(element.endToEndId))
      throw new Error(`${where} has no valid endToEndId`);
    const chave = typeof element.chave === 'string' ? element.chave : undefined;
    return {
      items: [
        { kind: 'pix-refund', endToEndId: element.endToEndId, ...(chave ? { chave } : {}), refund, raw: element },
      ],
      problems: [],
    };
  }
  if (!isObject(element)) throw new Error(`${where} is not an object`);
  const pix = readPix(element, 'the Pix callback', 200);
  const { devolucoes: _devolucoes, ...withoutRefunds } = element;
  const items: PixNotificationItem[] = [{ kind: 'pix', pix, raw: withoutRefunds }];
  const problems = (pix.unreadableRefunds ?? []).map((why) => `${where}.${why.replace(': ', ' cannot be read: ')}`);
  for (const raw of refundsWritten(element.devolucoes)) {
    const refund = isObject(raw) ? pix.refunds.find((r) => r.id === raw.id) : undefined;
    if (!refund || !isFinalRefund(refund.status)) continue;
    items.push({
      kind: 'pix-refund',
      endToEndId: pix.endToEndId,
      ...(pix.chave ? { chave: pix.chave } : {}),
      refund,
      raw: { endToEndId: pix.endToEndId, ...(pix.chave ? { chave: pix.chave } : {}), devolucao: raw },
    });
  }
  return { items, problems };
}

/**
 * The items of a body stored from the Pix route: a callback, or the items of one sent again as a
 * JSON array (what an invocation had no time for). A body with no `pix` array has none.
 */
export function parsePixNotification(body: Buffer): ParsedBody {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return { items: [], problems: ['the Pix callback is not JSON'] };
  }
  const elements = Array.isArray(parsed)
    ? parsed
    : isObject(parsed) && Array.isArray(parsed.pix)
      ? parsed.pix
      : undefined;
  if (!elements) return { items: [], problems: [] };
  const items: PixNotificationItem[] = [];
  const problems: string[] = [];
  elements.forEach((element, i) => {
    try {
      const read = itemsOf(element, `pix[${i}]`);
      items.push(...read.items);
      problems.push(...read.problems);
    } catch (error) {
      problems.push(`pix[${i}] cannot be read: ${errorMessage(error)}`);
    }
  });
  return { items, problems };
}
