/**
 * The trail each subject's record keeps: what the processor did about one boleto or payment, in
 * the same write as the change, bounded, with nothing secret or personal beyond what events carry.
 */
import { processBatch } from '../../../lambda/processor/batch';
import { BankEventDetailType as T, EventTrigger } from '../../../contracts/events';
import { TrailDefaults, TrailEntryKind } from '../../../contracts/record';
import { encodeLookRequest } from '../../../lambda/store/look-request';
import { boletoEvent, contextWith, fakeDeps, nine, rawRecord, sqsRecord } from '../../support/processor-records';

type Fakes = ReturnType<typeof fakeDeps>;
const run = (f: Fakes, records: ReturnType<typeof sqsRecord>[]) =>
  processBatch({ Records: records }, contextWith(f.clock), f.deps);
const subject = (id: string) => `boleto:54321:${nine(id)}`;
const trailOf = async (f: Fakes, id: string) => (await f.store.read(subject(id))).trail ?? [];
const look = (id: string, extra: Record<string, unknown> = {}) =>
  rawRecord(
    encodeLookRequest({
      trigger: EventTrigger.RECONCILIATION,
      subject: { kind: 'boleto', nossoNumero: nine(id) },
      requestedAt: new Date(Date.UTC(2025, 5, 3, 18)).toISOString(),
      reason: 'settled on 2025-06-03 per the bank listing',
      ...extra,
    }),
  );

describe("a subject's trail", () => {
  it('tells the notification (request id, whether it matched), the look and its trigger, and the change published, in one write', async () => {
    const f = fakeDeps();
    f.bank.settle('1001');
    const event = boletoEvent('1001');
    await run(f, [sqsRecord('boleto', event, { requestId: 'req-1' })]);

    const trail = await trailOf(f, '1001');
    expect(trail).toEqual([
      {
        kind: TrailEntryKind.NOTIFICATION,
        at: '2025-06-03T17:05:10.000Z',
        requestId: 'req-1',
        id: event.idEventoWebhook,
        claim: 'LIQUIDACAO_PIX',
        matched: true,
      },
      { kind: TrailEntryKind.LOOK, at: expect.any(String), trigger: EventTrigger.WEBHOOK, status: 'LIQUIDADO' },
      {
        kind: TrailEntryKind.PUBLISHED,
        at: expect.any(String),
        detailType: T.BOLETO_SETTLED,
        sequence: 1,
        idempotencyKey: f.published[0].detail.idempotencyKey,
      },
    ]);
    // The record was written once: the trail cost no request of its own.
    expect((await f.store.read(subject('1001'))).version).toBe(2); // the write, then the outbox cleared
  });

  it('adds nothing for a re-delivery it skips (nothing is written for it)', async () => {
    const f = fakeDeps();
    f.bank.settle('1001');
    const event = boletoEvent('1001');
    await run(f, [sqsRecord('boleto', event)]);
    const before = await f.store.read(subject('1001'));
    await run(f, [sqsRecord('boleto', event), sqsRecord('boleto', event)]);
    expect(await f.store.read(subject('1001'))).toEqual(before);
  });

  it('tells a notification the bank never bore out as not matched, beside the Notification Not Confirmed published', async () => {
    const f = fakeDeps();
    f.bank.open('1001');
    await run(f, [sqsRecord('boleto', boletoEvent('1001'), { receiveCount: 3, requestId: 'req-9' })]);
    const trail = await trailOf(f, '1001');
    expect(trail.find((e) => e.kind === TrailEntryKind.NOTIFICATION)).toMatchObject({
      requestId: 'req-9',
      matched: false,
    });
    expect(trail.find((e) => e.kind === TrailEntryKind.PUBLISHED)).toMatchObject({
      detailType: T.NOTIFICATION_NOT_CONFIRMED,
    });
  });

  it('tells a change a reconciliation look found, and that it was recovered when no notification came in its grace period', async () => {
    const f = fakeDeps();
    f.bank.settle('1001');
    await run(f, [look('1001')]);
    const recoveryCheck = f.requeued.find((body) => body.includes('recoveryCheck'))!;
    await run(f, [rawRecord(recoveryCheck)]);

    const trail = await trailOf(f, '1001');
    expect(trail.map((e) => e.kind)).toEqual([TrailEntryKind.LOOK, TrailEntryKind.PUBLISHED, TrailEntryKind.RECOVERED]);
    expect(trail[0]).toMatchObject({
      trigger: EventTrigger.RECONCILIATION,
      reason: 'settled on 2025-06-03 per the bank listing',
      status: 'LIQUIDADO',
    });
    expect(trail[2]).toMatchObject({ change: f.published[0].detail.idempotencyKey.split(':').slice(3).join(':') });
  });

  it("tells a quarantine with its reason and the notification's request id", async () => {
    const f = fakeDeps();
    f.bank.settle('1001', '150.25', [2025, 6, 3, 14, 5, 9, 0], '99999');
    await run(f, [sqsRecord('boleto', boletoEvent('1001'), { requestId: 'req-q' })]);

    expect(f.quarantined).toHaveLength(1);
    const [entry] = await trailOf(f, '1001');
    expect(entry).toMatchObject({
      kind: TrailEntryKind.QUARANTINED,
      requestId: 'req-q',
      reason: expect.stringContaining('belongs to beneficiary 99999'),
    });
    expect(entry.kind === TrailEntryKind.QUARANTINED && entry.reason.length).toBeLessThanOrEqual(
      TrailDefaults.reasonChars,
    );
  });

  it('keeps the newest entries only, however many notifications come', async () => {
    const f = fakeDeps();
    f.bank.open('1001');
    for (let i = 0; i < 40; i++)
      await run(f, [
        sqsRecord('boleto', boletoEvent('1001', 'LIQUIDACAO_PIX'), { receiveCount: 3, requestId: `req-${i}` }),
      ]);
    const trail = await trailOf(f, '1001');
    expect(trail).toHaveLength(TrailDefaults.entries);
    expect(trail[trail.length - 1]).toMatchObject({ kind: TrailEntryKind.PUBLISHED });
    expect(trail.filter((e) => e.kind === TrailEntryKind.NOTIFICATION).pop()).toMatchObject({ requestId: 'req-39' });
    expect(Buffer.byteLength(JSON.stringify(trail))).toBeLessThan(20_000);
  });

  it("holds no body, payer, document or amount of the notification or of the bank's answer", async () => {
    const f = fakeDeps();
    f.bank.settle('1001');
    f.bank.boletos.set('1001', {
      ...f.bank.boletos.get('1001')!,
      pagador: { nome: 'Maria Pagadora', documento: '12345678909' },
    });
    await run(f, [sqsRecord('boleto', boletoEvent('1001', 'LIQUIDACAO_PIX', '150.25', { idTituloEmpresa: 'INV-77' }))]);
    const text = JSON.stringify(await trailOf(f, '1001'));
    for (const leak of ['Maria', '12345678909', 'INV-77', '150.25', 'pagador']) expect(text).not.toContain(leak);
  });
});
