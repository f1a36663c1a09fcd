/**
 * The sweep over the standard Pix API's listing (`GET /pix?inicio&fim`, pages from 0): each Pix
 * with a txid no record holds is sent to be verified once, each refund at its final status too;
 * another key's Pix and a Pix without a txid (unless the receiver says so) are not; refunds of
 * Pix older than the look-back are read over the older days a few a sweep, so each is read daily.
 */
import { StatusClass } from '../../../contracts/events';
import { normalizePixKey, pixKeyHash, RefundStatus } from '../../../contracts/pix';
import { SweepMetric } from '../../../contracts/reconciliation';
import {
  type PixLister,
  pixDay,
  pixDayListing,
  pixDayWindow,
  type PixListingOptions,
  type PixPageRead,
  type PixRead,
  pixRefundListing,
} from '../../../lambda/bank/pix';
import { recentDays, rotatingDays, sweep, type SweepDeps } from '../../../lambda/reconciliation/sweep';
import type { DayCursor } from '../../../lambda/store/day-cursors';
import { decodeLookRequest } from '../../../lambda/store/look-request';
import { EMPTY_RECORD, type SubjectRecord } from '../../../lambda/store/subject-store';
import { MemoryLookMarkers } from '../../support/processor-records';
import { OUR_KEY, OUR_KEYS } from '../../support/pix-records';
import { sweepTestSettings } from '../../support/sweep-records';

/** 2026-11-27 15:00 in Brasília (18:00 UTC). */
const AT = Date.parse('2026-11-27T18:00:00Z');
const FAR = AT + 3_600_000;
const OTHER_KEY = 'vendas@example.com.br';

/** A provider's Pix listing by day (its own calendar), paged from 0 as the standard pages it. */
function fakeProvider(pageSize: number) {
  const days = new Map<string, PixRead[]>();
  const calls: { inicio: string; fim: string; page: number; devolucaoPresente?: boolean }[] = [];
  const lister: PixLister = {
    async listPix(window, page, _deadline, options = {}) {
      calls.push({
        ...window,
        page,
        ...(options.devolucaoPresente !== undefined ? { devolucaoPresente: options.devolucaoPresente } : {}),
      });
      expect(options.itensPorPagina).toBe(pageSize);
      const day = [...days.keys()].find((d) => pixDayWindow(d).inicio === window.inicio);
      const all = (day ? days.get(day)! : []).filter((p) => !options.devolucaoPresente || p.refunds.length > 0);
      const answer: PixPageRead = {
        pix: all.slice(page * pageSize, (page + 1) * pageSize),
        paginaAtual: page,
        quantidadeDePaginas: Math.ceil(all.length / pageSize),
      };
      return answer;
    },
  };
  const add = (day: string, pix: PixRead) => days.set(day, [...(days.get(day) ?? []), pix]);
  return { lister, days, calls, add };
}

let sequence = 0;
const e2e = () => `E01181521202611271200${String(++sequence).padStart(11, '0')}`;
const pixOf = (
  options: { txid?: string | null; chave?: string | null; refunds?: PixRead['refunds'] } = {},
): PixRead => ({
  endToEndId: e2e(),
  ...(options.txid === null ? {} : { txid: options.txid ?? `tx${sequence}` }),
  valor: '10.00',
  ...(options.chave === null ? {} : { chave: options.chave ?? OUR_KEY }),
  horario: '2026-11-27T12:00:00Z',
  refunds: options.refunds ?? [],
});
const refundOf = (id: string, status: RefundStatus) => ({ id, valor: '10.00', status });

function world(options: { pageSize?: number; publishWithoutTxid?: boolean; refundLookbackDays?: number } = {}) {
  const pageSize = options.pageSize ?? 1000;
  const provider = fakeProvider(pageSize);
  const records = new Map<string, SubjectRecord>();
  const cursors = new Map<string, DayCursor>();
  const sent: string[] = [];
  const counts: Record<string, number> = {};
  const logs: { level: string; message: string; details?: Record<string, unknown> }[] = [];
  const listingOptions: PixListingOptions = {
    keyHashes: OUR_KEYS.map((k) => pixKeyHash(normalizePixKey(k)!.key)),
    publishWithoutTxid: options.publishWithoutTxid ?? false,
    pageSize,
  };
  const cursorsOf = (name: string) => ({
    read: async (day: string) => cursors.get(`${name}#${day}`),
    write: async (day: string, c: DayCursor) => {
      cursors.set(`${name}#${day}`, c);
    },
  });
  const refundLookbackDays = options.refundLookbackDays ?? 29;
  const deps: SweepDeps = {
    settings: sweepTestSettings(3),
    codigoBeneficiario: '54321',
    listings: [
      { listing: pixDayListing(provider.lister, listingOptions), cursors: cursorsOf('pix'), daysBack: recentDays(3) },
      {
        listing: pixRefundListing(provider.lister, listingOptions),
        cursors: cursorsOf('pix-refund'),
        daysBack: rotatingDays(4, refundLookbackDays, 1, 15),
      },
    ],
    readRecord: async (id) => records.get(id) ?? EMPTY_RECORD,
    pendingPayments: {
      async *list() {
        /* none */
      },
      giveUp: async () => undefined,
    },
    markers: new MemoryLookMarkers(),
    send: async (bodies) => {
      sent.push(...bodies);
    },
    count: (metric, value = 1) => {
      counts[metric] = (counts[metric] ?? 0) + value;
    },
    logger: {
      info: (message, details) => {
        logs.push({ level: 'info', message, details });
      },
      warn: (message, details) => {
        logs.push({ level: 'warn', message, details });
      },
      error: (message, details) => {
        logs.push({ level: 'error', message, details });
      },
    },
    now: () => AT,
  };
  return {
    ...provider,
    deps,
    records,
    sent,
    counts,
    logs,
    cursors,
    looked: () => sent.map((body) => decodeLookRequest(body)!.subject),
    /** What the processor does with a look at a Pix: its record holds the verified state. */
    published(pix: PixRead) {
      records.set(`pix:${pix.endToEndId}`, {
        ...EMPTY_RECORD,
        version: 1,
        sequence: 1,
        history: ['settled:1000'],
        state: { status: 'RECEBIDO', statusClass: StatusClass.SETTLED },
      });
    },
    refundPublished(pix: PixRead, id: string, status: RefundStatus) {
      const statusClass = status === RefundStatus.RETURNED ? StatusClass.REVERSED : StatusClass.CANCELLED;
      records.set(`pix-refund:${pix.endToEndId}:${id}`, {
        ...EMPTY_RECORD,
        version: 1,
        sequence: 1,
        history: [`${statusClass}:${status}`],
        state: { status, statusClass },
      });
    },
  };
}

it("reads today and the 3 days before in Brasília's calendar, each day from its first instant to the next day's, pages from 0", async () => {
  const w = world();
  await sweep(w.deps, FAR, AT);
  expect(w.calls.filter((c) => c.devolucaoPresente === undefined)).toEqual([
    { inicio: '2026-11-27T03:00:00Z', fim: '2026-11-28T03:00:00Z', page: 0 },
    { inicio: '2026-11-26T03:00:00Z', fim: '2026-11-27T03:00:00Z', page: 0 },
    { inicio: '2026-11-25T03:00:00Z', fim: '2026-11-26T03:00:00Z', page: 0 },
    { inicio: '2026-11-24T03:00:00Z', fim: '2026-11-25T03:00:00Z', page: 0 },
  ]);
  // 22:30 in Brasília is still that day there (01:30 UTC the next).
  expect(pixDay(Date.parse('2026-11-28T01:30:00Z'), 0)).toBe('2026-11-27');
});

it('sends each Pix with a txid and each refund at its final status that no record holds, once; none in process, none of another key, none without a txid', async () => {
  const w = world();
  const charge = pixOf();
  const keyless = pixOf({ chave: null });
  const refunded = pixOf({
    refunds: [
      refundOf('r1', RefundStatus.RETURNED),
      refundOf('r2', RefundStatus.IN_PROCESS),
      refundOf('r3', RefundStatus.NOT_DONE),
    ],
  });
  const otherKey = pixOf({ chave: OTHER_KEY, refunds: [refundOf('r4', RefundStatus.RETURNED)] });
  const noTxid = pixOf({ txid: null, refunds: [refundOf('r5', RefundStatus.RETURNED)] });
  const yesterday = pixOf({ chave: 'FINANCEIRO@example.com.br' });
  for (const pix of [charge, keyless, refunded, otherKey, noTxid]) w.add('2026-11-27', pix);
  w.add('2026-11-26', yesterday);
  const report = await sweep(w.deps, FAR, AT);
  expect(w.looked()).toEqual([
    { kind: 'pix', endToEndId: charge.endToEndId },
    { kind: 'pix', endToEndId: keyless.endToEndId },
    { kind: 'pix', endToEndId: refunded.endToEndId },
    { kind: 'pix-refund', endToEndId: refunded.endToEndId, refundId: 'r1' },
    { kind: 'pix-refund', endToEndId: refunded.endToEndId, refundId: 'r3' },
    { kind: 'pix', endToEndId: yesterday.endToEndId },
  ]);
  expect(report).toMatchObject({ complete: true, settlementsToVerify: 6 });
  expect(report.days.slice(0, 2)).toEqual([
    { listing: 'pix', day: '2026-11-27', pages: 1, items: 9, restarted: false },
    { listing: 'pix', day: '2026-11-26', pages: 1, items: 1, restarted: false },
  ]);
  // The skipped are logged once a page per reason, at info, with no key or id of anyone's.
  const skips = w.logs.filter((l) => l.message.includes('skipped'));
  expect(skips).toEqual([
    expect.objectContaining({
      level: 'info',
      details: expect.objectContaining({
        listing: 'pix',
        day: '2026-11-27',
        entries: 2,
        why: expect.stringContaining("not this receiver's"),
      }),
    }),
    expect.objectContaining({
      level: 'info',
      details: expect.objectContaining({ entries: 2, why: expect.stringContaining('pix.sweep.publishWithoutTxid') }),
    }),
  ]);
  expect(JSON.stringify(w.logs)).not.toContain(OTHER_KEY);
  expect(JSON.stringify(w.logs)).not.toContain(otherKey.endToEndId);

  // The processor verified them: the next sweep sends nothing, reading each day's last page only.
  for (const pix of [charge, keyless, refunded, yesterday]) w.published(pix);
  w.refundPublished(refunded, 'r1', RefundStatus.RETURNED);
  w.refundPublished(refunded, 'r3', RefundStatus.NOT_DONE);
  w.sent.length = 0;
  const again = await sweep(w.deps, FAR, AT);
  expect(w.sent).toEqual([]);
  expect(again.settlementsToVerify).toBe(0);
});

it('holds a Pix once its record holds any verified state (a charge not concluded is not asked about every sweep), and a refund by its final status', async () => {
  const w = world();
  const pending = pixOf({ refunds: [refundOf('r1', RefundStatus.RETURNED)] });
  w.add('2026-11-27', pending);
  w.records.set(`pix:${pending.endToEndId}`, {
    ...EMPTY_RECORD,
    version: 1,
    sequence: 1,
    history: [],
    state: { status: 'ATIVA', statusClass: StatusClass.PENDING },
  });
  // The refund's record holds it in process only: its final status is still to publish.
  w.records.set(`pix-refund:${pending.endToEndId}:r1`, {
    ...EMPTY_RECORD,
    version: 1,
    sequence: 1,
    history: [],
    state: { status: RefundStatus.IN_PROCESS, statusClass: StatusClass.PENDING },
  });
  await sweep(w.deps, FAR, AT);
  expect(w.looked()).toEqual([{ kind: 'pix-refund', endToEndId: pending.endToEndId, refundId: 'r1' }]);
});

it('publishes a Pix without a txid when the receiver says so (pix.sweep.publishWithoutTxid), with its refunds', async () => {
  const w = world({ publishWithoutTxid: true });
  const noTxid = pixOf({ txid: null, refunds: [refundOf('r1', RefundStatus.RETURNED)] });
  w.add('2026-11-27', noTxid);
  await sweep(w.deps, FAR, AT);
  expect(w.looked()).toEqual([
    { kind: 'pix', endToEndId: noTxid.endToEndId },
    { kind: 'pix-refund', endToEndId: noTxid.endToEndId, refundId: 'r1' },
  ]);
});

it('reads every page of a day the provider says it has; resumes from the cursor; one that ignores the page number is read no further, the sweep incomplete', async () => {
  const w = world({ pageSize: 2 });
  const five = Array.from({ length: 5 }, () => pixOf());
  for (const pix of five) w.add('2026-11-27', pix);
  await sweep(w.deps, FAR, AT);
  expect(
    w.calls.filter((c) => c.inicio.startsWith('2026-11-27') && c.devolucaoPresente === undefined).map((c) => c.page),
  ).toEqual([0, 1, 2]);
  expect(w.looked()).toHaveLength(5);
  // A Pix added since: the next sweep reads from the cursor's page on, and asks about it alone.
  const late = pixOf();
  w.add('2026-11-27', late);
  w.sent.length = 0;
  w.calls.length = 0;
  await sweep(w.deps, FAR, AT);
  expect(w.calls.filter((c) => c.inicio.startsWith('2026-11-27')).map((c) => c.page)).toEqual([2]);
  expect(w.looked()).toEqual([{ kind: 'pix', endToEndId: late.endToEndId }]);

  const ignoring = world({ pageSize: 2 });
  for (const pix of five) ignoring.add('2026-11-27', pix);
  const listed = ignoring.lister.listPix.bind(ignoring.lister);
  ignoring.lister.listPix = async (window, _page, deadline, options) => ({
    ...(await listed(window, 0, deadline, options)),
    paginaAtual: 0,
  });
  const report = await sweep(ignoring.deps, FAR, AT);
  expect(report.complete).toBe(false);
  expect(ignoring.counts[SweepMetric.REPEATED_PAGES]).toBeGreaterThanOrEqual(1);
  expect(ignoring.looked()).toHaveLength(2);
});

it('reads the refunds of Pix older than the look-back over the days back to refundLookbackDays, one a sweep in turn: every older day read within a day of sweeps', async () => {
  const w = world({ pageSize: 2 });
  const old = pixOf({ refunds: [refundOf('r1', RefundStatus.RETURNED)] });
  const oldInProcess = [
    pixOf({ refunds: [refundOf('r2', RefundStatus.IN_PROCESS)] }),
    pixOf({ refunds: [refundOf('r3', RefundStatus.IN_PROCESS)] }),
  ];
  const day20 = pixDay(AT, 20);
  // A first page of Pix none of whose refunds is final: no entry, yet the day goes on to the next page.
  for (const pix of [...oldInProcess, old]) w.add(day20, pix);
  const seen = new Set<string>();
  for (let slot = 0; slot < 26; slot++) {
    const at = AT + slot * 15 * 60_000;
    w.calls.length = 0;
    await sweep({ ...w.deps, now: () => at }, at + 3_600_000, at);
    const refundCalls = w.calls.filter((c) => c.devolucaoPresente === true);
    expect(new Set(refundCalls.map((c) => c.inicio)).size).toBe(1);
    seen.add(refundCalls[0].inicio);
  }
  // Days 4 to 29 back: 26 days, each read once over 26 sweeps.
  expect(seen.size).toBe(26);
  expect(w.looked()).toEqual([{ kind: 'pix-refund', endToEndId: old.endToEndId, refundId: 'r1' }]);
});

it('turns the older days in slots of the schedule', () => {
  const days = rotatingDays(4, 29, 2, 15);
  const slot = 15 * 60_000;
  const read = Array.from({ length: 13 }, (_, i) => days(i * slot)).flat();
  expect(read.sort((a, b) => a - b)).toEqual(Array.from({ length: 26 }, (_, i) => 4 + i));
  expect(rotatingDays(4, 3, 1, 15)(0)).toEqual([]);
  expect(rotatingDays(4, 5, 9, 15)(0)).toEqual([4, 5]);
});
