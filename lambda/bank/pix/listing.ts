/**
 * The standard Pix API's listing for the sweep (`GET /pix?inicio&fim`, pages from 0, on each
 * Pix's own time; cdk-bank-webhooks/docs/pix.md): the account's Pix received on a day of the bank's calendar, each
 * an entry, and each refund of one at its final status an entry after it. The answer holds only
 * the account's Pix; a Pix to a key that is not the receiver's (another of the account's) and,
 * unless the receiver says so, a Pix without a txid (the standard notifies none) are skipped.
 */
import { isFinalRefund, normalizePixKey, pixKeyHash } from '../../../contracts/pix';
import { BRASILIA_OFFSET_MS, brasiliaDay, DAY_MS } from '../base/calendar';
import type { HeldRecord, ListedEntry, ListedPage, WindowListing } from '../family';
import type { PixPageRead, PixRead, PixRefundRead } from './answers';
import { refundClass } from './subjects';

/** What the listing needs of the Pix client. */
export interface PixLister {
  listPix(
    window: { readonly inicio: string; readonly fim: string },
    page: number,
    deadline: number,
    options?: { itensPorPagina?: number; devolucaoPresente?: boolean },
  ): Promise<PixPageRead>;
}

/** What the listing keeps of the receiver's settings. */
export interface PixListingOptions {
  /** The receiver's keys as `pixKeyHash` writes them. */
  readonly keyHashes: readonly string[];
  /** Whether a Pix without a txid is published. */
  readonly publishWithoutTxid: boolean;
  /** Pix a page is asked for (the standard's most is 1000). */
  readonly pageSize: number;
}

/** The provider's day `daysBack` days before the one `at` falls on (`YYYY-MM-DD`): Brasília's. */
export const pixDay = (at: number, daysBack: number): string => brasiliaDay(at, daysBack);

/**
 * The window of a day: from its first instant to the next day's first (`inicio` and `fim` in UTC,
 * to the second). The two windows meet at an instant: a Pix there is listed twice, never missed,
 * and its record makes the second costless.
 */
export function pixDayWindow(day: string): { inicio: string; fim: string } {
  const start = Date.parse(`${day}T00:00:00Z`) + BRASILIA_OFFSET_MS;
  const instant = (ms: number) => `${new Date(ms).toISOString().slice(0, 19)}Z`;
  return { inicio: instant(start), fim: instant(start + DAY_MS) };
}

/**
 * Why a listed Pix is not the receiver's to publish, or undefined. A Pix the listing shows without
 * a key is looked at: its charge's key, or the account's receiver for keyless Pix, decides (the
 * processor's rule; its record then says so, and the sweep does not ask again).
 */
function notPublished(pix: PixRead, options: PixListingOptions): string | undefined {
  if (pix.chave !== undefined) {
    const key = normalizePixKey(pix.chave)?.key;
    if (!key || !options.keyHashes.includes(pixKeyHash(key)))
      return "a Pix to a key of the account that is not this receiver's";
  }
  if (!pix.txid && !options.publishWithoutTxid)
    return 'a Pix without a txid (the standard notifies none; set pix.sweep.publishWithoutTxid to publish them)';
  return undefined;
}

/** A Pix's entry: held once its record holds any verified state (a Pix received does not change; the processor looked). */
function pixEntry(pix: PixRead, day: string, skipped: string | undefined): ListedEntry {
  const reason = `the provider lists a Pix received on ${day} that no record holds`;
  if (skipped) return { key: pix.endToEndId, reason, skipped, routine: true, holds: () => false };
  return {
    key: pix.endToEndId,
    target: { kind: 'pix', endToEndId: pix.endToEndId },
    reason,
    holds: (record: HeldRecord) =>
      record.state !== undefined || record.history.length > 0 || record.notAttributed !== undefined,
  };
}

/** A refund's entry at its final status: held once the record holds that status. */
function refundEntry(pix: PixRead, refund: PixRefundRead, day: string, skipped: string | undefined): ListedEntry {
  const key = `${pix.endToEndId}/${refund.id}`;
  const reason = `the provider lists a refund ${refund.status} of a Pix received on ${day} that no record holds`;
  if (skipped) return { key, reason, skipped, routine: true, holds: () => false };
  return {
    key,
    reason,
    target: { kind: 'pix-refund', endToEndId: pix.endToEndId, refundId: refund.id },
    holds: (record: HeldRecord) =>
      record.state?.status === refund.status ||
      record.history.includes(`${refundClass(refund.status)}:${refund.status}`) ||
      record.notAttributed !== undefined,
  };
}

/** A page's entries: each Pix (unless `refundsOnly`), then each of its refunds at a final status. */
function entriesOf(page: PixPageRead, day: string, options: PixListingOptions, refundsOnly: boolean): ListedEntry[] {
  return page.pix.flatMap((pix) => {
    const skipped = notPublished(pix, options);
    const refunds = pix.refunds.filter((r) => isFinalRefund(r.status)).map((r) => refundEntry(pix, r, day, skipped));
    return refundsOnly ? refunds : [pixEntry(pix, day, skipped), ...refunds];
  });
}

function listing(name: string, lister: PixLister, options: PixListingOptions, refundsOnly: boolean): WindowListing {
  return {
    name,
    firstPage: 0,
    pageSize: options.pageSize,
    dayOf: pixDay,
    async page(day, page, deadline): Promise<ListedPage> {
      const answer = await lister.listPix(pixDayWindow(day), page, deadline, {
        itensPorPagina: options.pageSize,
        ...(refundsOnly ? { devolucaoPresente: true } : {}),
      });
      // The provider says how many pages the day has; a page it numbers otherwise than asked is not believed to end it.
      const hasNext = answer.paginaAtual !== page ? undefined : answer.paginaAtual + 1 < answer.quantidadeDePaginas;
      return {
        entries: entriesOf(answer, day, options, refundsOnly),
        listedItems: answer.pix.length,
        ...(hasNext !== undefined ? { hasNext } : {}),
      };
    },
  };
}

/** The Pix received on a day, with their refunds at a final status: what the sweep reads for today and the last days. */
export function pixDayListing(lister: PixLister, options: PixListingOptions): WindowListing {
  return listing('pix', lister, options, false);
}

/** The refunds at a final status of the Pix received on a day (`devolucaoPresente=true`): what the sweep reads for older days. */
export function pixRefundListing(lister: PixLister, options: PixListingOptions): WindowListing {
  return listing('pix-refund', lister, options, true);
}
