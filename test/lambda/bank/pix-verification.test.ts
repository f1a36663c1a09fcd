/**
 * Pix received, verified (issue 51): every Pix of a callback is confirmed by the provider's query
 * under our credentials before anyone hears of it; a charge's Pix also by the charge concluded
 * with it; refunds at their final status; another customer's Pix (a key not ours, or a Pix our
 * credentials do not see) is dropped: counted, never published, never a dead-letter message.
 */
import { BankEventDetailType as T, StatusClass as C, SubjectKind } from '../../../contracts/events';
import { normalizePixKey, PixKeyType, RefundStatus } from '../../../contracts/pix';
import { ProcessorMetric } from '../../../contracts/processor';
import { processBatch } from '../../../lambda/processor/batch';
import { pixFamily } from '../../../lambda/bank/pix';
import { encodeLookRequest } from '../../../lambda/store/look-request';
import { EventTrigger } from '../../../contracts/events';
import { contextWith, rawRecord, sqsRecord } from '../../support/processor-records';
import { chargeTxid, e2e, fakePixDeps, OUR_KEY, OUR_KEYS, pixElement, refundElement } from '../../support/pix-records';

type Fakes = ReturnType<typeof fakePixDeps>;
const run = (f: Fakes, records: ReturnType<typeof sqsRecord>[]) =>
  processBatch({ Records: records }, contextWith(f.clock), f.deps);
const callback = (...pix: Record<string, unknown>[]) => sqsRecord('pix', { pix });
/** A receiver whose Pix route has mutual TLS and a pin (`pix.domain`): only the provider posts callbacks. */
const authenticated = (f: Fakes): Fakes =>
  Object.assign(f, { deps: { ...f.deps, settings: { ...f.deps.settings, pixCallbacksAuthenticated: true } } });

describe('a Pix received is published once the provider confirms it', () => {
  it('a charge paid by Pix: GET /pix then GET /cob, one Pix Received with the charge, none for the same callback again', async () => {
    const f = fakePixDeps();
    const txid = chargeTxid();
    const pix = pixElement(e2e(), { txid, infoPagador: 'pedido 42' });
    f.provider.holds(pix);
    f.provider.charge(txid, 'cob', [pix]);
    const result = await run(f, [callback(pix)]);
    await run(f, [callback(pix)]);
    expect(result.batchItemFailures).toEqual([]);
    expect(f.provider.calls).toEqual([`GET /pix/${pix.endToEndId as string}`, `GET /cob/${txid}`]);
    expect(f.published.map((e) => e.detailType)).toEqual([T.PIX_RECEIVED]);
    expect(f.published[0].detail).toMatchObject({
      account: { cooperativa: '0101', posto: '02', conta: '123456' },
      subject: { kind: 'pix', id: `pix:${pix.endToEndId as string}`, sequence: 1, endToEndId: pix.endToEndId },
      state: { status: 'CONCLUIDA', statusClass: C.SETTLED, amount: { cents: 11000, decimal: '110.00' } },
      pix: {
        endToEndId: pix.endToEndId,
        txid,
        chave: OUR_KEY,
        amount: { cents: 11000 },
        infoPagador: 'pedido 42',
        charge: { txid, kind: 'cob', status: 'CONCLUIDA', original: { cents: 11000 } },
      },
      matchesNotification: true,
    });
    expect(f.counts[ProcessorMetric.DUPLICATES]).toBe(1);
  });

  it('a charge with a due date is found at /cobv after /cob answers 404', async () => {
    const f = fakePixDeps();
    const txid = chargeTxid('cobv');
    const pix = pixElement(e2e(), { txid });
    f.provider.holds(pix);
    f.provider.charge(txid, 'cobv', [pix]);
    await run(f, [callback(pix)]);
    expect(f.provider.calls.slice(1)).toEqual([`GET /cob/${txid}`, `GET /cobv/${txid}`]);
    expect(f.published[0].detail.pix.charge).toMatchObject({ kind: 'cobv' });
  });

  it("a static code's short txid has no charge behind it: no charge query", async () => {
    const f = fakePixDeps();
    const pix = pixElement(e2e(), { txid: 'LOJA01' });
    f.provider.holds(pix);
    await run(f, [callback(pix)]);
    expect(f.provider.calls).toHaveLength(1);
    expect(f.published[0].detail).toMatchObject({
      state: { status: 'RECEBIDO', statusClass: C.SETTLED },
      pix: { txid: 'LOJA01' },
    });
    expect(f.published[0].detail.pix.charge).toBeUndefined();
  });

  it('three Pix of one key in one callback: three subjects, three events', async () => {
    const f = fakePixDeps();
    const all = [1, 2, 3].map((i) => pixElement(e2e(), { txid: `QR${i}`, valor: `${i}0.00` }));
    all.forEach((p) => f.provider.holds(p));
    await run(f, [callback(...all)]);
    expect(f.published.map((e) => [e.detailType, e.detail.subject.id, e.detail.pix.amount.cents])).toEqual(
      all.map((p, i) => [T.PIX_RECEIVED, `pix:${p.endToEndId as string}`, (i + 1) * 1000]),
    );
  });

  it('a charge the provider shows not concluded with this Pix is never published as received; its last attempt says Notification Not Confirmed', async () => {
    const f = fakePixDeps();
    const txid = chargeTxid();
    const pix = pixElement(e2e(), { txid });
    f.provider.holds(pix);
    f.provider.charge(txid, 'cob', []);
    const first = await run(f, [callback(pix)]);
    expect(first.batchItemFailures).toHaveLength(1);
    expect(f.published).toEqual([]);
    await run(f, [sqsRecord('pix', { pix: [pix] }, { receiveCount: f.deps.settings.maxVerificationAttempts })]);
    expect(f.published.map((e) => e.detailType)).toEqual([T.NOTIFICATION_NOT_CONFIRMED]);
    expect(f.published[0].detail.mismatches).toEqual([
      `the provider shows the charge ${txid} ATIVA, not concluded with this Pix`,
    ]);
  });

  it("the amount published is the provider's: a callback claiming another is told as a mismatch and never confirmed", async () => {
    const f = fakePixDeps();
    const pix = pixElement(e2e(), { txid: 'QR1', valor: '10.00' });
    f.provider.holds(pix);
    const result = await run(f, [callback({ ...pix, valor: '10000.00' })]);
    expect(result.batchItemFailures).toHaveLength(1);
    expect(
      f.published.map((e) => [
        e.detailType,
        e.detail.pix.amount.cents,
        e.detail.matchesNotification,
        e.detail.mismatches,
      ]),
    ).toEqual([[T.PIX_RECEIVED, 1000, false, ['the callback says 10000.00; the provider shows 10.00']]]);
  });

  it("a callback that leaves chave out (as the standard's examples do) is decided by the query", async () => {
    const f = fakePixDeps();
    const pix = pixElement(e2e(), { txid: 'QR1' });
    f.provider.holds(pix);
    await run(f, [callback({ ...pix, chave: null })]);
    expect(f.published.map((e) => e.detailType)).toEqual([T.PIX_RECEIVED]);
  });
});

describe("another customer's Pix is dropped: counted, never published, never a dead-letter message", () => {
  it('a key that is not ours costs no query', async () => {
    const f = fakePixDeps();
    const theirs = pixElement(e2e(), { txid: 'QR1', chave: 'someone@else.example' });
    f.provider.holds(theirs);
    const result = await run(f, [callback(theirs)]);
    expect(result.batchItemFailures).toEqual([]);
    expect(f.provider.calls).toEqual([]);
    expect(f.published).toEqual([]);
    expect(f.quarantined).toEqual([]);
    expect(f.counts[ProcessorMetric.FOREIGN]).toBe(1);
    // Its details are a third party's: never in a log line.
    expect(JSON.stringify(f.logs)).not.toContain(theirs.endToEndId as string);
  });

  it("a Pix our credentials do not see (404), where anyone can post, is another customer's at once: one query", async () => {
    const f = fakePixDeps();
    const theirs = pixElement(e2e(), { txid: 'QR1', chave: null });
    const result = await run(f, [callback(theirs)]);
    expect(result.batchItemFailures).toEqual([]);
    expect(f.provider.calls).toEqual([`GET /pix/${theirs.endToEndId as string}`]);
    expect(f.published).toEqual([]);
    expect(f.quarantined).toEqual([]);
    expect(f.counts[ProcessorMetric.FOREIGN]).toBe(1);
    expect(f.store.records.size).toBe(0);
  });

  it("a Pix our credentials do not see (404), on a route with mutual TLS and a pin, is retried as the provider's lag, and another customer's on the last verification attempt", async () => {
    const f = authenticated(fakePixDeps());
    const theirs = pixElement(e2e(), { txid: 'QR1', chave: null });
    const first = callback(theirs);
    // The same answer as a provider's lag right after the Pix: the message comes back, nothing is decided yet.
    const result = await run(f, [first]);
    expect(result.batchItemFailures).toEqual([{ itemIdentifier: first.messageId }]);
    expect(f.published).toEqual([]);
    expect(f.quarantined).toEqual([]);
    expect(f.counts[ProcessorMetric.FOREIGN]).toBeUndefined();
    const last = await run(f, [
      {
        ...first,
        attributes: { ...first.attributes, ApproximateReceiveCount: String(f.deps.settings.maxVerificationAttempts) },
      },
    ]);
    expect(last.batchItemFailures).toEqual([]);
    expect(f.provider.calls).toEqual([
      `GET /pix/${theirs.endToEndId as string}`,
      `GET /pix/${theirs.endToEndId as string}`,
    ]);
    expect(f.published).toEqual([]);
    expect(f.quarantined).toEqual([]);
    expect(f.counts[ProcessorMetric.FOREIGN]).toBe(1);
    expect(f.store.records.size).toBe(0);
  });

  it('a Pix the provider answers 404 for at first and then shows as ours is published once (its lag), on a route with mutual TLS and a pin', async () => {
    const f = authenticated(fakePixDeps());
    const ours = pixElement(e2e(), { txid: 'QR1' });
    const first = callback(ours);
    expect((await run(f, [first])).batchItemFailures).toEqual([{ itemIdentifier: first.messageId }]);
    f.provider.holds(ours);
    expect(
      (await run(f, [{ ...first, attributes: { ...first.attributes, ApproximateReceiveCount: '2' } }]))
        .batchItemFailures,
    ).toEqual([]);
    expect(f.published.map((e) => e.detail.subject.endToEndId)).toEqual([ours.endToEndId]);
    expect(f.counts[ProcessorMetric.FOREIGN]).toBeUndefined();
  });

  it('one of ours beside one of theirs in a callback: ours published, theirs dropped', async () => {
    const f = fakePixDeps();
    const ours = pixElement(e2e(), { txid: 'QR1' });
    const theirs = pixElement(e2e(), { txid: 'QR2', chave: '+55 (11) 98765-4321' });
    f.provider.holds(ours);
    await run(f, [callback(theirs, ours)]);
    expect(f.published.map((e) => e.detail.subject.endToEndId)).toEqual([ours.endToEndId]);
    expect(f.counts[ProcessorMetric.FOREIGN]).toBe(1);
  });
});

describe('refunds', () => {
  it('a refund returned: one Pix Refund, and the Pix it returns is not published again', async () => {
    const f = fakePixDeps();
    const pix = pixElement(e2e(), { txid: 'QR1' });
    f.provider.holds(pix);
    await run(f, [callback(pix)]);
    const refund = refundElement('D1', RefundStatus.RETURNED);
    f.provider.refund(pix.endToEndId as string, refund);
    await run(f, [callback({ ...pix, devolucoes: [refund] })]);
    expect(f.published.map((e) => e.detailType)).toEqual([T.PIX_RECEIVED, T.PIX_REFUND]);
    expect(f.published[1].detail).toMatchObject({
      subject: {
        kind: 'pix-refund',
        id: `pix-refund:${pix.endToEndId as string}:D1`,
        endToEndId: pix.endToEndId,
        refundId: 'D1',
        sequence: 1,
      },
      state: { status: 'DEVOLVIDO', statusClass: C.REVERSED },
      refund: {
        endToEndId: pix.endToEndId,
        id: 'D1',
        status: 'DEVOLVIDO',
        amount: { cents: 11000 },
        settledAt: '2026-11-27T13:00:00.000Z',
      },
    });
  });

  it('a refund not done is published with its status; one in process is no event (the standard writes devolucoes as an object too)', async () => {
    const f = fakePixDeps();
    const pix = pixElement(e2e(), { txid: 'QR1' });
    f.provider.holds(pix);
    const notDone = refundElement('D2', RefundStatus.NOT_DONE);
    f.provider.refund(pix.endToEndId as string, notDone);
    await run(f, [callback({ ...pix, devolucoes: notDone })]);
    await run(f, [callback({ ...pix, devolucoes: [refundElement('D3', RefundStatus.IN_PROCESS)] })]);
    expect(f.published.map((e) => [e.detailType, e.detail.state.status])).toEqual([
      [T.PIX_RECEIVED, 'RECEBIDO'],
      [T.PIX_REFUND, 'NAO_REALIZADO'],
    ]);
    expect(f.provider.calls.filter((c) => c.includes('devolucao'))).toEqual([
      `GET /pix/${pix.endToEndId as string}/devolucao/D2`,
    ]);
  });

  it('a refund the provider shows still in process is not confirmed yet; once returned it is', async () => {
    const f = fakePixDeps();
    const pix = pixElement(e2e(), { txid: 'QR1' });
    f.provider.holds(pix);
    f.provider.refund(pix.endToEndId as string, refundElement('D4', RefundStatus.IN_PROCESS));
    const first = await run(f, [callback({ ...pix, devolucoes: [refundElement('D4', RefundStatus.RETURNED)] })]);
    expect(first.batchItemFailures).toHaveLength(1);
    expect(f.published.map((e) => e.detailType)).toEqual([T.PIX_RECEIVED]);
    f.provider.refund(pix.endToEndId as string, refundElement('D4', RefundStatus.RETURNED));
    await run(f, [callback({ ...pix, devolucoes: [refundElement('D4', RefundStatus.RETURNED)] })]);
    expect(f.published.map((e) => e.detailType)).toEqual([T.PIX_RECEIVED, T.PIX_REFUND]);
  });

  it("a refund of another customer's Pix (404 under our credentials) is dropped like the Pix, on the last verification attempt", async () => {
    const f = authenticated(fakePixDeps());
    const theirs = pixElement(e2e(), {
      txid: 'QR1',
      chave: null,
      devolucoes: [refundElement('D5', RefundStatus.RETURNED)],
    });
    const record = callback(theirs);
    const result = await run(f, [
      {
        ...record,
        attributes: { ...record.attributes, ApproximateReceiveCount: String(f.deps.settings.maxVerificationAttempts) },
      },
    ]);
    expect(result.batchItemFailures).toEqual([]);
    expect(f.published).toEqual([]);
    expect(f.quarantined).toEqual([]);
    expect(f.counts[ProcessorMetric.FOREIGN]).toBe(2);
  });

  it("the records-lifetime rule reads a refund's own date, not the Pix's", () => {
    const rules = pixFamily().subjects.find((r) => r.kind === SubjectKind.PIX_REFUND)!;
    const state = {
      status: 'DEVOLVIDO',
      statusClass: C.REVERSED,
      paidAt: '2026-11-27T13:00:00.000Z',
      refund: {
        endToEndId: 'E1',
        id: 'D1',
        status: 'DEVOLVIDO',
        amount: { cents: 1, decimal: '0.01' },
        settledAt: '2026-11-27T13:00:00.000Z',
      },
    };
    expect(rules.datedAt(state)).toBe(Date.parse('2026-11-27T13:00:00.000Z'));
  });
});

describe('what is not a Pix to verify', () => {
  it('the validation call (no pix array, or an empty body) costs nothing and is no failure', async () => {
    const f = fakePixDeps();
    const result = await run(f, [sqsRecord('pix', {}), sqsRecord('pix', { teste: true })]);
    expect(result.batchItemFailures).toEqual([]);
    expect(f.provider.calls).toEqual([]);
    expect(f.published).toEqual([]);
    expect(f.quarantined).toEqual([]);
  });

  it('a Pix that cannot be read is quarantined with its reason, the others of its callback verified', async () => {
    const f = fakePixDeps();
    const ours = pixElement(e2e(), { txid: 'QR1' });
    f.provider.holds(ours);
    await run(f, [callback({ endToEndId: 'not-letters!', valor: '1.00', horario: 'x' }, ours)]);
    expect(f.published.map((e) => e.detailType)).toEqual([T.PIX_RECEIVED]);
    expect(f.quarantined.map((q) => q.reason)).toEqual([
      'pix[0] cannot be read: the Pix callback failed with HTTP 200: the answer has no valid pix.endToEndId',
    ]);
  });

  it("a look request for a Pix (the sweep's) verifies it the same way", async () => {
    const f = fakePixDeps();
    const pix = pixElement(e2e(), { txid: 'QR1' });
    f.provider.holds(pix);
    await run(f, [
      rawRecord(
        encodeLookRequest({
          trigger: EventTrigger.RECONCILIATION,
          subject: { kind: 'pix', endToEndId: pix.endToEndId as string },
          requestedAt: '2026-11-27T12:10:00Z',
          reason: 'the provider lists it',
        }),
        { senderId: 'x' },
      ),
    ]);
    expect(f.published.map((e) => [e.detailType, e.detail.trigger])).toEqual([[T.PIX_RECEIVED, 'reconciliation']]);
  });

  it('a receiver with no Pix connection fails the message (retried, then quarantined with the reason)', async () => {
    const f = fakePixDeps();
    const pix = pixElement(e2e(), { txid: 'QR1' });
    const { pix: _none, ...others } = f.deps.bank.clients;
    const deps = { ...f.deps, bank: { clients: others } };
    const result = await processBatch({ Records: [callback(pix)] }, contextWith(f.clock), deps);
    expect(result.batchItemFailures).toHaveLength(1);
    expect(f.logs.map((l) => l.extra.reason).join()).toContain('this receiver has no Pix connection');
  });
});

describe('keys in their normal form', () => {
  it.each([
    ['0F9A3C52-7B1E-4E0A-9D7C-1C2B3A4D5E6F', '0f9a3c52-7b1e-4e0a-9d7c-1c2b3a4d5e6f', PixKeyType.EVP],
    ['Financeiro@Example.com.BR', 'financeiro@example.com.br', PixKeyType.EMAIL],
    ['+55 (11) 98765-4321', '+5511987654321', PixKeyType.PHONE],
    ['(11) 98765-4321', '+5511987654321', PixKeyType.PHONE],
    ['5511987654321', '+5511987654321', PixKeyType.PHONE],
    ['123.456.789-09', '12345678909', PixKeyType.CPF],
    ['12.345.678/0001-99', '12345678000199', PixKeyType.CNPJ],
  ])('%s is %s', (written, key, type) => {
    expect(normalizePixKey(written)).toEqual({ key, type });
  });

  it.each(['', 'not a key', 'a@b', '+1 555 0100', '1234', `${'a'.repeat(70)}@example.com`])(
    '%j is no key',
    (written) => {
      expect(normalizePixKey(written)).toBeUndefined();
    },
  );

  it('our keys are kept normalized', () => {
    expect(OUR_KEYS.every((k) => normalizePixKey(k)?.key === k)).toBe(true);
  });
});
