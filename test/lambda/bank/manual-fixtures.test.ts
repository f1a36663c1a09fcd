/**
 * Answers shaped as the bank's manual describes (test/fixtures/bank, invented values) read by the
 * code that reads the bank: the processor's core (the boleto query), the sweep (the listing) and
 * the error reader. The simulator is not involved: these hold the code to the manual itself.
 */
import { MemoryLookMarkers } from '../../support/processor-records';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ZuluTimestamps } from '../../../contracts/bank-connection';
import { BankEventDetailType as T, EventTrigger, StatusClass } from '../../../contracts/events';
import { ProcessorMetric } from '../../../contracts/processor';
import { SweepMetric } from '../../../contracts/reconciliation';
import { settledPage } from '../../../lambda/bank/cooperative/answers';
import { settledBoletoListing } from '../../../lambda/bank/cooperative/listing';
import { bankErrorMessage } from '../../../lambda/bank/errors';
import { processBatch } from '../../../lambda/processor/batch';
import { recentDays, sweep, type SweepDeps } from '../../../lambda/reconciliation/sweep';
import { decodeLookRequest, encodeLookRequest } from '../../../lambda/store/look-request';
import { EMPTY_RECORD, type SubjectRecord } from '../../../lambda/store/subject-store';
import { boletoEvent, contextWith, fakeDeps, rawRecord, sqsRecord } from '../../support/processor-records';

const fixture = (name: string): any => JSON.parse(readFileSync(join(__dirname, '../../fixtures/bank', name), 'utf8'));
const OPEN = fixture('boleto-query-open.json');
const SETTLED = fixture('boleto-query-settled.json');
const LISTING = fixture('settled-listing-page.json');
const ERRORS = fixture('errors.json');
const SUBJECT = 'boleto:54321:000042100';

type Fakes = ReturnType<typeof fakeDeps>;
const run = (f: Fakes, records: ReturnType<typeof sqsRecord>[]) =>
  processBatch({ Records: records }, contextWith(f.clock), f.deps);

describe("the boleto query's flat answer, read by the processor", () => {
  it("publishes the settlement it shows, on the bank's day of a true UTC instant (01:30Z is 22:30 of the day before), with valorNominal as the amount", async () => {
    const f = fakeDeps();
    f.bank.boletos.set('000042100', SETTLED);
    const result = await run(f, [sqsRecord('boleto', boletoEvent('42100', 'LIQUIDACAO_PIX', '129.07'))]);
    expect(result.batchItemFailures).toEqual([]);
    expect(f.quarantined).toEqual([]);
    expect(f.published.map((e) => e.detailType)).toEqual([T.BOLETO_SETTLED]);
    expect(f.published[0].detail).toMatchObject({
      subject: { id: SUBJECT, nossoNumero: '000042100' },
      state: { status: 'LIQUIDADO PIX', statusClass: StatusClass.SETTLED, amount: { cents: 13407 } },
      settlement: {
        id: '2026-03-03:12907',
        date: '2026-03-03T22:30:12.345-03:00',
        amount: { cents: 12907, decimal: '129.07' },
      },
      matchesNotification: true,
    });
  });

  it("reads the Z as the bank's local time when the connection says so", async () => {
    const g = fakeDeps({ zuluTimestamps: ZuluTimestamps.BANK_LOCAL_TIME });
    g.bank.boletos.set('000042100', SETTLED);
    await run(g, [sqsRecord('boleto', boletoEvent('000042100', 'LIQUIDACAO_PIX', '129.07'))]);
    expect(g.published[0].detail.settlement).toMatchObject({
      id: '2026-03-04:12907',
      date: '2026-03-04T01:30:12.345-03:00',
    });
  });

  it('publishes nothing for the open answer (no dadosLiquidacao), and records no settlement', async () => {
    const f = fakeDeps();
    f.bank.boletos.set('000042100', OPEN);
    await run(f, [
      rawRecord(
        encodeLookRequest({
          trigger: EventTrigger.RECONCILIATION,
          subject: { kind: 'boleto', nossoNumero: '000042100' },
          requestedAt: '2026-03-04T12:00:00Z',
          reason: 'test',
        }),
      ),
    ]);
    expect(f.published).toEqual([]);
    expect(f.store.records.get(SUBJECT)?.state).toEqual({
      status: 'EM CARTEIRA',
      statusClass: StatusClass.OPEN,
      amount: { cents: 13407, decimal: '134.07' },
    });
  });

  it('publishes nothing again for a settlement recorded by the earlier release (its id the first ten characters of the Z text): no republish, no reversal, on upgrade', async () => {
    const f = fakeDeps();
    f.bank.boletos.set('000042100', SETTLED);
    const earlier = {
      id: '2026-03-04:12907',
      date: '2026-03-04T01:30:12.345Z',
      amount: { cents: 12907, decimal: '129.07' },
    };
    await f.store.write(SUBJECT, 0, {
      sequence: 1,
      history: ['settled:2026-03-04:12907'],
      seen: [],
      state: {
        status: 'LIQUIDADO PIX',
        statusClass: StatusClass.SETTLED,
        amount: { cents: 13407, decimal: '134.07' },
        settlement: earlier,
      },
    });
    // The bank re-sends it under a new id, and the sweep asks a look: the same settlement both times.
    await run(f, [sqsRecord('boleto', boletoEvent('000042100', 'LIQUIDACAO_PIX', '129.07'))]);
    await run(f, [
      rawRecord(
        encodeLookRequest({
          trigger: EventTrigger.RECONCILIATION,
          subject: { kind: 'boleto', nossoNumero: '000042100' },
          requestedAt: '2026-03-04T12:00:00Z',
          reason: 'listed',
        }),
      ),
    ]);
    expect(f.published).toEqual([]);
    expect(f.quarantined).toEqual([]);
    const record = f.store.records.get(SUBJECT)!;
    expect(record.state?.settlement).toEqual(earlier);
    expect(record.sequence).toBe(1);
  });

  it('counts and names a settlement the listing put on another day than the query shows (a look request from the sweep)', async () => {
    const f = fakeDeps();
    f.bank.boletos.set('000042100', SETTLED);
    const look = (day: string) =>
      rawRecord(
        encodeLookRequest({
          trigger: EventTrigger.RECONCILIATION,
          subject: { kind: 'boleto', nossoNumero: '000042100' },
          requestedAt: '2026-03-04T12:00:00Z',
          reason: 'listed',
          listed: { day, cents: 12907 },
        }),
      );
    await run(f, [look('2026-03-03')]);
    expect(f.counts[ProcessorMetric.SETTLEMENT_DAY_MISMATCH]).toBeUndefined();
    const g = fakeDeps();
    g.bank.boletos.set('000042100', SETTLED);
    await run(g, [look('2026-03-04')]);
    expect(g.counts[ProcessorMetric.SETTLEMENT_DAY_MISMATCH]).toBe(1);
    expect(g.logs.find((l) => l.message.includes('another day'))?.extra).toMatchObject({
      subject: SUBJECT,
      listedDay: '2026-03-04',
      queriedDay: '2026-03-03',
      zuluTimestamps: 'utc',
    });
    expect(g.published.map((e) => e.detailType)).toEqual([T.BOLETO_SETTLED]);
  });
});

describe('the listing page, read by the sweep', () => {
  it("reads hasNext written as a string or a boolean; anything else, or nothing, is not known (the page's size decides)", () => {
    for (const [hasNext, more] of [
      ['true', true],
      ['TRUE ', true],
      [true, true],
      ['false', false],
      [false, false],
      [1, undefined],
      ['yes', undefined],
      [undefined, undefined],
    ] as const) {
      expect(settledPage({ ...LISTING, hasNext }, 'listing', 200).hasNext).toBe(more);
    }
    expect(() => settledPage({ hasNext: false }, 'listing', 200)).toThrow(
      'listing failed with HTTP 200: the answer has no items list',
    );
  });

  function world(records: Record<string, SubjectRecord> = {}) {
    const sent: string[] = [];
    const counts: Record<string, number> = {};
    const calls: number[] = [];
    const deps: SweepDeps = {
      settings: {
        idempotencyTableName: 't',
        queueUrl: 'q',
        lookbackDays: 0,
        paymentMaxAgeDays: 7,
        maxPaymentLooksPerSweep: 1_000,
        maxListingCallsPerSweep: 1_000,
        maxListingPage: 1_000,
        safetyMarginMs: 1_000,
        receiverName: 'r',
      },
      codigoBeneficiario: '54321',
      listings: [
        {
          listing: settledBoletoListing(
            {
              listSettledBoletos: async (_c, _dia, pagina) => {
                calls.push(pagina);
                return settledPage(LISTING, 'listing', 200);
              },
            },
            '54321',
            500,
          ),
          cursors: { read: async () => undefined, write: async () => undefined },
          daysBack: recentDays(0),
        },
      ],
      readRecord: async (id) => records[id] ?? EMPTY_RECORD,
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
      logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
      now: () => Date.parse('2026-03-03T18:00:00Z'),
    };
    return { deps, sent, counts, calls, looks: () => sent.map((body) => decodeLookRequest(body)!) };
  }
  const settledRecord = (id: string): SubjectRecord => ({
    ...EMPTY_RECORD,
    version: 1,
    history: [`settled:${id}`],
    state: {
      status: 'LIQUIDADO PIX',
      statusClass: StatusClass.SETTLED,
      settlement: { id, date: `${id.slice(0, 10)}T01:30:12.345-03:00`, amount: { cents: 12907, decimal: '129.07' } },
    },
  });

  it('asks a look at each settlement no record holds, with the listing\'s day and amount, and ends the day on a string hasNext "false"', async () => {
    const w = world();
    await sweep(w.deps, Date.parse('2026-03-03T18:10:00Z'));
    expect(w.calls).toEqual([1]);
    expect(w.looks().map((l) => [l.subject, l.listed])).toEqual([
      [
        { kind: 'boleto', nossoNumero: '000042100' },
        { day: '2026-03-03', cents: 12907 },
      ],
      [
        { kind: 'boleto', nossoNumero: '000042117' },
        { day: '2026-03-03', cents: 6312 },
      ],
    ]);
  });

  it('asks nothing for a settlement a record holds, on the same day or (counted) on the day next to it', async () => {
    const same = world({ [SUBJECT]: settledRecord('2026-03-03:12907') });
    await sweep(same.deps, Date.parse('2026-03-03T18:10:00Z'));
    expect(same.looks().map((l) => l.subject)).toEqual([{ kind: 'boleto', nossoNumero: '000042117' }]);
    expect(same.counts[SweepMetric.SETTLEMENT_DAY_MISMATCH]).toBeUndefined();
    // Recorded under the other reading of the query's Z (or by an earlier release): the same settlement, no query.
    const next = world({ [SUBJECT]: settledRecord('2026-03-04:12907') });
    await sweep(next.deps, Date.parse('2026-03-03T18:10:00Z'));
    expect(next.looks().map((l) => l.subject)).toEqual([{ kind: 'boleto', nossoNumero: '000042117' }]);
    expect(next.counts[SweepMetric.SETTLEMENT_DAY_MISMATCH]).toBe(1);
    // Two days apart is another settlement: looked at.
    const far = world({ [SUBJECT]: settledRecord('2026-03-05:12907') });
    await sweep(far.deps, Date.parse('2026-03-03T18:10:00Z'));
    expect(far.looks()).toHaveLength(2);
  });
});

describe("the manual's error bodies", () => {
  const errors = Object.entries<{ status: number; body: Record<string, unknown> }>(ERRORS);
  it.each(errors)("reads %s as the bank's own words", (_name, { body }) => {
    const words =
      (body.mensagens as { mensagem: string }[] | undefined)?.[0].mensagem ??
      (body.error_description as string | undefined) ??
      (body.message as string);
    expect(bankErrorMessage(JSON.stringify(body))).toContain(words);
  });
});
