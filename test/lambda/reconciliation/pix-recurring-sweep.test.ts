/**
 * Pix Automático found when its callbacks are lost (issue 66, item 5): `GET /rec` and `GET /cobr`
 * list by creation time, so the sweep reads them over the days it covers (a recurrence or charge
 * whose record does not hold the listed state is sent to be verified); and every recurrence and
 * charge the receiver holds in a non-final state is re-read once a day, at the sweep its id picks,
 * never given up for age (a recurrence may stay approved for years).
 */
import { RecurringWebhookKind } from '../../../contracts/pix-recurring';
import type { LookSubject } from '../../../contracts/reconciliation';
import { followedSubject } from '../../../lambda/bank/families';
import { pixDayWindow } from '../../../lambda/bank/pix';
import type {
  RecurrenceRead,
  RecurringChargeRead,
  RecurringPageRead,
} from '../../../lambda/bank/pix/recurring-answers';
import {
  type RecurringLister,
  recurrenceListing,
  recurringChargeListing,
} from '../../../lambda/bank/pix/recurring-listing';
import { chargeStateOf, recurrenceStateOf } from '../../../lambda/bank/pix/recurring-subjects';
import { followedNow } from '../../../lambda/reconciliation/follow-ups';
import { recentDays, sweep, type SweepDeps } from '../../../lambda/reconciliation/sweep';
import type { DayCursor } from '../../../lambda/store/day-cursors';
import { decodeLookRequest } from '../../../lambda/store/look-request';
import type { PendingPayment } from '../../../lambda/store/pending-payments';
import { EMPTY_RECORD, type SubjectRecord } from '../../../lambda/store/subject-store';
import { MemoryLookMarkers } from '../../support/processor-records';
import { RecStatus, RecurringChargeStatus } from '../../../contracts/pix-recurring';
import { sweepTestSettings } from '../../support/sweep-records';

/** 2026-11-29 15:00 in Brasília. */
const AT = Date.parse('2026-11-29T18:00:00Z');
const FAR = AT + 3_600_000;
const DAY = '2026-11-29';

const rec = (n: number, status = RecStatus.APPROVED): RecurrenceRead => ({
  idRec: `RR0000000020261129${String(n).padStart(11, '0')}`,
  status,
  history: [],
  receiver: {},
});
const cobr = (n: number, status = RecurringChargeStatus.ACTIVE): RecurringChargeRead => ({
  idRec: rec(n).idRec,
  txid: `cobr${String(n).padStart(28, '0')}`,
  status,
  valorOriginal: '49.90',
  receiver: {},
  history: [],
  attempts: [],
});

function world(pending: PendingPayment[] = []) {
  const listed = { rec: [] as RecurrenceRead[], cobr: [] as RecurringChargeRead[] };
  const calls: string[] = [];
  const lister: RecurringLister = {
    async listRecurring(kind, window, page) {
      calls.push(`${kind} ${window.inicio} ${page}`);
      const items = window.inicio === pixDayWindow(DAY).inicio ? listed[kind] : [];
      return { items, paginaAtual: page, quantidadeDePaginas: 1 } as RecurringPageRead<never>;
    },
  };
  const records = new Map<string, SubjectRecord>();
  const cursors = new Map<string, DayCursor>();
  const sent: string[] = [];
  const givenUp: string[] = [];
  const cursorsOf = (name: string) => ({
    read: async (day: string) => cursors.get(`${name}#${day}`),
    write: async (day: string, c: DayCursor) => {
      cursors.set(`${name}#${day}`, c);
    },
  });
  const deps: SweepDeps = {
    settings: sweepTestSettings(1, {
      pix: {
        keyHashes: [],
        publishWithoutTxid: false,
        refundLookbackDays: 1,
        refundDaysPerSweep: 0,
        intervalMinutes: 15,
        recurring: { chargeCreationDays: 14, chargeDaysPerSweep: 2 },
      },
    }),
    codigoBeneficiario: '54321',
    listings: [
      { listing: recurrenceListing(lister, 1000), cursors: cursorsOf('pix-rec'), daysBack: recentDays(1) },
      { listing: recurringChargeListing(lister, 1000), cursors: cursorsOf('pix-cobr'), daysBack: recentDays(1) },
    ],
    readRecord: async (id) => records.get(id) ?? EMPTY_RECORD,
    pendingPayments: {
      async *list() {
        yield* pending;
      },
      giveUp: async (p) => {
        givenUp.push(p.subjectId);
      },
    },
    followed: followedSubject,
    markers: new MemoryLookMarkers(),
    send: async (bodies) => {
      sent.push(...bodies);
    },
    count: () => undefined,
    logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
    now: () => AT,
  };
  const looked = (): LookSubject[] => sent.map((b) => decodeLookRequest(b)!.subject);
  return { deps, listed, calls, records, sent, givenUp, looked };
}

const holding = (key: string): SubjectRecord => ({ ...EMPTY_RECORD, history: [key] });

describe('the listings by creation: what no record holds is looked at', () => {
  it('sends a look for a recurrence and a charge whose records do not hold the listed state, none for those that do', async () => {
    const w = world();
    const [heldRec, newRec] = [rec(1), rec(2, RecStatus.CANCELLED)];
    const [heldCharge, movedCharge] = [cobr(3), cobr(4, RecurringChargeStatus.CONCLUDED)];
    w.listed.rec.push(heldRec, newRec);
    w.listed.cobr.push(heldCharge, movedCharge);
    w.records.set(`pix-recurrence:${heldRec.idRec}`, holding(recurrenceStateOf(heldRec).key));
    w.records.set(`pix-recurrence:${newRec.idRec}`, holding(recurrenceStateOf(rec(2)).key));
    w.records.set(`pix-recurring-charge:${heldCharge.txid}`, holding(chargeStateOf(heldCharge).key));
    await sweep(w.deps, FAR, AT);
    expect(w.looked()).toEqual([
      { kind: 'pix-recurrence', idRec: newRec.idRec },
      { kind: 'pix-recurring-charge', txid: movedCharge.txid },
    ]);
    expect(w.calls).toEqual(expect.arrayContaining([`${RecurringWebhookKind.REC} ${pixDayWindow(DAY).inicio} 0`]));
  });

  it("holds an entry the record says is another receiver's: no look", async () => {
    const w = world();
    w.listed.cobr.push(cobr(5));
    w.records.set(`pix-recurring-charge:${cobr(5).txid}`, { ...EMPTY_RECORD, notAttributed: 'another account' });
    await sweep(w.deps, FAR, AT);
    expect(w.looked()).toEqual([]);
  });
});

describe('the non-final ones, followed until final', () => {
  const ids = Array.from({ length: 200 }, (_, i) => `pix-recurrence:${rec(i + 10).idRec}`);

  it('re-reads each once a day, at one sweep of the 96, spread over them', () => {
    const slots = ids.map((id) =>
      Array.from({ length: 96 }, (_, s) => s).filter((s) => followedNow(id, 1440, 15, AT + s * 15 * 60_000)),
    );
    expect(slots.every((s) => s.length === 1)).toBe(true);
    const used = new Set(slots.map((s) => s[0]));
    expect(used.size).toBeGreaterThan(60);
  });

  it('sends a look only for those due at this sweep, and never gives one up for age (a payment past it is)', async () => {
    const old = AT - 400 * 86_400_000;
    const pending = [
      ...ids.map((subjectId) => ({ subjectId, pendingSince: old })),
      { subjectId: 'payment:pix:E0000000020261101000000000000001', pendingSince: old },
    ];
    const w = world(pending);
    await sweep(w.deps, FAR, AT);
    const due = ids.filter((id) => followedNow(id, 1440, 15, AT));
    expect(w.looked()).toEqual(due.map((id) => followedSubject(id)!.subject));
    expect(w.givenUp).toEqual(['payment:pix:E0000000020261101000000000000001']);
  });

  it('reads a pending id of its kinds only when well formed', () => {
    expect(followedSubject('pix-recurrence:../../x')).toBeUndefined();
    expect(followedSubject(`pix-recurring-charge:${cobr(1).txid}`)).toEqual({
      subject: { kind: 'pix-recurring-charge', txid: cobr(1).txid },
      everyMinutes: 1440,
    });
  });
});
