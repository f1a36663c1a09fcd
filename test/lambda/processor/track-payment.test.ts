/**
 * Look requests that cost the bank's budget only when they must: Track Payment for a payment
 * final or followed costs no query, requests for one payment collapse while one is in flight, an
 * id the bank does not know is asked again for a window and then quarantined once, and the
 * sweep's looks free their marker when done.
 */
import { randomUUID } from 'node:crypto';
import { EventTrigger } from '../../../contracts/events';
import { ProcessorMetric } from '../../../contracts/processor';
import { LookDefaults, TRACK_PAYMENT_DETAIL_TYPE } from '../../../contracts/reconciliation';
import { MemorySlotSchedule, OutOfRate } from '../../../lambda/bank/pacing';
import { processBatch } from '../../../lambda/processor/batch';
import { decodeLookRequest, encodeLookRequest } from '../../../lambda/store/look-request';
import { ProcessorQueue } from '../../../lambda/processor/deps';
import {
  boletoEvent,
  contextWith,
  FakeBank,
  fakeDeps,
  pixPayment,
  rawRecord,
  requeuedRecord,
  sqsRecord,
} from '../../support/processor-records';

type Fakes = ReturnType<typeof fakeDeps>;
const run = (f: Fakes, records: ReturnType<typeof sqsRecord>[]) =>
  processBatch({ Records: records }, contextWith(f.clock), f.deps);

/** A Track Payment event as EventBridge delivers it to SQS (a new event id each time, as the company's code would send). */
function trackPayment(f: Fakes, idTransacao: string, source = 'acme.payments') {
  return rawRecord(
    JSON.stringify({
      version: '0',
      id: randomUUID(),
      'detail-type': TRACK_PAYMENT_DETAIL_TYPE,
      source,
      account: '111111111111',
      time: new Date(f.clock.now()).toISOString(),
      region: 'sa-east-1',
      resources: [],
      detail: { paymentKind: 'pix', idTransacao, account: { cooperativa: '0101', conta: '123456' } },
    }),
  );
}

/** Runs the last message the processor sent back (a deferred look), after its delay. */
async function runRequeued(f: Fakes) {
  f.clock.advance(f.requeueDelays[f.requeueDelays.length - 1] * 1000);
  return run(f, [requeuedRecord(f.requeued[f.requeued.length - 1])]);
}

describe('Track Payment costs no query when none is needed', () => {
  it('asks nothing for 100 events naming a payment already final, and publishes nothing', async () => {
    const f = fakeDeps();
    f.bank.payments.set('E1', pixPayment('E1', 'EFETIVADO'));
    await run(f, [sqsRecord('payments', pixPayment('E1', 'EFETIVADO'))]);
    const before = f.bank.queries;
    for (let i = 0; i < 10; i++)
      await run(
        f,
        Array.from({ length: 10 }, () => trackPayment(f, 'E1')),
      );
    expect(f.bank.queries).toBe(before);
    expect(f.published).toHaveLength(1);
    expect(f.counts[ProcessorMetric.TRACK_PAYMENTS_SKIPPED]).toBe(100);
    expect(f.quarantined).toEqual([]);
  });

  it('asks nothing for a payment the sweep already follows (pending)', async () => {
    const f = fakeDeps();
    f.bank.payments.set('E2', pixPayment('E2', 'RECEBIDO'));
    await run(f, [sqsRecord('payments', pixPayment('E2', 'RECEBIDO'))]);
    const before = f.bank.queries;
    await run(
      f,
      Array.from({ length: 10 }, () => trackPayment(f, 'E2')),
    );
    expect(f.bank.queries).toBe(before);
    expect(
      f.logs.filter(
        (l) => l.message === 'Track Payment needs no query: the payment is already followed until it is final',
      ),
    ).toHaveLength(10);
  });

  it("collapses events for one payment while its look is in flight (deferred for the bank's rate): one query, one event published", async () => {
    const f = fakeDeps();
    f.bank.payments.set('E3', pixPayment('E3', 'AGENDADO'));
    f.bank.errors.set(
      'E3',
      new OutOfRate('pix payment query (idTransacao E3)', f.clock.now() + 30_000, 'no slot before the deadline'),
    );
    await run(f, [trackPayment(f, 'E3')]);
    expect(f.requeued).toHaveLength(1);
    f.bank.errors.delete('E3');
    const queries = f.bank.queries;
    await run(
      f,
      Array.from({ length: 20 }, () => trackPayment(f, 'E3')),
    );
    expect(f.bank.queries).toBe(queries);
    expect(f.counts[ProcessorMetric.TRACK_PAYMENTS_SKIPPED]).toBe(20);
    await runRequeued(f);
    expect(f.bank.queries).toBe(queries + 1);
    expect(f.published.map((e) => [e.detail.subject.id, e.detail.state.status])).toEqual([
      ['payment:pix:E3', 'AGENDADO'],
    ]);
    // Followed now: later events cost nothing either.
    await run(f, [trackPayment(f, 'E3')]);
    expect(f.bank.queries).toBe(queries + 1);
  });

  it('lets another look start once the one in flight expired (lost to a crash), the expiry read when the marker is written', async () => {
    const f = fakeDeps();
    f.bank.errors.set('E4', new OutOfRate('pix payment query (idTransacao E4)', f.clock.now() + 30_000, 'no slot'));
    await run(f, [trackPayment(f, 'E4')]);
    f.bank.errors.delete('E4');
    f.bank.payments.set('E4', pixPayment('E4', 'EFETIVADO'));
    // The deferred message is never seen again (say a crash); well after its hold, a new event is looked at.
    f.clock.advance((900 + LookDefaults.markerSeconds) * 1000 + 1);
    await run(f, [trackPayment(f, 'E4')]);
    expect(f.published.map((e) => e.detail.state.status)).toEqual(['EFETIVADO']);
  });
});

describe('a payment the bank does not know', () => {
  it('is asked again after 60, 120 and 240 seconds, then quarantined once with its reason; events meanwhile cost nothing', async () => {
    const f = fakeDeps();
    await run(f, [trackPayment(f, 'E5')]);
    expect(f.requeueDelays).toEqual([60]);
    expect(f.counts[ProcessorMetric.TRACK_PAYMENTS_UNKNOWN]).toBe(1);
    // 30 more events for the same payment while it is being asked about: no query, no quarantine.
    await run(
      f,
      Array.from({ length: 30 }, () => trackPayment(f, 'E5')),
    );
    await runRequeued(f);
    await runRequeued(f);
    expect(f.requeueDelays).toEqual([60, 120, 240]);
    await runRequeued(f);
    expect(f.bank.queries).toBe(4);
    expect(f.quarantined).toHaveLength(1);
    expect(f.quarantined[0].reason).toMatch(
      /^a Track Payment event from acme\.payments: the bank did not know payment payment:pix:E5 for 420 seconds after it was asked to follow it \(answers 404\); check the idTransacao and paymentKind the event names$/,
    );
    // Another event soon after is dropped, not quarantined again.
    await run(f, [trackPayment(f, 'E5')]);
    expect(f.quarantined).toHaveLength(1);
    expect(f.bank.queries).toBe(4);
    expect(f.published).toEqual([]);
  });

  it('is followed when the bank comes to know it within the window (a payment started a moment ago)', async () => {
    const f = fakeDeps();
    await run(f, [trackPayment(f, 'E6')]);
    f.bank.payments.set('E6', pixPayment('E6', 'EM_PROCESSAMENTO'));
    await runRequeued(f);
    expect(f.quarantined).toEqual([]);
    expect(f.published.map((e) => [e.detail.subject.id, e.detail.state.status, e.detail.trigger])).toEqual([
      ['payment:pix:E6', 'EM_PROCESSAMENTO', 'reconciliation'],
    ]);
    expect((await f.store.read('payment:pix:E6')).pendingSince).toBeDefined();
  });
});

describe("the sweep's looks", () => {
  const pendingLook = (idTransacao: string, lookId: string, requestedAt: string) =>
    rawRecord(
      encodeLookRequest({
        trigger: EventTrigger.RECONCILIATION,
        subject: { kind: 'payment', paymentKind: 'pix', idTransacao },
        requestedAt,
        reason: 'the payment was last seen not final',
        lookId,
      }),
    );

  it('free their marker when done, keep it through a deferral, and report their age from the first request', async () => {
    const f = fakeDeps();
    f.bank.payments.set('E7', pixPayment('E7', 'RECEBIDO'));
    const asked = new Date(f.clock.now()).toISOString();
    await f.markers.claim('payment:pix:E7', 'sweep-1', f.clock.now() + 60_000, f.clock.now());
    f.bank.errors.set('E7', new OutOfRate('pix payment query (idTransacao E7)', f.clock.now() + 20_000, 'no slot'));
    await run(f, [pendingLook('E7', 'sweep-1', asked)]);
    expect(decodeLookRequest(f.requeued[0])).toMatchObject({ lookId: 'sweep-1', requestedAt: asked });
    expect(f.markers.markers.get('payment:pix:E7')).toMatchObject({ owner: 'sweep-1' });
    expect(f.markers.markers.get('payment:pix:E7')!.until).toBeGreaterThanOrEqual(
      f.clock.now() + (20 + LookDefaults.markerSeconds) * 1000,
    );
    f.bank.errors.delete('E7');
    await runRequeued(f);
    expect(f.markers.markers.has('payment:pix:E7')).toBe(false);
    expect(f.published.map((e) => e.detail.state.status)).toEqual(['RECEBIDO']);
    // Its age counts from the sweep's request, not from the message sent back.
    expect(f.values[ProcessorMetric.LOOK_AGE]).toEqual([expect.any(Number), f.clock.now() - Date.parse(asked)]);
    expect(f.values[ProcessorMetric.LOOK_AGE][1]).toBeGreaterThanOrEqual(20_000);
  });
});

describe("the looks' share of the query budget", () => {
  const look = (nossoNumero: string) =>
    rawRecord(
      encodeLookRequest({
        trigger: EventTrigger.RECONCILIATION,
        subject: { kind: 'boleto', nossoNumero },
        requestedAt: '2025-06-03T18:00:00.000Z',
        reason: 'listed as settled',
      }),
    );

  it("admits looks at their share's rate: the rest wait out of the queue for the slot they booked, and the notification behind them is verified at once", async () => {
    const f = fakeDeps();
    // A share of one query every 4 seconds.
    f.deps = { ...f.deps, looks: { schedule: new MemorySlotSchedule(), ratePerSecond: 0.25 } };
    for (const n of ['3001', '3002', '3003', '3004', '3005', '3006']) f.bank.settle(n);
    await run(f, [
      look('3001'),
      look('3002'),
      look('3003'),
      look('3004'),
      look('3005'),
      sqsRecord('boleto', boletoEvent('3006')),
    ]);
    // One look queried now (its slot starts now), the notification too; four booked 4 to 16 seconds on.
    expect(f.published.map((e) => [e.detail.subject.nossoNumero, e.detail.trigger])).toEqual(
      expect.arrayContaining([['000003006', 'webhook']]),
    );
    expect(f.bank.queries).toBe(2);
    expect(f.counts[ProcessorMetric.LOOKS_WAITING_FOR_SHARE]).toBe(4);
    // Besides them, the admitted look's recovery check (its grace period).
    const waiting = f.requeued
      .map((body, i) => ({ body, delay: f.requeueDelays[i], request: decodeLookRequest(body)! }))
      .filter((r) => !r.request.recoveryCheck);
    expect(waiting.map((r) => r.delay).sort((a, b) => a - b)).toEqual([4, 8, 12, 16]);
    expect(waiting.every((r) => typeof r.request.admittedAt === 'number')).toBe(true);
    // Back at their slots, they query without booking again.
    f.clock.advance(16_000);
    await run(
      f,
      waiting.map((r) => requeuedRecord(r.body)),
    );
    expect(f.bank.queries).toBe(6);
    expect(f.counts[ProcessorMetric.LOOKS_WAITING_FOR_SHARE]).toBe(4);
    expect(f.published.filter((e) => e.detail.trigger === 'reconciliation')).toHaveLength(5);
  });
});

describe("Track Payment events waiting for the looks' share", () => {
  it('write their marker once each (not again when sent back), and hold it past their return; each still queries once', async () => {
    const f = fakeDeps();
    f.deps = { ...f.deps, looks: { schedule: new MemorySlotSchedule(), ratePerSecond: 0.25 } };
    const ids = ['F1', 'F2', 'F3', 'F4'];
    for (const id of ids) f.bank.payments.set(id, pixPayment(id, 'EFETIVADO'));
    const claims: string[] = [];
    const claim = f.markers.claim.bind(f.markers);
    f.markers.claim = (subjectId, owner, until, now) => {
      claims.push(subjectId);
      return claim(subjectId, owner, until, now);
    };
    await run(
      f,
      ids.map((id) => trackPayment(f, id)),
    );
    // One admitted at once, three sent back for their share's slot: one marker write each.
    expect(f.counts[ProcessorMetric.LOOKS_WAITING_FOR_SHARE]).toBe(3);
    expect(claims.sort()).toEqual(ids.map((id) => `payment:pix:${id}`));
    const waiting = f.requeued.map((body, i) => ({ body, back: f.clock.now() + f.requeueDelays[i] * 1000 }));
    for (const { body, back } of waiting) {
      const { idTransacao } = decodeLookRequest(body)!.subject as { idTransacao: string };
      expect(f.markers.markers.get(`payment:pix:${idTransacao}`)!.until - back).toBeGreaterThanOrEqual(
        (LookDefaults.markerSeconds * 1000) / 2,
      );
    }
    // A second event for a waiting payment collapses into its look.
    await run(f, [trackPayment(f, 'F4')]);
    expect(f.counts[ProcessorMetric.TRACK_PAYMENTS_SKIPPED]).toBe(1);
    f.clock.advance(Math.max(...f.requeueDelays) * 1000);
    claims.length = 0;
    await run(
      f,
      waiting.map((w) => requeuedRecord(w.body)),
    );
    expect(f.bank.queries).toBe(4);
    expect(f.published.map((e) => e.detail.subject.id).sort()).toEqual(ids.map((id) => `payment:pix:${id}`));
    // Done: every marker freed.
    expect([...f.markers.markers.keys()]).toEqual([]);
  });
});

describe('a look request that claims its admission', () => {
  const claiming = (nossoNumero: string, admittedAt: number) =>
    encodeLookRequest({
      trigger: EventTrigger.RECONCILIATION,
      subject: { kind: 'boleto', nossoNumero },
      requestedAt: '2025-06-03T18:00:00.000Z',
      reason: 'listed as settled',
      admittedAt,
    });

  it("is believed only from the processor itself: from any other sender of the look queue, each books the looks' share like any look", async () => {
    const f = fakeDeps();
    f.deps = { ...f.deps, looks: { schedule: new MemorySlotSchedule(), ratePerSecond: 0.25 } };
    for (const n of ['3001', '3002', '3003', '3004']) f.bank.settle(n);
    // Four look requests that say they were admitted, sent by another principal (an operator's hand, a sweep's bug).
    await run(
      f,
      ['3001', '3002', '3003', '3004'].map((n) =>
        rawRecord(claiming(n, f.clock.now()), { senderId: 'AROAOPERATOR00EXAMPLE:alice' }),
      ),
    );
    expect(f.bank.queries).toBe(1);
    expect(f.counts[ProcessorMetric.LOOKS_WAITING_FOR_SHARE]).toBe(3);
    expect(
      f.logs.some((l) => l.level === 'WARN' && /claims an admission but the processor did not send it/.test(l.message)),
    ).toBe(true);
    // The same from the processor's own deferral: each queries at once.
    const g = fakeDeps();
    g.deps = { ...g.deps, looks: { schedule: new MemorySlotSchedule(), ratePerSecond: 0.25 } };
    for (const n of ['3001', '3002', '3003', '3004']) g.bank.settle(n);
    await run(
      g,
      ['3001', '3002', '3003', '3004'].map((n) => requeuedRecord(claiming(n, g.clock.now()))),
    );
    expect(g.bank.queries).toBe(4);
    expect(g.counts[ProcessorMetric.LOOKS_WAITING_FOR_SHARE]).toBeUndefined();
  });
});

describe('the look queue: looks wait apart from notifications', () => {
  const look = (nossoNumero: string, extra: Record<string, unknown> = {}) =>
    rawRecord(
      encodeLookRequest({
        trigger: EventTrigger.RECONCILIATION,
        subject: { kind: 'boleto', nossoNumero },
        requestedAt: '2025-06-03T18:00:00.000Z',
        reason: 'listed as settled',
        ...extra,
      }),
    );
  /** A record as the look queue's event source mapping delivers it (SETTINGS.lookQueueUrl ends in "looks"). */
  const fromLookQueue = (record: ReturnType<typeof sqsRecord>) => ({
    ...record,
    eventSourceARN: 'arn:aws:sqs:sa-east-1:111111111111:looks',
  });

  it("sends deferred looks and recovery checks back to the look queue, a notification's leftovers to the notification queue, and quarantines looks in the look DLQ", async () => {
    const f = fakeDeps();
    f.deps = { ...f.deps, looks: { schedule: new MemorySlotSchedule(), ratePerSecond: 0.25 } };
    for (const n of ['3001', '3002']) f.bank.settle(n);
    await run(f, [look('3001'), look('3002')]);
    // One admitted (its recovery check follows), one waiting for its share's slot: both on the look queue.
    expect(f.requeuedTo).toEqual([ProcessorQueue.LOOKS, ProcessorQueue.LOOKS]);
    // A Track Payment for a payment the bank never knew: asked again on the look queue, then quarantined in the look DLQ.
    const u = fakeDeps();
    await run(u, [trackPayment(u, 'E9')]);
    for (let i = 0; i < 3; i++) await runRequeued(u);
    expect(u.requeuedTo).toEqual([ProcessorQueue.LOOKS, ProcessorQueue.LOOKS, ProcessorQueue.LOOKS]);
    expect(u.quarantined).toHaveLength(1);
    expect(u.quarantinedTo).toEqual([ProcessorQueue.LOOKS]);
    // A notification naming more boletos than the invocation has time for: the rest goes back to the notification queue.
    const g = fakeDeps();
    const numbers = Array.from({ length: 60 }, (_, i) => String(4000 + i));
    for (const n of numbers) g.bank.settle(n);
    await processBatch(
      {
        Records: [
          sqsRecord(
            'boleto',
            numbers.map((n) => boletoEvent(n)),
          ),
        ],
      },
      contextWith(g.clock, 3_500),
      g.deps,
    );
    expect(g.requeuedTo).toEqual([ProcessorQueue.NOTIFICATIONS]);
  });

  it('quarantines what is not a look request on the look queue, with its reason and without asking the bank; a look left in the notification queue is still served', async () => {
    const f = fakeDeps();
    f.bank.settle('1001');
    f.bank.settle('1002');
    const stray = fromLookQueue(sqsRecord('boleto', [boletoEvent('1001')]));
    await run(f, [stray, look('1002')]);
    expect(f.quarantined).toEqual([
      {
        messageId: stray.messageId,
        reason:
          'not a look request: the look queue takes look requests and Track Payment events only (notifications go to the notification queue)',
      },
    ]);
    expect(f.quarantinedTo).toEqual([ProcessorQueue.LOOKS]);
    expect(f.bank.queries).toBe(1);
    expect(f.published.map((e) => [e.detail.subject.nossoNumero, e.detail.trigger])).toEqual([
      ['000001002', 'reconciliation'],
    ]);
  });

  it("queries for looks through the look bank (the query rate's idle time), and sends back one that found none, admitted, to query without booking its share again", async () => {
    const f = fakeDeps();
    const lookBank = new FakeBank(f.clock);
    f.deps = { ...f.deps, lookBank, looks: { schedule: new MemorySlotSchedule(), ratePerSecond: 1 } };
    lookBank.settle('3001');
    lookBank.errors.set(
      '3001',
      new OutOfRate(
        'boleto query',
        f.clock.now() + 300,
        "bank queries for looks: the bank's rate has no idle time now",
      ),
    );
    await run(f, [look('3001')]);
    expect(f.bank.queries).toBe(0);
    expect(lookBank.queries).toBe(1);
    expect(f.requeueDelays).toEqual([1]);
    const back = decodeLookRequest(f.requeued[0])!;
    expect(back.admittedAt).toBe(f.clock.now());
    lookBank.errors.delete('3001');
    await runRequeued(f);
    expect(f.counts[ProcessorMetric.LOOKS_WAITING_FOR_SHARE]).toBeUndefined();
    expect(f.published.map((e) => e.detail.trigger)).toEqual(['reconciliation']);
    expect(f.bank.queries).toBe(0);
  });
});
