/**
 * The reconciliation sweep: the provider never resends a notification it failed to deliver, so
 * the sweep looks for itself. It reads each family's listing (this bank's: the boletos settled on
 * a day; the standard Pix API's: the Pix received on a day) for today and the last days, each day
 * from its cursor, and asks the processor (through its look queue) to look at every entry no
 * subject record holds; and it asks the processor to look again at every payment still pending.
 * The processor verifies each with the provider's query and
 * publishes each change once, whatever told it to look. Pure: every effect goes through
 * {@link SweepDeps}; what a listing says is the family's ({@link WindowListing}).
 */
import type { ListedEntry, WindowListing } from '../bank/family';
import { checkTime, type FollowUpDeps, OutOfTime, sweepPayments } from './follow-ups';
import { EventTrigger } from '../../contracts/events';
import { type ListedSettlement, type LookSubject, SweepMetric, type SweepReport } from '../../contracts/reconciliation';
import type { DayCursor } from '../store/day-cursors';
import { encodeLookRequest, subjectIdOf } from '../store/look-request';
import type { SubjectRecord } from '../store/subject-store';
import { inSpan } from '../shared/telemetry';

export interface SweepDeps extends FollowUpDeps {
  /** The account's beneficiary code: a subject's record is keyed under it. */
  readonly codigoBeneficiario: string;
  /** The listings the sweep reads, in order (this bank's settled boletos; Pix received, with a Pix receiver). */
  readonly listings: readonly SweptListing[];
  /** A subject's record (consistent read). */
  readonly readRecord: (subjectId: string) => Promise<SubjectRecord>;
}

/** Where each day's reading of one listing stopped. */
export interface DayCursors {
  read(isoDay: string): Promise<DayCursor | undefined>;
  write(isoDay: string, cursor: DayCursor): Promise<void>;
}

/** One listing the sweep reads: which days, and its cursors. */
export interface SweptListing {
  readonly listing: WindowListing;
  readonly cursors: DayCursors;
  /** The days this sweep reads, as days back from the provider's day the schedule's time `asOf` falls on (0: that day). */
  daysBack(asOf: number): readonly number[];
}

/** Today and the `lookbackDays` before it. */
export const recentDays = (lookbackDays: number) => (): readonly number[] =>
  Array.from({ length: lookbackDays + 1 }, (_, back) => back);

/**
 * The days from `from` to `to` days back, `perSweep` of them a sweep in turn: the sweep whose
 * schedule time is `asOf` reads the slot `asOf` falls in, so every day is read once in every
 * ceil((to - from + 1) / perSweep) sweeps, whichever ran.
 */
export function rotatingDays(
  from: number,
  to: number,
  perSweep: number,
  intervalMinutes: number,
): (asOf: number) => readonly number[] {
  const count = to - from + 1;
  return (asOf) => {
    if (count <= 0 || perSweep <= 0) return [];
    const take = Math.min(perSweep, count);
    const slot = Math.floor(asOf / (intervalMinutes * 60_000));
    const start = (slot * take) % count;
    return Array.from({ length: take }, (_, i) => from + ((start + i) % count));
  };
}

/** Listing items' records read at once. */
const RECORD_READS_AT_ONCE = 8;

/** The sweep made its cap of listing calls: the days left are read by the next one, from their cursors. */
class ListingCallsCapped extends Error {}

/**
 * Runs one sweep until everything is read or `deadline` (epoch ms). The days read are the bank's
 * today as of `asOf` (the schedule's time) and the `lookbackDays` before it.
 */
export async function sweep(deps: SweepDeps, deadline: number, asOf?: number): Promise<SweepReport> {
  const now = deps.now ?? Date.now;
  const started = now();
  const report = {
    bankCalls: 0,
    settlementsToVerify: 0,
    settlementsKnown: 0,
    paymentsToVerify: 0,
    paymentsGivenUp: 0,
    complete: true,
    days: [] as SweepReport['days'][number][],
  };
  try {
    try {
      for (const swept of deps.listings) {
        for (const back of swept.daysBack(asOf ?? started)) {
          report.days.push(await sweepDay(swept, swept.listing.dayOf(asOf ?? started, back), deps, deadline, report));
        }
      }
    } catch (error) {
      if (!(error instanceof ListingCallsCapped)) throw error;
      report.complete = false;
      deps.count(SweepMetric.LISTING_CALLS_CAPPED);
      deps.logger.error(
        'The sweep made its cap of listing calls and stopped reading listings; the next sweep resumes from the cursors (is the listing ever ending?)',
        {
          bankCalls: report.bankCalls,
          maxListingCallsPerSweep: deps.settings.maxListingCallsPerSweep,
        },
      );
    }
    await sweepPayments(deps, deadline, report);
  } catch (error) {
    if (!(error instanceof OutOfTime)) throw error;
    report.complete = false;
    deps.count(SweepMetric.INCOMPLETE);
    deps.logger.warn('The sweep ran out of time before reading everything; the next one resumes from the cursors', {
      bankCalls: report.bankCalls,
    });
  }
  deps.count(SweepMetric.BANK_CALLS, report.bankCalls);
  deps.count(SweepMetric.LOOKS_REQUESTED, report.settlementsToVerify + report.paymentsToVerify);
  deps.count(SweepMetric.DURATION, now() - started, true);
  return report;
}

/**
 * One day of the listing, from its cursor. The listing is in settlement order and grows at its
 * end while the day runs, so the cursor is the last page read and how many of its items were
 * handled; the page is read again, and the item the cursor names must still be where it was.
 * When it is not (a settlement reversed since drops out of the listing, moving the rest up), the
 * day is read again from its first page: records make that cost no bank query.
 */
async function sweepDay(
  swept: SweptListing,
  day: string,
  deps: SweepDeps,
  deadline: number,
  report: { bankCalls: number; settlementsToVerify: number; settlementsKnown: number; complete: boolean },
) {
  const { listing, cursors } = swept;
  const read = (pages: number, items: number, restarted: boolean) => ({
    listing: listing.name,
    day,
    pages,
    items,
    restarted,
  });
  const first: DayCursor = { page: listing.firstPage, handledOnPage: 0 };
  const saved = await cursors.read(day);
  let cursor: DayCursor = saved ?? first;
  let restarted = false;
  let pages = 0;
  let items = 0;
  let previousPage: string | undefined;
  for (;;) {
    checkTime(deps, deadline);
    if (report.bankCalls >= deps.settings.maxListingCallsPerSweep) throw new ListingCallsCapped();
    if (cursor.page - listing.firstPage + 1 > deps.settings.maxListingPage) {
      deps.count(SweepMetric.LISTING_PAGE_BOUND);
      deps.logger.error(
        'The listing of a day goes past the page bound; the day is read no further and the sweep is incomplete',
        { listing: listing.name, day, page: cursor.page, maxListingPage: deps.settings.maxListingPage },
      );
      report.complete = false;
      return read(pages, items, restarted);
    }
    const page = await inSpan('list page', { 'bank.listing': listing.name, 'bank.page': cursor.page }, () =>
      listing.page(day, cursor.page, deadline),
    );
    const entries = page.entries;
    report.bankCalls++;
    pages++;
    // A provider that ignores the page number answers the same page again: read on, the day would never end.
    const thisPage = entries.map((entry) => entry.key).join(',');
    if (previousPage !== undefined && thisPage === previousPage && entries.length) {
      // Never a silently complete day: the sweep reports itself incomplete.
      deps.count(SweepMetric.REPEATED_PAGES);
      deps.logger.warn(
        'The listing answered the page before again (does the provider take the page number?); the day is read up to here and the sweep is incomplete',
        { listing: listing.name, day, page: cursor.page },
      );
      report.complete = false;
      return read(pages, items, restarted);
    }
    previousPage = thisPage;
    if (cursor.handledOnPage > 0 && (entries[cursor.handledOnPage - 1]?.key ?? '') !== (cursor.lastNossoNumero ?? '')) {
      deps.logger.info(
        'The listing of a day changed before the cursor (an entry left or joined it since); reading the day again from its first page',
        { listing: listing.name, day, page: cursor.page },
      );
      cursor = first;
      restarted = true;
      previousPage = undefined;
      continue;
    }
    const fresh = entries.slice(cursor.handledOnPage);
    const toVerify = await unpublished(fresh, deps, { listing: listing.name, day });
    report.settlementsKnown += fresh.length - toVerify.length;
    if (toVerify.length) {
      await deps.send(
        toVerify.map(({ subject, listed, reason }) =>
          encodeLookRequest({
            trigger: EventTrigger.RECONCILIATION,
            subject,
            requestedAt: new Date((deps.now ?? Date.now)()).toISOString(),
            reason,
            ...(listed ? { listed } : {}),
          }),
        ),
      );
      report.settlementsToVerify += toVerify.length;
    }
    items += fresh.length;
    const last = entries[entries.length - 1];
    const next: DayCursor = entries.length
      ? { page: cursor.page, handledOnPage: entries.length, ...(last.key ? { lastNossoNumero: last.key } : {}) }
      : cursor;
    if (next.handledOnPage !== cursor.handledOnPage || next.page !== cursor.page || !saved)
      await cursors.write(day, next);
    // A provider that does not say whether more follow: a full page may have more; the next page, empty, ends the day.
    const listed = page.listedItems ?? entries.length;
    const more = page.hasNext ?? listed >= listing.pageSize;
    if (!more || !listed) return read(pages, items, restarted);
    cursor = { page: cursor.page + 1, handledOnPage: 0 };
  }
}

/** An entry to look at: its subject, how the listing shows it, and why. */
interface ToVerify {
  readonly subject: LookSubject;
  readonly listed?: ListedSettlement;
  readonly reason: string;
}

/**
 * The listing's entries that their subject's record does not hold, as subjects to look at. The
 * entries skipped are logged once a page per reason: a routine skip (another key's Pix) at info.
 */
async function unpublished(
  entries: readonly ListedEntry[],
  deps: SweepDeps,
  where: { listing: string; day: string },
): Promise<ToVerify[]> {
  const result: (ToVerify | undefined)[] = entries.map(() => undefined);
  const skipped = new Map<string, { count: number; routine: boolean }>();
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < entries.length) {
      const i = next++;
      const entry = entries[i];
      const subject = entry.target;
      if (!subject) {
        const why = entry.skipped ?? 'no reason given';
        skipped.set(why, { count: (skipped.get(why)?.count ?? 0) + 1, routine: entry.routine === true });
        continue;
      }
      const subjectId = subjectIdOf(subject, deps.codigoBeneficiario);
      const held = entry.holds(await deps.readRecord(subjectId));
      if (held === 'other-day') {
        deps.count(SweepMetric.SETTLEMENT_DAY_MISMATCH);
        deps.logger.warn(
          "The bank lists a settlement on another day than its query showed; check the bank connection's zuluTimestamps (docs/bank-api.md)",
          {
            subject: subjectId,
            listedDay: entry.listed?.day,
            cents: entry.listed?.cents,
          },
        );
      }
      if (!held) result[i] = { subject, reason: entry.reason, ...(entry.listed ? { listed: entry.listed } : {}) };
    }
  };
  await Promise.all(Array.from({ length: Math.min(RECORD_READS_AT_ONCE, entries.length) }, worker));
  for (const [why, { count, routine }] of skipped) {
    if (routine)
      deps.logger.info("Listing entries not this receiver's to publish; skipped", { ...where, entries: count, why });
    else deps.logger.warn("Listing entries not this receiver's to verify; skipped", { ...where, entries: count, why });
  }
  return result.filter((v): v is ToVerify => v !== undefined);
}
