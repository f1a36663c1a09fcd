/**
 * Bulk verification of Pix received, for a peak. Once a callback has waited longer than the
 * receiver's bound (more Pix wait than the query budget verifies one by one), the environment
 * verifies Pix by the provider's listings for a while: a Pix by the listing of the ten seconds its
 * callback's `horario` falls in (`GET /pix?inicio&fim`, under our credentials, in the same shape as
 * `GET /pix/{e2eid}`), the charge it pays by the listing of charges concluded within the reach
 * before it (`GET /cob`, `GET /cobv` with `status=CONCLUIDA`). Each listing is read once for every
 * look that needs it, and again only for a callback that arrived after it was read (a Pix absent
 * from an older page may not have happened yet), at most every second (Pix) or ten (charges; those
 * with a due date only for a charge the immediate ones' listing does not show).
 * What a listing shows stands for the single read it replaces: a Pix received does not change (its
 * refunds are subjects of their own), and a charge concluded with it stays so. What a listing read
 * after its callback does not show (the provider's lag, a page that changed between reads, a
 * charge created before the reach, another customer's) is read one by one. The window comes from a
 * callback's `horario`, so only where only the provider can post (mutual TLS and a pin): a forged
 * one would choose what we list, and nothing else.
 */
import { PixChargeKind } from '../../../contracts/events';
import { CHARGE_TXID } from '../../../contracts/pix';
import type { PixBulkSettings } from '../../../contracts/processor';
import type { QueryHint, RulesContext } from '../family';
import type { ChargePageRead, ChargeRead, PixPageRead, PixRead } from './answers';
import type { PixItem } from './notification';
import type { ListingWindow } from './operations';
import type { ListedAnswers } from './tied';

/** What bulk verification needs of the Pix client ({@link PixClient} fits). */
export interface BulkLister {
  listPix(
    window: ListingWindow,
    page: number,
    deadline: number,
    options?: { itensPorPagina?: number },
  ): Promise<PixPageRead>;
  listCharges(
    kind: PixChargeKind.COB | PixChargeKind.COBV,
    window: ListingWindow,
    page: number,
    deadline: number,
    options?: { itensPorPagina?: number; status?: string },
  ): Promise<ChargePageRead>;
}

export const BulkDefaults = {
  /** The width of a listed window of the Pix's time. */
  windowMs: 10_000,
  /** How long after a callback was stored a listing shows its Pix (the provider's own lag). */
  lagMs: 1_000,
  /** A window's listing is read again at most this often. */
  pixRefreshMs: 1_000,
  /** A kind's concluded charges are read again at most this often. */
  chargeRefreshMs: 10_000,
  /** How long an environment verifies by listing after a callback that waited past the bound. */
  holdMs: 60_000,
  /** Pages of one listing read at most (1000 items each); what is beyond is read one by one. */
  maxPages: 30,
  /** Windows an environment keeps (the oldest is dropped first). */
  maxWindows: 64,
  /** Items a page is asked for: the standard's most. */
  pageSize: 1000,
  /** After a listing call fails (a provider that serves no listing, an outage), Pix are read one by one this long. */
  failureBackoffMs: 60_000,
} as const;

type Concluded = { readonly kind: PixChargeKind; readonly read: ChargeRead };

/** One listing read: when it started, and what it showed (undefined: it failed, or was not worth its pages). */
interface Read<T> {
  readonly started: number;
  readonly shown: Promise<ReadonlyMap<string, T> | undefined>;
}

const instant = (ms: number) => `${new Date(ms).toISOString().slice(0, 19)}Z`;

/** Every page of a listing from page 0, at most `maxPages`; undefined when page 0 says it is not worth its pages. */
async function allPages<T>(
  read: (page: number) => Promise<{ items: readonly T[]; paginaAtual: number; quantidadeDePaginas: number }>,
  worthPages: (pages: number) => boolean = () => true,
): Promise<T[] | undefined> {
  const items: T[] = [];
  for (let page = 0; page < BulkDefaults.maxPages; page++) {
    const answer = await read(page);
    // A page numbered otherwise than asked ends the listing: what it left out is read one by one.
    if (answer.paginaAtual !== page) return items;
    if (page === 0 && !worthPages(answer.quantidadeDePaginas)) return undefined;
    items.push(...answer.items);
    if (page + 1 >= answer.quantidadeDePaginas) return items;
  }
  return items;
}

export interface BulkOptions {
  readonly now?: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
}

/** One environment's listings and whether it verifies by them now. */
export class BulkAnswers {
  private readonly windows = new Map<number, Read<PixRead>>();
  /** The concluded charges by kind: `cobv` read only for a charge the `cob` listing does not show. */
  private readonly charges = new Map<PixChargeKind.COB | PixChargeKind.COBV, Read<Concluded>>();
  private until = 0;
  /** Until when a failed listing keeps the environment reading one by one. */
  private failedUntil = 0;
  /** Charges looked up since each kind's concluded charges were last read. */
  private readonly paying = new Map<PixChargeKind, number>();
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;
  /** Listing calls made (pages read), for the tests. */
  calls = 0;

  constructor(
    private readonly lister: BulkLister,
    private readonly settings: PixBulkSettings,
    options: BulkOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  /** A callback that waited `waitedMs`: past the bound, the environment verifies by listing for a while. */
  saw(waitedMs: number): void {
    if (waitedMs >= this.settings.afterSeconds * 1000) this.until = this.now() + BulkDefaults.holdMs;
  }

  /** The answers for a Pix of `horarioMs` whose callback was stored at `storedAt`, or undefined when not verifying by listing. */
  answersFor(horarioMs: number, storedAt: number): ListedAnswers | undefined {
    if (this.now() >= this.until || this.now() < this.failedUntil) return undefined;
    const start = Math.floor(horarioMs / BulkDefaults.windowMs) * BulkDefaults.windowMs;
    const after = storedAt + BulkDefaults.lagMs;
    return {
      pix: (endToEndId, deadline) =>
        this.shown(
          () => this.windows.get(start),
          (read) => {
            this.windows.set(start, read);
            while (this.windows.size > BulkDefaults.maxWindows) this.windows.delete(this.windows.keys().next().value!);
          },
          () => this.listPix(start, deadline),
          endToEndId,
          after,
          BulkDefaults.pixRefreshMs,
          deadline,
        ),
      concludedCharge: async (pix, deadline) => {
        if (!pix.txid || !CHARGE_TXID.test(pix.txid)) return undefined;
        for (const kind of [PixChargeKind.COB, PixChargeKind.COBV] as const) {
          this.paying.set(kind, (this.paying.get(kind) ?? 0) + 1);
          const found = await this.shown(
            () => this.charges.get(kind),
            (read) => this.charges.set(kind, read),
            () => this.listConcluded(kind, deadline),
            pix.txid,
            after,
            BulkDefaults.chargeRefreshMs,
            deadline,
          );
          if (found) return found;
        }
        return undefined;
      },
    };
  }

  /**
   * What a listing shows of `id`: from any read that shows it, else from a read started after
   * `after` (waiting once for one, reading at most every `refreshMs`, while the deadline allows);
   * undefined when none shows it.
   */
  private async shown<T>(
    current: () => Read<T> | undefined,
    keep: (read: Read<T>) => void,
    list: () => Promise<ReadonlyMap<string, T> | undefined>,
    id: string,
    after: number,
    refreshMs: number,
    deadline: number,
  ): Promise<T | undefined> {
    const read = current();
    const found = read && (await read.shown)?.get(id);
    if (found || (read && read.started >= after)) return found;
    const wait = Math.max(after, (read?.started ?? -Infinity) + refreshMs) - this.now();
    if (wait > 0) {
      // No time to wait for a fresher read: read it one by one.
      if (this.now() + wait + 2_000 > deadline) return undefined;
      await this.sleep(wait);
    }
    // Another look may have started the fresher read meanwhile: then it is shared.
    let fresh = current();
    if (fresh === read) {
      fresh = { started: this.now(), shown: list() };
      keep(fresh);
    }
    return (await fresh!.shown)?.get(id);
  }

  /** A window's Pix by end-to-end id. */
  private listPix(start: number, deadline: number): Promise<ReadonlyMap<string, PixRead> | undefined> {
    const window = { inicio: instant(start), fim: instant(start + BulkDefaults.windowMs) };
    return this.readAll(
      async (page) => {
        const answer = await this.lister.listPix(window, page, deadline, { itensPorPagina: BulkDefaults.pageSize });
        return { ...answer, items: answer.pix };
      },
      (pix) => [pix.endToEndId, pix],
    );
  }

  /**
   * A kind's concluded charges created within the reach, by txid; none when its listing has more
   * pages than the charges looked up since its last read (each is then read one by one).
   */
  private listConcluded(
    kind: PixChargeKind.COB | PixChargeKind.COBV,
    deadline: number,
  ): Promise<ReadonlyMap<string, Concluded> | undefined> {
    const now = this.now();
    const window = { inicio: instant(now - this.settings.chargeReachMinutes * 60_000), fim: instant(now) };
    const paying = this.paying.get(kind) ?? 0;
    this.paying.set(kind, 0);
    return this.readAll(
      async (page) => {
        const answer = await this.lister.listCharges(kind, window, page, deadline, {
          itensPorPagina: BulkDefaults.pageSize,
          status: 'CONCLUIDA',
        });
        return { ...answer, items: answer.cobs };
      },
      (read) => [read.txid, { kind, read }],
      (pages) => pages <= Math.max(1, paying),
    );
  }

  /**
   * Every page of one listing (each read counted), each item kept under its key; undefined when a
   * call failed (then every Pix is read one by one for a while).
   */
  private async readAll<I, T>(
    read: (page: number) => Promise<{ items: readonly I[]; paginaAtual: number; quantidadeDePaginas: number }>,
    entry: (item: I) => readonly [string, T],
    worthPages?: (pages: number) => boolean,
  ): Promise<ReadonlyMap<string, T> | undefined> {
    try {
      const items = await allPages((page) => {
        this.calls++;
        return read(page);
      }, worthPages);
      return new Map((items ?? []).map(entry));
    } catch {
      this.failedUntil = this.now() + BulkDefaults.failureBackoffMs;
      return undefined;
    }
  }
}

/** Each client's bulk answers: one per environment and pacer. */
const bulkOfClient = new WeakMap<object, BulkAnswers>();

function isLister(queries: unknown): queries is BulkLister {
  const q = queries as Partial<BulkLister> | undefined;
  return typeof q?.listPix === 'function' && typeof q.listCharges === 'function';
}

/**
 * The listed answers a Pix's look may use instead of its single reads, or undefined: only for a
 * callback's first receive, on a route where only the provider posts, while the environment
 * verifies by listing (a callback waited past the bound within the last minute).
 */
export function listedAnswers(
  queries: unknown,
  endToEndId: string,
  context: RulesContext,
  hint: QueryHint | undefined,
): ListedAnswers | undefined {
  const settings = context.settings.pixBulk;
  if (!settings || !hint?.firstReceive || hint.storedAt === undefined) return undefined;
  if (context.settings.pixCallbacksAuthenticated !== true || !isLister(queries)) return undefined;
  const item = hint.items.find((i): i is PixItem => i.kind === 'pix' && (i as PixItem).pix.endToEndId === endToEndId);
  const at = item ? Date.parse(item.pix.horario) : NaN;
  if (!Number.isFinite(at)) return undefined;
  let bulk = bulkOfClient.get(queries);
  if (!bulk) bulkOfClient.set(queries, (bulk = new BulkAnswers(queries, settings, { now: context.now })));
  bulk.saw((context.now ?? Date.now)() - hint.storedAt);
  return bulk.answersFor(at, hint.storedAt);
}
