import { EventTrigger, StatusClass } from '../../../contracts/events';
import { bankDay } from '../../../lambda/bank/cooperative/answers';
import type { DayCursor } from '../../../lambda/store/day-cursors';
import { decodeLookRequest } from '../../../lambda/store/look-request';
import type { PendingPayment } from '../../../lambda/store/pending-payments';
import { SweepDefaults, SweepMetric } from '../../../contracts/reconciliation';
import { EMPTY_RECORD, type SubjectRecord } from '../../../lambda/store/subject-store';
import { MemoryLookMarkers } from '../../support/processor-records';
import { recentDays, sweep, type SweepDeps } from '../../../lambda/reconciliation/sweep';
import {
  holdsSettlement,
  listedSettlement,
  settledBoletoListing,
  type SettledBoletosLister,
} from '../../../lambda/bank/cooperative/listing';
import { sweepTestSettings } from '../../support/sweep-records';

const BENEFICIARIO = '54321';
const PAGE = 50;
/** 2026-11-23 15:00 in São Paulo (18:00 UTC). */
const NOON_ISH = Date.parse('2026-11-23T18:00:00Z');

interface Listed {
  readonly nossoNumero: string;
  readonly cents: number;
  readonly beneficiario?: string;
}

/** A bank's listing by ISO day, paged as the bank pages it, and everything the sweep did. */
function fakeWorld(options: { now?: number } = {}) {
  /** The days the listing reads: today and this many before (settings.lookbackDays, as the handler wires it). */
  const lookback = { days: 3 };
  const listings = new Map<string, Listed[]>();
  const records = new Map<string, SubjectRecord>();
  const cursors = new Map<string, DayCursor>();
  const pending: PendingPayment[] = [];
  const sent: string[] = [];
  const calls: { dia: string; pagina: number }[] = [];
  const counts: Record<string, number> = {};
  const givenUp: string[] = [];
  const markers = new MemoryLookMarkers();
  let now = options.now ?? NOON_ISH;
  const isoOf = (dia: string) => `${dia.slice(6)}-${dia.slice(3, 5)}-${dia.slice(0, 2)}`;
  const bank: SettledBoletosLister = {
    async listSettledBoletos(codigo, dia, pagina) {
      expect(codigo).toBe(BENEFICIARIO);
      calls.push({ dia, pagina });
      const day = isoOf(dia);
      const all = listings.get(day) ?? [];
      const items = all.slice((pagina - 1) * PAGE, pagina * PAGE).map((l) => ({
        codigoBeneficiario: l.beneficiario ?? BENEFICIARIO,
        nossoNumero: l.nossoNumero,
        dataPagamento: `${day} 00:00:00.0`,
        valorLiquidado: l.cents / 100,
        tipoLiquidacao: 'PIX',
      }));
      return { items, hasNext: pagina * PAGE < all.length };
    },
  };
  const deps: SweepDeps = {
    settings: sweepTestSettings(3),
    codigoBeneficiario: BENEFICIARIO,
    listings: [
      {
        listing: settledBoletoListing(
          { listSettledBoletos: (...args) => bank.listSettledBoletos(...args) },
          BENEFICIARIO,
          PAGE,
        ),
        cursors: {
          read: async (day) => cursors.get(day),
          write: async (day, cursor) => {
            cursors.set(day, cursor);
          },
        },
        daysBack: () => recentDays(lookback.days)(),
      },
    ],
    readRecord: async (id) => records.get(id) ?? EMPTY_RECORD,
    pendingPayments: {
      async *list() {
        yield* [...pending];
      },
      giveUp: async (payment) => {
        givenUp.push(payment.subjectId);
      },
    },
    markers,
    send: async (bodies) => {
      sent.push(...bodies);
    },
    count: (metric, value = 1) => {
      counts[metric] = (counts[metric] ?? 0) + value;
    },
    logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
    now: () => now,
  };
  return {
    deps,
    bank,
    listings,
    lookback,
    records,
    cursors,
    pending,
    sent,
    calls,
    counts,
    givenUp,
    markers,
    setNow: (value: number) => {
      now = value;
    },
    /** What the processor does with a look: the record then holds the settlement the bank shows. */
    publish(day: string, listed: Listed) {
      const id = `${day}:${listed.cents}`;
      records.set(`boleto:${BENEFICIARIO}:${listed.nossoNumero}`, {
        ...EMPTY_RECORD,
        version: 1,
        sequence: 1,
        history: [`${StatusClass.SETTLED}:${id}`],
        state: {
          status: 'LIQUIDADO',
          statusClass: StatusClass.SETTLED,
          settlement: { id, date: day, amount: { cents: listed.cents, decimal: (listed.cents / 100).toFixed(2) } },
        },
      });
    },
    looked: () => sent.map((body) => decodeLookRequest(body)!.subject),
  };
}

/** A nine-digit nossoNumero, as the bank writes them, named by a letter and a number. */
const n = (prefix: string, i: number): string =>
  `${prefix.charCodeAt(0) - 55}`.padStart(2, '0') + String(i).padStart(7, '0');

const settlements = (prefix: string, count: number, from = 0): Listed[] =>
  Array.from({ length: count }, (_, i) => ({ nossoNumero: n(prefix, from + i), cents: 10_000 + from + i }));

const FAR = NOON_ISH + 3_600_000;

const sweepWith = (deps: SweepDeps) => sweep(deps, FAR);

it("reads today and the last 3 days in the bank's time zone, and asks the processor to verify each settlement no record holds, as a reconciliation", async () => {
  const world = fakeWorld();
  world.listings.set('2026-11-23', settlements('T', 3));
  world.listings.set('2026-11-21', settlements('B', 2));
  const report = await sweep(world.deps, FAR);
  expect(world.calls.map((c) => c.dia)).toEqual(['23/11/2026', '22/11/2026', '21/11/2026', '20/11/2026']);
  expect(world.looked()).toEqual(
    [...settlements('T', 3), ...settlements('B', 2)].map((l) => ({ kind: 'boleto', nossoNumero: l.nossoNumero })),
  );
  const request = decodeLookRequest(world.sent[0])!;
  expect(request.trigger).toBe(EventTrigger.RECONCILIATION);
  expect(request.reason).toContain('2026-11-23');
  expect(report).toMatchObject({ bankCalls: 4, settlementsToVerify: 5, settlementsKnown: 0, complete: true });
  expect(world.counts[SweepMetric.BANK_CALLS]).toBe(4);
  expect(world.counts[SweepMetric.LOOKS_REQUESTED]).toBe(5);
});

it('asks nothing about a settlement a webhook already published, and nothing at all on a repeat sweep over unchanged days', async () => {
  const world = fakeWorld();
  const today = settlements('T', 4);
  world.listings.set('2026-11-23', today);
  world.publish('2026-11-23', today[1]);
  await sweep(world.deps, FAR);
  expect(world.looked().map((s) => (s as { nossoNumero: string }).nossoNumero)).toEqual([
    n('T', 0),
    n('T', 2),
    n('T', 3),
  ]);
  for (const listed of today) world.publish('2026-11-23', listed);
  world.sent.length = 0;
  world.calls.length = 0;
  const again = await sweep(world.deps, FAR);
  expect(world.sent).toEqual([]);
  // One listing call per day: the last page read, to see what was added since.
  expect(world.calls).toHaveLength(4);
  expect(again).toMatchObject({ settlementsToVerify: 0, settlementsKnown: 0 });
});

it("reads every page; when stopped half-way it resumes from the day's cursor and never asks twice about what it handled", async () => {
  const world = fakeWorld();
  const day = settlements('P', 120);
  world.listings.set('2026-11-23', day);
  // Enough time for two pages only.
  let calls = 0;
  const list = world.bank.listSettledBoletos.bind(world.bank);
  world.bank.listSettledBoletos = async (...args) => {
    if (++calls === 2) world.setNow(FAR - 1_000);
    return list(...args);
  };
  const first = await sweep(world.deps, FAR);
  expect(first.complete).toBe(false);
  expect(world.counts[SweepMetric.INCOMPLETE]).toBe(1);
  expect(world.sent).toHaveLength(100);
  expect(world.cursors.get('2026-11-23')).toEqual({ page: 2, handledOnPage: 50, lastNossoNumero: n('P', 99) });

  world.setNow(NOON_ISH);
  world.calls.length = 0;
  const second = await sweep(world.deps, FAR);
  expect(second.complete).toBe(true);
  expect(world.calls.slice(0, 2)).toEqual([
    { dia: '23/11/2026', pagina: 2 },
    { dia: '23/11/2026', pagina: 3 },
  ]);
  const asked = world.looked().map((s) => (s as { nossoNumero: string }).nossoNumero);
  expect(asked).toHaveLength(120);
  expect(new Set(asked).size).toBe(120);
});

it('asks only about settlements added to a day since the last sweep (the listing grows at its end)', async () => {
  const world = fakeWorld();
  world.listings.set('2026-11-23', settlements('G', 49));
  await sweep(world.deps, FAR);
  world.listings.set('2026-11-23', settlements('G', 53));
  world.sent.length = 0;
  await sweep(world.deps, FAR);
  expect(world.looked().map((s) => (s as { nossoNumero: string }).nossoNumero)).toEqual([
    n('G', 49),
    n('G', 50),
    n('G', 51),
    n('G', 52),
  ]);
});

it('reads a day again from its first page when a settlement before the cursor dropped out (reversed), skipping nothing and asking nothing twice', async () => {
  const world = fakeWorld();
  const day = settlements('R', 60);
  world.listings.set('2026-11-23', day);
  await sweep(world.deps, FAR);
  for (const listed of day) world.publish('2026-11-23', listed);
  // R0003 is reversed (it leaves the listing, moving the rest up), and two settle after.
  world.listings.set('2026-11-23', [...day.filter((l) => l.nossoNumero !== n('R', 3)), ...settlements('R', 2, 60)]);
  world.sent.length = 0;
  world.calls.length = 0;
  const report = await sweep(world.deps, FAR);
  expect(world.looked().map((s) => (s as { nossoNumero: string }).nossoNumero)).toEqual([n('R', 60), n('R', 61)]);
  expect(report.days[0]).toMatchObject({ day: '2026-11-23', restarted: true });
  expect(world.calls.filter((c) => c.dia === '23/11/2026').map((c) => c.pagina)).toEqual([2, 1, 2]);
});

it("names the bank's day at 22:30 in São Paulo (01:30 UTC the next day) as that day", () => {
  const at = Date.parse('2026-11-24T01:30:00Z');
  expect(bankDay(at)).toEqual({ iso: '2026-11-23', dia: '23/11/2026' });
  expect(bankDay(at, 3)).toEqual({ iso: '2026-11-20', dia: '20/11/2026' });
  expect(bankDay(Date.parse('2026-11-24T03:00:00Z'))).toEqual({ iso: '2026-11-24', dia: '24/11/2026' });
});

it('skips a listing item of another beneficiary or with no nossoNumero of up to nine digits, and zero-pads a shorter one', async () => {
  const world = fakeWorld();
  world.listings.set('2026-11-23', [
    { nossoNumero: '100000001', cents: 100, beneficiario: '99999' },
    { nossoNumero: '', cents: 200 },
    { nossoNumero: 'X1', cents: 250 },
    { nossoNumero: '1234567', cents: 300 },
  ]);
  await sweep(world.deps, FAR);
  expect(world.looked()).toEqual([{ kind: 'boleto', nossoNumero: '001234567' }]);
});

it('stops a day whose listing answers the same page again (a bank ignoring pagina), counting it, rather than looping to the deadline', async () => {
  const world = fakeWorld();
  world.listings.set('2026-11-23', settlements('S', 3));
  const listed = world.bank.listSettledBoletos;
  world.bank.listSettledBoletos = async (codigo, dia, _pagina, deadline) => ({
    ...(await listed(codigo, dia, 1, deadline)),
    hasNext: true,
  });
  world.lookback.days = 0;
  const report = await sweep(world.deps, FAR);
  expect(report.complete).toBe(false);
  expect(report.bankCalls).toBe(2);
  expect(world.counts[SweepMetric.REPEATED_PAGES]).toBe(1);
  expect(world.looked()).toHaveLength(3);
});

it('reads on past a full page whose hasNext is missing, and ends the day at a page that is not full: all 120 settlements looked at', async () => {
  const world = fakeWorld();
  world.listings.set('2026-11-23', settlements('M', 120));
  const listed = world.bank.listSettledBoletos;
  world.bank.listSettledBoletos = async (codigo, dia, pagina, deadline) => ({
    items: (await listed(codigo, dia, pagina, deadline)).items,
  });
  world.lookback.days = 0;
  const report = await sweep(world.deps, FAR);
  expect(world.looked()).toHaveLength(120);
  expect(world.calls.map((c) => c.pagina)).toEqual([1, 2, 3]);
  expect(report.complete).toBe(true);
  // A last page exactly full: one more call, answered empty, ends it.
  const exact = fakeWorld();
  exact.listings.set('2026-11-23', settlements('N', 100));
  const listedExact = exact.bank.listSettledBoletos;
  exact.bank.listSettledBoletos = async (codigo, dia, pagina, deadline) => ({
    items: (await listedExact(codigo, dia, pagina, deadline)).items,
  });
  exact.lookback.days = 0;
  await sweep(exact.deps, FAR);
  expect(exact.calls.map((c) => c.pagina)).toEqual([1, 2, 3]);
  expect(exact.looked()).toHaveLength(100);
});

it('stops a day at the page bound, with an error metric, and reports the sweep incomplete', async () => {
  const world = fakeWorld();
  world.listings.set('2026-11-23', settlements('B', 5 * PAGE));
  world.lookback.days = 0;
  const report = await sweep({ ...world.deps, settings: { ...world.deps.settings, maxListingPage: 3 } }, FAR);
  expect(world.calls.map((c) => c.pagina)).toEqual([1, 2, 3]);
  expect(report.complete).toBe(false);
  expect(world.counts[SweepMetric.LISTING_PAGE_BOUND]).toBe(1);
  expect(world.looked()).toHaveLength(3 * PAGE);
});

it('makes at most maxListingCallsPerSweep listing calls, still looks at pending payments, and the next sweep resumes from the cursors', async () => {
  const world = fakeWorld();
  world.listings.set('2026-11-23', settlements('C', 4 * PAGE));
  world.pending.push({ subjectId: 'payment:pix:E1', pendingSince: NOON_ISH - 3_600_000 });
  world.lookback.days = 0;
  const capped = { ...world.deps, settings: { ...world.deps.settings, maxListingCallsPerSweep: 2 } };
  const first = await sweep(capped, FAR);
  expect(first).toMatchObject({ bankCalls: 2, complete: false, paymentsToVerify: 1 });
  expect(world.counts[SweepMetric.LISTING_CALLS_CAPPED]).toBe(1);
  const second = await sweep(capped, FAR);
  // From the cursor: page 2 again (the cursor's page), then page 3; page 4 waits for a third sweep.
  expect(world.calls.map((c) => c.pagina)).toEqual([1, 2, 2, 3]);
  expect(second.complete).toBe(false);
  await sweep(capped, FAR);
  expect(
    new Set(
      world
        .looked()
        .filter((s) => s.kind === 'boleto')
        .map((s) => (s as { nossoNumero: string }).nossoNumero),
    ).size,
  ).toBe(4 * PAGE);
});

it('holds a settlement only when the record has that day and amount', () => {
  const listed = listedSettlement({ dataPagamento: '2026-11-23 00:00:00.0', valorLiquidado: 150.5 });
  expect(listed).toEqual({ day: '2026-11-23', cents: 15050 });
  const record = (key: string): SubjectRecord => ({ ...EMPTY_RECORD, history: [key] });
  expect(holdsSettlement(record('settled:2026-11-23:15050'), listed)).toBe(true);
  expect(holdsSettlement(record('settled:2026-11-22:15050'), listed)).toBe(false);
  expect(holdsSettlement(record('settled:2026-11-23:15000'), listed)).toBe(false);
  expect(holdsSettlement(EMPTY_RECORD, listed)).toBe(false);
  expect(listedSettlement({ dataPagamento: 'yesterday', valorLiquidado: 150.5 })).toBeUndefined();
  expect(holdsSettlement(record('settled:2026-11-23:15050'), undefined)).toBe(false);
  // Published, then reversed (the record is open): listed settled again, it may be a settlement again of the same amount: look.
  const reversed: SubjectRecord = {
    ...record('settled:2026-11-23:15050'),
    state: { status: 'EM CARTEIRA', statusClass: StatusClass.OPEN },
  };
  expect(holdsSettlement(reversed, listed)).toBe(false);
});

it('looks again at every pending payment, and gives up (with a metric) those pending longer than the maximum age', async () => {
  const world = fakeWorld();
  world.pending.push(
    { subjectId: 'payment:pix:E1', pendingSince: NOON_ISH - 8 * 86_400_000 },
    { subjectId: 'payment:pix:E2', pendingSince: NOON_ISH - 3_600_000 },
    { subjectId: 'payment:tributos:T:9', pendingSince: NOON_ISH - 86_400_000 },
  );
  const report = await sweep(world.deps, FAR);
  expect(world.looked()).toEqual([
    { kind: 'payment', paymentKind: 'pix', idTransacao: 'E2' },
    { kind: 'payment', paymentKind: 'tributos', idTransacao: 'T:9' },
  ]);
  expect(world.givenUp).toEqual(['payment:pix:E1']);
  expect(report).toMatchObject({ paymentsToVerify: 2, paymentsGivenUp: 1 });
  expect(world.counts[SweepMetric.PAYMENTS_GIVEN_UP]).toBe(1);
});

it('sends no second look for a payment whose last one is still in flight: four sweeps with processing behind send one look each', async () => {
  const world = fakeWorld();
  for (let i = 0; i < 6; i++)
    world.pending.push({ subjectId: `payment:pix:P${i}`, pendingSince: NOON_ISH - 3_600_000 + i });
  for (let round = 0; round < 4; round++) {
    world.setNow(NOON_ISH + round * 15 * 60_000);
    await sweep(world.deps, NOON_ISH + round * 15 * 60_000 + 60_000);
  }
  // 6 payments, 6 looks in all (not 24): each holds its payment's marker until the processor is done.
  expect(world.looked()).toHaveLength(6);
  expect(world.counts[SweepMetric.PAYMENT_LOOKS_IN_FLIGHT]).toBe(18);
  const lookIds = world.sent.map((body) => decodeLookRequest(body)!.lookId);
  expect(new Set(lookIds).size).toBe(6);
  expect(world.markers.markers.get('payment:pix:P0')?.owner).toBe(lookIds[0]);
  // The processor finished one: the next sweep sends it again, and only it.
  await world.markers.release('payment:pix:P0', lookIds[0]!);
  world.setNow(NOON_ISH + 4 * 15 * 60_000);
  await sweep(world.deps, NOON_ISH + 4 * 15 * 60_000 + 60_000);
  expect(world.looked().slice(6)).toEqual([{ kind: 'payment', paymentKind: 'pix', idTransacao: 'P0' }]);
});

it('sends at most maxPaymentLooksPerSweep looks a sweep, the oldest payments first, and counts the rest', async () => {
  const world = fakeWorld();
  world.deps = { ...world.deps, settings: { ...world.deps.settings, maxPaymentLooksPerSweep: 3 } };
  // The index lists them oldest first.
  for (let i = 0; i < 5; i++)
    world.pending.push({ subjectId: `payment:pix:Q${i}`, pendingSince: NOON_ISH - 3_600_000 + i });
  const report = await sweepWith(world.deps);
  expect(world.looked().map((s) => (s as { idTransacao: string }).idTransacao)).toEqual(['Q0', 'Q1', 'Q2']);
  expect(report.paymentsToVerify).toBe(3);
  expect(world.counts[SweepMetric.PAYMENT_LOOKS_CAPPED]).toBe(2);
});

it('keeps its defaults: every 15 minutes, today and 3 days back, payments for 7 days', () => {
  expect(SweepDefaults).toMatchObject({ intervalMinutes: 15, lookbackDays: 3, paymentMaxAgeDays: 7 });
});
