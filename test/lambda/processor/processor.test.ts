/**
 * The processor's core with fake dependencies: a notification is a reason to look, and what is
 * published is the bank's verified state, once per change, whatever triggered the look.
 */
import { processBatch } from '../../../lambda/processor/batch';
import { BankEventDetailType as T, EventTrigger, StatusClass as C } from '../../../contracts/events';
import { decodeStoredNotification, encodeStoredNotification } from '../../../lambda/store/stored-notification';
import { ProcessorDefaults, ProcessorMetric } from '../../../contracts/processor';
import { BankApiError } from '../../../lambda/bank/errors';
import { OutOfRate } from '../../../lambda/bank/pacing';
import {
  boletoEvent,
  contextWith,
  fakeDeps,
  pixPayment,
  rawRecord,
  requeuedRecord,
  SETTINGS,
  sqsRecord,
} from '../../support/processor-records';
import { decodeLookRequest, encodeLookRequest } from '../../../lambda/store/look-request';
import { TRACK_PAYMENT_DETAIL_TYPE } from '../../../contracts/reconciliation';

type Fakes = ReturnType<typeof fakeDeps>;
const run = (f: Fakes, records: ReturnType<typeof sqsRecord>[], ms = 30_000) =>
  processBatch({ Records: records }, contextWith(f.clock, ms), f.deps);

describe('identity from the bank', () => {
  it('publishes one Boleto Settled for a settlement, however many new notification ids announce it', async () => {
    const f = fakeDeps();
    f.bank.settle('1001');
    const result = await run(
      f,
      Array.from({ length: 5 }, () => sqsRecord('boleto', boletoEvent('1001'))),
    );
    await run(f, [
      sqsRecord(
        'boleto',
        Array.from({ length: 20 }, () => boletoEvent('1001')),
      ),
    ]);

    expect(result.batchItemFailures).toEqual([]);
    expect(f.published.map((e) => e.detailType)).toEqual([T.BOLETO_SETTLED]);
    expect(f.published[0].detail).toMatchObject({
      version: '3',
      trigger: 'webhook',
      idempotencyKey: 'boleto:54321:000001001#1:settled:2025-06-03:15025',
      account: { cooperativa: '0101', posto: '02', codigoBeneficiario: '54321' },
      subject: { kind: 'boleto', id: 'boleto:54321:000001001', sequence: 1, nossoNumero: '000001001' },
      state: { statusClass: C.SETTLED },
      settlement: {
        id: '2025-06-03:15025',
        date: '2025-06-03T14:05:09.000-03:00',
        amount: { cents: 15025, decimal: '150.25' },
      },
      matchesNotification: true,
    });
  });

  it('skips a re-delivery of the very same notification without asking the bank again', async () => {
    const f = fakeDeps();
    f.bank.settle('1001');
    const event = boletoEvent('1001');
    await run(f, [sqsRecord('boleto', event)]);
    await run(f, [sqsRecord('boleto', event), sqsRecord('boleto', [event, event])]);
    expect(f.bank.queries).toBe(1);
    expect(f.counts[ProcessorMetric.DUPLICATES]).toBe(3);
    expect(f.published).toHaveLength(1);
  });

  it('verifies the same notification id with another body on its own, with a warning', async () => {
    const f = fakeDeps();
    f.bank.settle('1001');
    const event = boletoEvent('1001');
    await run(f, [sqsRecord('boleto', event)]);
    await run(f, [sqsRecord('boleto', { ...event, valorLiquidacao: '9999.00' })]);
    expect(f.bank.queries).toBe(2);
    expect(f.logs.filter((l) => l.level === 'WARN').map((l) => l.message)).toContain(
      'The bank sent a notification id again with another body; it is verified on its own',
    );
    expect(f.published.map((e) => e.detailType)).toEqual([T.BOLETO_SETTLED]);
  });

  it('gives settle → reverse → settle again (same day, same amount) three events in sequence', async () => {
    const f = fakeDeps();
    f.bank.settle('1001');
    await run(f, [sqsRecord('boleto', boletoEvent('1001'))]);
    f.bank.open('1001');
    await run(f, [sqsRecord('boleto', boletoEvent('1001', 'ESTORNO_LIQUIDACAO_REDE'))]);
    f.bank.settle('1001');
    await run(f, [sqsRecord('boleto', boletoEvent('1001'))]);

    expect(f.published.map((e) => [e.detailType, e.detail.subject.sequence])).toEqual([
      [T.BOLETO_SETTLED, 1],
      [T.BOLETO_SETTLEMENT_REVERSED, 2],
      [T.BOLETO_SETTLED, 3],
    ]);
    expect(f.published[1].detail.reverses).toEqual(f.published[0].detail.settlement);
    expect(new Set(f.published.map((e) => e.detail.idempotencyKey)).size).toBe(3);
  });

  it("publishes the bank's state at once when it is ahead of the notification: the lost EFETIVADO is published as settled", async () => {
    const f = fakeDeps();
    // The EFETIVADO notification was never delivered; the late look at RECEBIDO finds the payment paid.
    f.bank.payments.set('tx-1', pixPayment('tx-1', 'EFETIVADO'));
    const result = await run(f, [sqsRecord('payments', pixPayment('tx-1', 'RECEBIDO'))]);

    expect(result.batchItemFailures).toEqual([]);
    expect(f.published.map((e) => [e.detailType, e.detail.state.status, e.detail.state.statusClass])).toEqual([
      [T.PAYMENT_STATUS_VERIFIED, 'EFETIVADO', C.SETTLED],
    ]);
    expect(f.published[0].detail).toMatchObject({
      matchesNotification: false,
      account: { cooperativa: '0101', posto: '02', conta: '123456' },
      subject: { kind: 'payment', id: 'payment:pix:tx-1', paymentKind: 'pix', idTransacao: 'tx-1', sequence: 1 },
      notification: { id: 'RECEBIDO', claim: { status: 'RECEBIDO', statusClass: C.PENDING } },
    });
    // The late RECEBIDO then adds nothing, and no Not Confirmed: the payment moved on from it.
    await run(f, [sqsRecord('payments', pixPayment('tx-1', 'RECEBIDO'), { receiveCount: 3 })]);
    expect(f.published).toHaveLength(1);
  });

  it('retries a claim the bank does not show yet, and after the last attempt records Notification Not Confirmed, never a settlement', async () => {
    const f = fakeDeps();
    f.bank.open('1001');
    const event = boletoEvent('1001');
    const first = await run(f, [sqsRecord('boleto', event, { receiveCount: 1 })]);
    expect(first.batchItemFailures).toHaveLength(1);
    expect(f.published).toEqual([]);
    const last = await run(f, [sqsRecord('boleto', event, { receiveCount: 3 })]);
    expect(last.batchItemFailures).toEqual([]);
    expect(f.published.map((e) => e.detailType)).toEqual([T.NOTIFICATION_NOT_CONFIRMED]);
    expect(f.published[0].detail).toMatchObject({
      matchesNotification: false,
      state: { statusClass: C.OPEN },
      subject: { sequence: 0 },
      mismatches: ['LIQUIDACAO_PIX needs a settled boleto, the bank says situacao "EM CARTEIRA" (open)'],
      notification: { id: event.idEventoWebhook, claim: { statusClass: C.SETTLED, amount: { cents: 15025 } } },
    });
    // Once: the same notification again publishes nothing more.
    await run(f, [sqsRecord('boleto', event, { receiveCount: 3 })]);
    expect(f.published).toHaveLength(1);
  });
});

describe('a settlement again of the same amount, the same day', () => {
  it("is taken, while the query still shows the reversal, for the reversed settlement's notification: the sweep publishes it (docs/events.md, limits)", async () => {
    const f = fakeDeps();
    f.bank.settle('1001');
    await run(f, [sqsRecord('boleto', boletoEvent('1001'))]);
    f.bank.open('1001');
    await run(f, [sqsRecord('boleto', boletoEvent('1001', 'ESTORNO_LIQUIDACAO_REDE'))]);
    // Settled again for the same amount, the same day; the query still shows it open (lag).
    const again = await run(f, [sqsRecord('boleto', boletoEvent('1001'), { receiveCount: 1 })]);
    expect(again.batchItemFailures).toEqual([]);
    expect(f.published.map((e) => e.detailType)).toEqual([T.BOLETO_SETTLED, T.BOLETO_SETTLEMENT_REVERSED]);
  });
});

describe('the verification window', () => {
  it('does not take a receive that comes before the window as the last verification (SQS handed the message out twice)', async () => {
    const f = fakeDeps();
    f.bank.open('1001');
    const event = boletoEvent('1001');
    // 50 s after the notification arrived (sqsRecord's receivedAt), already its third receive: the query may still lag.
    f.clock.time = Date.parse('2025-06-03T17:06:00.000Z');
    const early = await run(f, [sqsRecord('boleto', event, { receiveCount: 3 })]);
    expect(early.batchItemFailures).toHaveLength(1);
    expect(f.published).toEqual([]);
    // The bank shows the settlement once the window has passed: verified, never Not Confirmed.
    f.clock.time += SETTINGS.verificationWindowSeconds! * 1000;
    f.bank.settle('1001');
    const late = await run(f, [sqsRecord('boleto', event, { receiveCount: 4 })]);
    expect(late.batchItemFailures).toEqual([]);
    expect(f.published.map((e) => e.detailType)).toEqual([T.BOLETO_SETTLED]);
  });

  it('is as long as the receives before the last verification take: (maxVerificationAttempts - 1) visibility timeouts', () => {
    expect(SETTINGS.maxVerificationAttempts).toBe(3);
    // The default visibility timeout: 6 × the processor's default timeout (30 s).
    expect(SETTINGS.verificationWindowSeconds).toBe(2 * 180);
  });
});

describe('the answer must be ours', () => {
  it('quarantines a notification naming another beneficiary at once, without asking the bank', async () => {
    const f = fakeDeps();
    f.bank.settle('2002', '10.00', undefined, '99999');
    const record = sqsRecord('boleto', boletoEvent('2002', 'LIQUIDACAO_PIX', '10.00', { beneficiario: '99999' }));
    await run(f, [record]);
    expect(f.bank.queries).toBe(0);
    expect(f.published).toEqual([]);
    expect(f.quarantined).toEqual([
      {
        messageId: record.messageId,
        reason: expect.stringContaining("names beneficiary 99999, not this receiver's 54321"),
      },
    ]);
  });

  it('queries only our beneficiary, and never publishes an answer about another', async () => {
    const f = fakeDeps();
    f.bank.settle('2002', '10.00', undefined, '99999');
    const { beneficiario: _none, ...unnamed } = boletoEvent('2002', 'LIQUIDACAO_PIX', '10.00');
    await run(f, [sqsRecord('boleto', unnamed)]);
    expect(f.bank.queriedBeneficiaries).toEqual(['54321']);
    expect(f.published).toEqual([]);
    expect(f.quarantined[0].reason).toContain("belongs to beneficiary 99999, not this receiver's 54321");
  });

  it('treats a 403 or 404 from a payment query as final after its attempts', async () => {
    const f = fakeDeps();
    f.bank.errors.set('tx-9', new BankApiError('pix payment query (idTransacao tx-9)', 403, 'Acesso negado.', false));
    expect(
      (await run(f, [sqsRecord('payments', pixPayment('tx-9', 'EFETIVADO'), { receiveCount: 2 })])).batchItemFailures,
    ).toHaveLength(1);
    expect(f.quarantined).toEqual([]);
    await run(f, [sqsRecord('payments', pixPayment('tx-9', 'EFETIVADO'), { receiveCount: 3 })]);
    expect(f.quarantined[0].reason).toMatch(/refuses it after every verification attempt: .*403/);
  });
});

describe('final is final', () => {
  it('quarantines a message on its last receive with the last error as the reason', async () => {
    const f = fakeDeps({ settings: { ...fakeDeps().deps.settings, maxVerificationAttempts: 2, maxReceiveCount: 4 } });
    f.bank.errors.set(
      '1001',
      new BankApiError('boleto query (nossoNumero 1001)', 503, 'Serviço indisponível.', true, 3),
    );
    const record = sqsRecord('boleto', boletoEvent('1001'), { receiveCount: 4 });
    const result = await run(f, [record]);
    expect(result.batchItemFailures).toEqual([]);
    expect(f.quarantined).toEqual([
      { messageId: record.messageId, reason: expect.stringMatching(/^failed on its last receive \(4 of 4\): .*503/) },
    ]);
  });

  it('quarantines a body nested too deep to serialize, with the reason', async () => {
    const f = fakeDeps();
    const deep = '['.repeat(10_000) + ']'.repeat(10_000);
    await run(f, [sqsRecord('boleto', deep)]);
    expect(f.quarantined[0].reason).toMatch(/nests objects or arrays deeper than 32 levels/);
  });
});

describe('large bodies', () => {
  it('reads {"eventos": [...]} like an array', async () => {
    const f = fakeDeps();
    f.bank.settle('1001');
    f.bank.settle('1002');
    await run(f, [sqsRecord('boleto', { eventos: [boletoEvent('1001'), boletoEvent('1002')] })]);
    expect(f.published.map((e) => e.detail.subject.nossoNumero).sort()).toEqual(['000001001', '000001002']);
  });

  it('asks once per distinct boleto, and sends what the deadline leaves as a new message that publishes the rest once', async () => {
    const f = fakeDeps();
    const numbers = Array.from({ length: 60 }, (_, i) => String(3000 + i).padStart(9, '0'));
    for (const n of numbers) f.bank.settle(n);
    const events = Array.from({ length: 600 }, (_, i) => boletoEvent(numbers[i % 60]));
    // 100 ms per query and 3.5 s for the invocation: about 25 boletos fit.
    const result = await run(f, [sqsRecord('boleto', events, { receiveCount: 1 })], 3_500);
    expect(result.batchItemFailures).toEqual([]);
    expect(f.requeued).toHaveLength(1);
    const firstRound = f.published.length;
    expect(firstRound).toBeGreaterThan(10);
    expect(f.bank.queries).toBe(firstRound);

    // The new message carries only the events not looked at, and counts from its first receive.
    const { notification, body } = decodeStoredNotification(f.requeued[0]);
    expect(JSON.parse(body.toString()).length).toBe((60 - firstRound) * 10);
    expect(notification.route).toBe('boleto');
    while (f.requeued.length) {
      const next = f.requeued.shift()!;
      await run(f, [{ ...sqsRecord('boleto', {}), body: next }], 3_500);
    }
    expect(f.published.map((e) => e.detail.subject.nossoNumero).sort()).toEqual(numbers.sort());
    expect(f.bank.queries).toBe(60);
    expect(f.quarantined).toEqual([]);
  });
});

describe('concurrency and crashes', () => {
  it('publishes an outbox a crashed invocation left, once its lease ran out, with the same key', async () => {
    const f = fakeDeps();
    f.bank.settle('1001');
    const event = boletoEvent('1001');
    // The first invocation writes the state and its event, then dies before publishing.
    const crashing = fakeDeps();
    Object.assign(crashing.deps, {
      store: f.store,
      bank: f.bank,
      now: f.clock.now,
      publish: async () => {
        throw new Error('the process died');
      },
    });
    await processBatch({ Records: [sqsRecord('boleto', event)] }, contextWith(f.clock, 5_000), {
      ...crashing.deps,
      store: {
        ...f.store,
        read: f.store.read.bind(f.store),
        write: f.store.write.bind(f.store),
        clearOutbox: f.store.clearOutbox.bind(f.store),
        takeOutbox: async () => false,
      },
    });
    expect([...f.store.records.values()][0].outbox).toBeDefined();
    f.clock.advance(10_000);
    await run(f, [sqsRecord('boleto', event)]);
    expect(f.published).toHaveLength(1);
    expect(f.published[0].detail.idempotencyKey).toBe('boleto:54321:000001001#1:settled:2025-06-03:15025');
    expect([...f.store.records.values()][0].outbox).toBeUndefined();
  });

  it("keeps a detail that would pass EventBridge's limit: everything but the raw bodies, whose size and hash stay", async () => {
    const f = fakeDeps();
    f.bank.settle('1001');
    f.bank.boletos.get('1001')!.observacao = 'x'.repeat(300_000);
    await run(f, [sqsRecord('boleto', boletoEvent('1001'))]);
    const [event] = f.published;
    expect(event.detailType).toBe(T.BOLETO_SETTLED);
    expect(event.detail.bankAnswer).toBeUndefined();
    expect(event.detail.bankAnswerOmitted).toEqual({
      bytes: expect.any(Number),
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(event.detail.bankAnswerOmitted.bytes).toBeGreaterThan(300_000);
    expect(event.detail.settlement.amount.cents).toBe(15025);
  });
});

describe('an outbox of several large events', () => {
  it("keeps every event, without their raw bodies, when together they would not fit in the subject's item", async () => {
    const f = fakeDeps();
    f.bank.settle('1001');
    await run(f, [sqsRecord('boleto', boletoEvent('1001'))]);
    // Settled again with another settlement, and a 200 KB answer: a reversal and a settlement to publish.
    f.bank.settle('1001', '150.25', [2025, 6, 4, 9, 0, 0, 0]);
    f.bank.boletos.get('1001')!.observacao = 'x'.repeat(200_000);
    let largest = 0;
    const write = f.store.write.bind(f.store);
    f.store.write = async (id, version, next) => {
      largest = Math.max(largest, JSON.stringify(next.outbox ?? {}).length);
      return write(id, version, next);
    };
    await run(f, [sqsRecord('boleto', boletoEvent('1001'))]);
    expect(f.published.map((e) => e.detailType)).toEqual([
      T.BOLETO_SETTLED,
      T.BOLETO_SETTLEMENT_REVERSED,
      T.BOLETO_SETTLED,
    ]);
    expect(f.published.slice(1).map((e) => [e.detail.bankAnswer, e.detail.bankAnswerOmitted?.bytes > 200_000])).toEqual(
      [
        [undefined, true],
        [undefined, true],
      ],
    );
    expect(largest).toBeLessThan(300_000);
  });
});

describe('lack of rate', () => {
  const outOfRate = (nossoNumero: string, retryAt: number) =>
    new OutOfRate(
      `boleto query (nossoNumero ${nossoNumero})`,
      retryAt,
      "bank queries: no slot of the 10/s rate before this invocation's deadline",
    );

  it("sends a subject with no slot of the bank's rate back as a new message, delayed until the rate frees up: the record does not fail", async () => {
    const f = fakeDeps();
    f.bank.settle('1001');
    f.bank.errors.set('1001', outOfRate('1001', f.clock.now() + 12_300));
    const record = sqsRecord('boleto', [boletoEvent('1001')]);
    const result = await run(f, [record]);

    // Not a failure: no step towards maxReceiveCount and the dead-letter queue.
    expect(result.batchItemFailures).toEqual([]);
    expect(f.published).toEqual([]);
    expect(f.quarantined).toEqual([]);
    expect(f.requeueDelays).toEqual([13]);
    expect(
      JSON.parse(decodeStoredNotification(f.requeued[0]).body.toString()).map(
        (e: { nossoNumero: string }) => e.nossoNumero,
      ),
    ).toEqual(['1001']);
    expect(f.counts[ProcessorMetric.DEFERRED_FOR_RATE]).toBe(1);

    // The new message, once the rate has room, publishes the settlement.
    f.bank.errors.delete('1001');
    f.clock.advance(13_000);
    await run(f, [{ ...sqsRecord('boleto', [boletoEvent('1001')]), body: f.requeued[0] }]);
    expect(f.published.map((e) => e.detailType)).toEqual([T.BOLETO_SETTLED]);
  });

  it("defers for rate even on the message's last receive, and caps the delay at SQS's 15 minutes", async () => {
    const f = fakeDeps();
    f.bank.errors.set('1001', outOfRate('1001', f.clock.now() + 3_600_000));
    const record = sqsRecord('boleto', [boletoEvent('1001')], { receiveCount: f.deps.settings.maxReceiveCount });
    const result = await run(f, [record]);
    expect(result.batchItemFailures).toEqual([]);
    expect(f.quarantined).toEqual([]);
    expect(f.requeueDelays).toEqual([900]);
  });

  it('stops deferring a message received longer ago than the queues keep one: it fails and reaches quarantine like any other', async () => {
    const f = fakeDeps();
    f.bank.errors.set('1001', outOfRate('1001', f.clock.now() + 1_000));
    const record = sqsRecord('boleto', [boletoEvent('1001')]);
    const stored = decodeStoredNotification(record.body);
    const old = new Date(f.clock.now() - (ProcessorDefaults.queueRetentionSeconds + 60) * 1000).toISOString();
    record.body = encodeStoredNotification({ ...stored.notification, receivedAt: old }, stored.body);
    const result = await run(f, [record]);
    expect(result.batchItemFailures).toHaveLength(1);
    expect(f.requeued).toEqual([]);
  });
});

describe('lack of time', () => {
  it("leaves a subject the bank's wait would take past the deadline for the new message, once others were done", async () => {
    const f = fakeDeps();
    f.bank.settle('1001');
    f.bank.settle('1002');
    // The second query is answered 429 and the wait it asks for does not fit before the deadline.
    f.bank.errors.set(
      '1002',
      new BankApiError(
        'boleto query (nossoNumero 1002)',
        429,
        'Too Many Requests; the bank asked to wait 1000 ms, no time left to try again',
        true,
        1,
        true,
      ),
    );
    const result = await run(f, [sqsRecord('boleto', [boletoEvent('1001'), boletoEvent('1002')])]);
    expect(result.batchItemFailures).toEqual([]);
    expect(f.published.map((e) => e.detail.subject.nossoNumero)).toEqual(['000001001']);
    expect(
      JSON.parse(decodeStoredNotification(f.requeued[0]).body.toString()).map(
        (e: { nossoNumero: string }) => e.nossoNumero,
      ),
    ).toEqual(['1002']);
  });

  it('fails the record when no subject could be looked at in time: a bank too slow for any look must reach the DLQ, not loop', async () => {
    const f = fakeDeps();
    f.bank.errors.set(
      '1002',
      new BankApiError('boleto query (nossoNumero 1002)', 429, 'no time left to try again', true, 1, true),
    );
    const result = await run(f, [sqsRecord('boleto', [boletoEvent('1002')])]);
    expect(result.batchItemFailures).toHaveLength(1);
    expect(f.requeued).toEqual([]);
  });
});

describe('look requests (reconciliation)', () => {
  const lookAtBoleto = (nossoNumero: string) =>
    rawRecord(
      encodeLookRequest({
        trigger: EventTrigger.RECONCILIATION,
        subject: { kind: 'boleto', nossoNumero },
        requestedAt: '2025-06-03T18:00:00.000Z',
        reason: 'listed as settled',
      }),
    );

  it('publishes a settlement no notification told of, once, as a reconciliation with no notification, and counts it recovered when its grace period ends', async () => {
    const f = fakeDeps();
    f.bank.settle('2001');
    await run(f, [lookAtBoleto('2001'), lookAtBoleto('2001')]);
    await run(f, [lookAtBoleto('2001')]);
    expect(f.published.map((e) => e.detailType)).toEqual([T.BOLETO_SETTLED]);
    const detail = f.published[0].detail;
    expect(detail).toMatchObject({
      trigger: 'reconciliation',
      idempotencyKey: 'boleto:54321:000002001#1:settled:2025-06-03:15025',
      mismatches: [],
    });
    expect(detail).not.toHaveProperty('notification');
    expect(detail).not.toHaveProperty('matchesNotification');
    // Not yet: a notification may still come. The check comes back when the grace period ends.
    expect(f.counts[ProcessorMetric.RECOVERED]).toBeUndefined();
    expect(f.requeueDelays).toEqual([600]);
    expect(decodeLookRequest(f.requeued[0])).toMatchObject({ recoveryCheck: ['settled:2025-06-03:15025'] });
    const queries = f.bank.queries;
    await run(f, [requeuedRecord(f.requeued[0]), requeuedRecord(f.requeued[0])]);
    expect(f.bank.queries).toBe(queries);
    expect(f.counts[ProcessorMetric.RECOVERED]).toBe(1);
    expect(f.logs.some((l) => l.message.startsWith('Recovered by reconciliation'))).toBe(true);
  });

  it('counts nothing recovered when the notification comes within the grace period, after the look published the change', async () => {
    const f = fakeDeps();
    f.bank.settle('2011');
    await run(f, [lookAtBoleto('2011')]);
    await run(f, [sqsRecord('boleto', boletoEvent('2011'))]);
    await run(f, [requeuedRecord(f.requeued[0])]);
    expect(f.published.map((e) => e.detail.trigger)).toEqual(['reconciliation']);
    expect(f.counts[ProcessorMetric.RECOVERED]).toBeUndefined();
    expect(
      f.logs.some((l) =>
        l.message.startsWith('A notification told of the changes a look found within the grace period'),
      ),
    ).toBe(true);
  });

  it("never counts a Track Payment's look recovered, though it published before the bank's own notification", async () => {
    const f = fakeDeps();
    f.bank.payments.set('E99', pixPayment('E99', 'RECEBIDO'));
    const event = {
      version: '0',
      id: 'e99',
      'detail-type': TRACK_PAYMENT_DETAIL_TYPE,
      source: 'acme.payments',
      time: new Date(f.clock.now()).toISOString(),
      detail: { paymentKind: 'pix', idTransacao: 'E99', account: { cooperativa: '0101', conta: '123456' } },
    };
    await run(f, [rawRecord(JSON.stringify(event))]);
    expect(f.published.map((e) => [e.detail.state.status, e.detail.trigger])).toEqual([['RECEBIDO', 'reconciliation']]);
    expect(f.requeued).toEqual([]);
    await run(f, [sqsRecord('payments', pixPayment('E99', 'RECEBIDO'))]);
    expect(f.published).toHaveLength(1);
    expect(f.counts[ProcessorMetric.RECOVERED]).toBeUndefined();
  });

  it('publishes nothing for a settlement a webhook already published, and a late webhook after a recovery publishes nothing either', async () => {
    const f = fakeDeps();
    f.bank.settle('2002');
    await run(f, [sqsRecord('boleto', boletoEvent('2002'))]);
    await run(f, [lookAtBoleto('2002')]);
    expect(f.published).toHaveLength(1);
    expect(f.counts[ProcessorMetric.RECOVERED]).toBeUndefined();

    f.bank.settle('2003');
    await run(f, [lookAtBoleto('2003')]);
    await run(f, [sqsRecord('boleto', boletoEvent('2003'))]);
    expect(f.published.map((e) => [e.detail.subject.id, e.detail.trigger])).toEqual([
      ['boleto:54321:000002002', 'webhook'],
      ['boleto:54321:000002003', 'reconciliation'],
    ]);
  });

  it("keeps a pending payment in the sweep's index until it is final, and publishes the final status a lost notification never told", async () => {
    const f = fakeDeps();
    f.bank.payments.set('E77', pixPayment('E77', 'RECEBIDO'));
    await run(f, [sqsRecord('payments', pixPayment('E77', 'RECEBIDO'))]);
    const since = (await f.store.read('payment:pix:E77')).pendingSince;
    expect(since).toBe(f.clock.now());
    f.bank.payments.set('E77', pixPayment('E77', 'EFETIVADO'));
    const look = rawRecord(
      encodeLookRequest({
        trigger: EventTrigger.RECONCILIATION,
        subject: { kind: 'payment', paymentKind: 'pix', idTransacao: 'E77' },
        requestedAt: '2025-06-03T18:00:00.000Z',
        reason: 'pending',
      }),
    );
    await run(f, [look]);
    expect(f.published.map((e) => [e.detail.state.status, e.detail.trigger])).toEqual([
      ['RECEBIDO', 'webhook'],
      ['EFETIVADO', 'reconciliation'],
    ]);
    expect((await f.store.read('payment:pix:E77')).pendingSince).toBeUndefined();
  });

  it('follows a payment the company started from its Track Payment event, as EventBridge delivers it to SQS', async () => {
    const f = fakeDeps();
    f.bank.payments.set('E88', pixPayment('E88', 'AGENDADO'));
    const event = {
      version: '0',
      id: 'e1',
      'detail-type': TRACK_PAYMENT_DETAIL_TYPE,
      source: 'acme.payments',
      account: '111111111111',
      time: '2025-06-03T18:00:00Z',
      region: 'sa-east-1',
      resources: [],
      detail: { paymentKind: 'PIX', idTransacao: 'E88', account: { cooperativa: '0101', conta: '123456' } },
    };
    await run(f, [rawRecord(JSON.stringify(event))]);
    expect(f.published.map((e) => [e.detail.subject.id, e.detail.state.status, e.detail.trigger])).toEqual([
      ['payment:pix:E88', 'AGENDADO', 'reconciliation'],
    ]);
    expect((await f.store.read('payment:pix:E88')).pendingSince).toBeDefined();
  });

  it("follows a payment id of up to the bank's 100 characters from a look request and a Track Payment event", async () => {
    const f = fakeDeps();
    const long = `E:${'a1-'.repeat(32)}Z9`; // 100 characters of the bank's pattern
    expect(long).toHaveLength(100);
    f.bank.payments.set(long, pixPayment(long, 'EFETIVADO'));
    const event = {
      version: '0',
      id: 'e9',
      'detail-type': TRACK_PAYMENT_DETAIL_TYPE,
      source: 'acme',
      detail: { paymentKind: 'pix', idTransacao: long, account: { cooperativa: '0101', conta: '123456' } },
    };
    await run(f, [rawRecord(JSON.stringify(event))]);
    expect(f.quarantined).toEqual([]);
    expect(f.published.map((e) => [e.detail.subject.id, e.detail.state.status])).toEqual([
      [`payment:pix:${long}`, 'EFETIVADO'],
    ]);
  });

  it('quarantines a malformed look request or Track Payment event with a reason that says what to fix, asking the bank nothing', async () => {
    const f = fakeDeps();
    const badKind = {
      version: '0',
      id: 'e2',
      'detail-type': TRACK_PAYMENT_DETAIL_TYPE,
      source: 'acme',
      detail: { paymentKind: 'ted', idTransacao: 'X1' },
    };
    const track = (idTransacao: string) =>
      rawRecord(
        JSON.stringify({
          version: '0',
          id: 'e3',
          'detail-type': TRACK_PAYMENT_DETAIL_TYPE,
          source: 'acme',
          detail: { paymentKind: 'pix', idTransacao },
        }),
      );
    const lookAt = (idTransacao: string) =>
      rawRecord(
        encodeLookRequest({
          trigger: EventTrigger.RECONCILIATION,
          subject: { kind: 'payment', paymentKind: 'pix', idTransacao },
          requestedAt: '2025-06-03T18:00:00Z',
          reason: 'x',
        }),
      );
    await run(f, [
      rawRecord(JSON.stringify(badKind)),
      track('../x'),
      track('..'),
      lookAt('a/b'),
      lookAt('x'.repeat(101)),
      lookAt('E_1.2'),
      rawRecord('{"look":1,"trigger":"guess","subject":{}}'),
      rawRecord('{"look":1,"trigger":"reconciliation","subject":{"kind":"boleto","nossoNumero":"12345678901"}}'),
    ]);
    const idRule = (id: string) =>
      expect.stringContaining(`idTransacao "${id}"; it must match the bank's pattern [a-zA-Z0-9:-]{1,100}`);
    expect(f.quarantined.map((q) => q.reason)).toEqual([
      expect.stringContaining('paymentKind "ted"; it must be one of pix, boleto, tributos'),
      idRule('../x'),
      idRule('..'),
      idRule('a/b'),
      expect.stringContaining(`idTransacao "${'x'.repeat(101)}`),
      idRule('E_1.2'),
      expect.stringContaining('trigger "guess"'),
      expect.stringContaining('nossoNumero "12345678901"; it must be the bank\'s boleto id, up to 9 digits'),
    ]);
    expect(f.bank.queries).toBe(0);
    expect(f.published).toEqual([]);
  });

  it("sends a look request back, delayed, when the bank's rate has no slot, without failing it", async () => {
    const f = fakeDeps();
    f.bank.settle('2004');
    f.bank.errors.set(
      '2004',
      new OutOfRate('boleto query (nossoNumero 2004)', f.clock.now() + 42_000, 'no slot before the deadline'),
    );
    const result = await run(f, [lookAtBoleto('2004')]);
    expect(result.batchItemFailures).toEqual([]);
    expect(f.requeueDelays).toEqual([42]);
    expect(decodeLookRequest(f.requeued[0])).toMatchObject({
      subject: { kind: 'boleto', nossoNumero: '000002004' },
      trigger: 'reconciliation',
    });
  });
});
