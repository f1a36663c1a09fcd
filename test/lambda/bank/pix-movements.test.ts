/**
 * Every movement of a Pix, read as the standard allows (issue 64): refunds the provider makes
 * unasked (MED) published with their nature, whatever their final status; a Pix (and a refund)
 * published only when the provider ties it to one of the receiver's keys, or, tied to none, by
 * the account's receiver for keyless Pix alone; charges read both ways (a concluded charge that
 * leaves its `pix` list out, a txid at `cob` unpaid and at `cobv` concluded, a recurring charge);
 * a `horario` without a zone read in Brasília's whatever the host's; `componentesValor` carried.
 */
import { BankEventDetailType as T, EventTrigger, PixChargeKind } from '../../../contracts/events';
import { RefundNature, RefundStatus } from '../../../contracts/pix';
import { ProcessorMetric } from '../../../contracts/processor';
import { TrailEntryKind } from '../../../contracts/record';
import { readPix } from '../../../lambda/bank/pix';
import { BankApiError } from '../../../lambda/bank/errors';
import { processBatch } from '../../../lambda/processor/batch';
import { encodeLookRequest } from '../../../lambda/store/look-request';
import { contextWith, rawRecord, requeuedRecord, sqsRecord } from '../../support/processor-records';
import { ProcessorDefaults } from '../../../contracts/processor';
import { decodeStoredNotification } from '../../../lambda/store/stored-notification';
import { ProcessorQueue } from '../../../lambda/processor/deps';
import { chargeTxid, e2e, fakePixDeps, OUR_KEYS, pixElement, refundElement } from '../../support/pix-records';

type Fakes = ReturnType<typeof fakePixDeps>;
const run = (f: Fakes, records: ReturnType<typeof sqsRecord>[]) =>
  processBatch({ Records: records }, contextWith(f.clock), f.deps);
const callback = (...pix: Record<string, unknown>[]) => sqsRecord('pix', { pix });
const sweepLook = (endToEndId: string) =>
  rawRecord(
    encodeLookRequest({
      trigger: EventTrigger.RECONCILIATION,
      subject: { kind: 'pix', endToEndId },
      requestedAt: '2026-11-27T12:10:00Z',
      reason: 'the provider lists it',
    }),
    { senderId: 'x' },
  );

/** Another of the account's keys, which another receiver holds. */
const OTHER_KEY = 'vendas@example.com.br';

/** Two receivers of one account over one provider: A holds our keys, B another; `keyless` says which owns keyless Pix. */
function twoReceivers(keyless: 'a' | 'b') {
  const a = fakePixDeps({}, { ...(keyless === 'a' ? { pixKeyless: true } : {}) });
  const b = fakePixDeps({}, { pixKeys: [OTHER_KEY], ...(keyless === 'b' ? { pixKeyless: true } : {}) });
  b.deps = { ...b.deps, bank: { clients: { ...b.deps.bank.clients, pix: a.provider } } };
  return { a, b, provider: a.provider };
}

describe('refunds the provider makes unasked (MED) are published with their nature', () => {
  it.each([RefundNature.MED_FRAUDE, RefundNature.MED_OPERACIONAL, RefundNature.MED_PIX_AUTOMATICO])(
    'a %s refund not done is published with NAO_REALIZADO (no money moved)',
    async (natureza) => {
      const f = fakePixDeps();
      const pix = pixElement(e2e(), { txid: 'QR1' });
      const refund = {
        ...refundElement('MED1', RefundStatus.NOT_DONE),
        natureza,
        motivo: 'Devolução não realizada: saldo insuficiente',
        descricao: 'MED',
      };
      f.provider.holds({ ...pix, devolucoes: [refund] });
      f.provider.refund(pix.endToEndId as string, refund);
      await run(f, [callback({ ...pix, devolucoes: [refund] })]);
      const published = f.published.filter((e) => e.detailType === String(T.PIX_REFUND));
      expect(published).toHaveLength(1);
      expect(published[0].detail.refund).toMatchObject({
        id: 'MED1',
        status: 'NAO_REALIZADO',
        natureza,
        motivo: 'Devolução não realizada: saldo insuficiente',
        descricao: 'MED',
      });
      expect(published[0].detail.state).toMatchObject({ status: 'NAO_REALIZADO' });
    },
  );

  it('a MED refund returned and a refund the receiver asked for: each once, each with its nature', async () => {
    const f = fakePixDeps();
    const pix = pixElement(e2e(), { txid: 'QR1', valor: '100.00' });
    const asked = refundElement('D1', RefundStatus.RETURNED, '10.00');
    const med = { ...refundElement('MED2', RefundStatus.RETURNED, '90.00'), natureza: RefundNature.MED_FRAUDE };
    f.provider.holds({ ...pix, devolucoes: [asked, med] });
    f.provider.refund(pix.endToEndId as string, asked);
    f.provider.refund(pix.endToEndId as string, med);
    await run(f, [callback({ ...pix, devolucoes: [asked, med] })]);
    await run(f, [callback({ ...pix, devolucoes: [med, asked] })]);
    expect(
      f.published
        .filter((e) => e.detailType === String(T.PIX_REFUND))
        .map((e) => [e.detail.refund.id, e.detail.refund.natureza, e.detail.refund.status]),
    ).toEqual([
      ['D1', 'ORIGINAL', 'DEVOLVIDO'],
      ['MED2', 'MED_FRAUDE', 'DEVOLVIDO'],
    ]);
  });

  it('a nature the standard does not define is kept as written, never dropped with its refund', async () => {
    const f = fakePixDeps();
    const pix = pixElement(e2e(), { txid: 'QR1' });
    const refund = { ...refundElement('X1', RefundStatus.RETURNED), natureza: 'MED_NOVA' };
    f.provider.holds(pix);
    f.provider.refund(pix.endToEndId as string, refund);
    await run(f, [callback({ ...pix, devolucoes: [refund] })]);
    const event = f.published.find((e) => e.detailType === String(T.PIX_REFUND))!;
    expect(event.detail.refund.natureza).toBeUndefined();
    expect(event.detail.refund.naturezaAsWritten).toBe('MED_NOVA');
  });
});

describe('a Pix, and a refund, is ours only if the provider ties it to one of our keys', () => {
  it("a paid charge of another key of the account, with chave left out, is not this receiver's: recorded in its trail, counted, never published or quarantined", async () => {
    const f = fakePixDeps();
    const txid = chargeTxid();
    const pix = pixElement(e2e(), { txid, chave: null });
    f.provider.holds(pix);
    f.provider.charge(txid, 'cob', [pix], 'CONCLUIDA', '110.00', OTHER_KEY);
    const result = await run(f, [sweepLook(pix.endToEndId as string)]);
    expect(result.batchItemFailures).toEqual([]);
    expect(f.published).toEqual([]);
    expect(f.quarantined).toEqual([]);
    expect(f.counts[ProcessorMetric.NOT_ATTRIBUTED]).toBe(1);
    const record = f.store.records.get(`pix:${pix.endToEndId as string}`)!;
    expect(record.notAttributed).toMatch(/a charge of a key of the account that is not this receiver's/);
    expect(record.trail).toEqual([
      expect.objectContaining({ kind: TrailEntryKind.NOT_ATTRIBUTED, trigger: EventTrigger.RECONCILIATION }),
    ]);
    // The same callback again costs nothing more: the record says it was handled.
    const calls = f.provider.calls.length;
    await run(f, [callback(pix)]);
    await run(f, [callback(pix)]);
    expect(f.provider.calls.length).toBe(calls + 2);
    expect(f.counts[ProcessorMetric.DUPLICATES]).toBe(1);
  });

  it('the same charge of one of our keys, chave left out in both answers, is published', async () => {
    const f = fakePixDeps();
    const txid = chargeTxid();
    const pix = pixElement(e2e(), { txid, chave: null });
    f.provider.holds(pix);
    f.provider.charge(txid, 'cob', [pix], 'CONCLUIDA', '110.00', OUR_KEYS[1]);
    await run(f, [sweepLook(pix.endToEndId as string)]);
    expect(f.published.map((e) => e.detailType)).toEqual([T.PIX_RECEIVED]);
  });

  it("a refund of another key's Pix (the callback names no key) is not published", async () => {
    const f = fakePixDeps();
    const pix = pixElement(e2e(), { txid: 'QR1', chave: OTHER_KEY });
    const refund = refundElement('D9', RefundStatus.RETURNED);
    f.provider.holds(pix);
    f.provider.refund(pix.endToEndId as string, refund);
    await run(f, [sqsRecord('pix', { pix: [{ endToEndId: pix.endToEndId, devolucao: refund }] })]);
    expect(f.published).toEqual([]);
    expect(f.quarantined).toEqual([]);
    expect(f.counts[ProcessorMetric.NOT_ATTRIBUTED]).toBe(1);
  });

  it('one keyless Pix (a transfer by account details) is published exactly once across two receivers of one account', async () => {
    for (const owner of ['a', 'b'] as const) {
      const { a, b, provider } = twoReceivers(owner);
      const pix = pixElement(e2e(), { chave: null });
      provider.holds(pix);
      await run(a, [callback(pix)]);
      await run(b, [callback(pix)]);
      await run(a, [sweepLook(pix.endToEndId as string)]);
      await run(b, [sweepLook(pix.endToEndId as string)]);
      const [publisher, other] = owner === 'a' ? [a, b] : [b, a];
      expect(publisher.published.map((e) => e.detailType)).toEqual([T.PIX_RECEIVED]);
      expect(other.published).toEqual([]);
      expect(other.quarantined).toEqual([]);
      // The callback and the look request each asked (an operator's reverify may follow a change of keys); the sweep asks no more once the record says so.
      expect(other.counts[ProcessorMetric.NOT_ATTRIBUTED]).toBe(2);
      expect(other.store.records.get(`pix:${pix.endToEndId as string}`)?.notAttributed).toMatch(
        /only the account's receiver for keyless Pix publishes it/,
      );
    }
  });

  it('a keyless Pix with no owner among the receivers is published by none, counted by each', async () => {
    const f = fakePixDeps();
    const pix = pixElement(e2e(), { chave: null });
    f.provider.holds(pix);
    await run(f, [callback(pix)]);
    expect(f.published).toEqual([]);
    expect(f.counts[ProcessorMetric.NOT_ATTRIBUTED]).toBe(1);
  });
});

describe('charges read both ways', () => {
  it("a concluded cob whose answer leaves its optional pix list out: the Pix's own answer names the txid, so it is concluded by this Pix (published once)", async () => {
    const f = fakePixDeps();
    const txid = chargeTxid();
    const pix = pixElement(e2e(), { txid });
    f.provider.holds(pix);
    f.provider.charge(txid, 'cob', undefined, 'CONCLUIDA');
    await run(f, [callback(pix)]);
    await run(f, [sweepLook(pix.endToEndId as string)]);
    expect(f.published.map((e) => [e.detailType, e.detail.pix.charge?.kind])).toEqual([[T.PIX_RECEIVED, 'cob']]);
  });

  it('a txid found as an unpaid cob and as a cobv this Pix concluded: the cobv decides', async () => {
    const f = fakePixDeps();
    const txid = chargeTxid();
    const pix = pixElement(e2e(), { txid });
    f.provider.holds(pix);
    f.provider.charge(txid, 'cob', [], 'ATIVA');
    f.provider.charge(txid, 'cobv', [pix]);
    await run(f, [callback(pix)]);
    expect(f.provider.calls.slice(1)).toEqual([`GET /cob/${txid}`, `GET /cobv/${txid}`]);
    expect(f.published.map((e) => [e.detailType, e.detail.pix.charge?.kind])).toEqual([[T.PIX_RECEIVED, 'cobv']]);
  });

  it('a Pix paying a recurring charge (Pix Automático, cobr): received with its charge kind by the keyless owner, not "charge not found"; another receiver records it as not its own', async () => {
    const { a, b, provider } = twoReceivers('a');
    const txid = chargeTxid('rec');
    const pix = pixElement(e2e(), { txid, chave: null });
    provider.holds(pix);
    provider.charge(txid, 'cobr', [pix]);
    await run(a, [sweepLook(pix.endToEndId as string)]);
    await run(b, [sweepLook(pix.endToEndId as string)]);
    expect(a.published.map((e) => [e.detailType, e.detail.pix.charge?.kind, e.detail.pix.charge?.status])).toEqual([
      [T.PIX_RECEIVED, PixChargeKind.COBR, 'CONCLUIDA'],
    ]);
    expect(b.published).toEqual([]);
    expect(b.counts[ProcessorMetric.NOT_ATTRIBUTED]).toBe(1);
  });
});

describe('a provider without Pix Automático', () => {
  it.each([400, 403, 404])(
    'answers /cobr (or its token) %i: read as no recurring charge, so a txid found nowhere is no charge, never a failed look',
    async (status) => {
      const f = fakePixDeps();
      const getCharge = f.provider.getCharge.bind(f.provider);
      f.provider.getCharge = async (kind, txid) => {
        if (kind === PixChargeKind.COBR)
          throw new BankApiError('cobr query', status, 'invalid_scope: cobr.read', false);
        return getCharge(kind, txid);
      };
      const txid = chargeTxid();
      const pix = pixElement(e2e(), { txid });
      f.provider.holds(pix);
      const result = await run(f, [callback(pix)]);
      // Not confirmed yet (no charge), retried like query lag: the same as before recurring charges were read.
      expect(result.batchItemFailures).toHaveLength(1);
      expect(JSON.stringify(f.logs.map((l) => l.extra.reason))).toContain(`the provider shows no charge ${txid}`);
      expect(f.published).toEqual([]);
    },
  );

  it('a cobr answer the provider gets wrong (a 500) is a failed look, retried', async () => {
    const f = fakePixDeps();
    f.provider.getCharge = async (kind) => {
      if (kind === PixChargeKind.COBR) throw new BankApiError('cobr query', 500, 'boom', true);
      return undefined;
    };
    const pix = pixElement(e2e(), { txid: chargeTxid() });
    f.provider.holds(pix);
    const result = await run(f, [callback(pix)]);
    expect(result.batchItemFailures).toHaveLength(1);
    expect(f.counts[ProcessorMetric.BANK_FAILURES]).toBe(1);
  });
});

describe('what the provider writes beside the amount and the time', () => {
  it('componentesValor reaches Pix Received beside the amount', async () => {
    const f = fakePixDeps();
    const pix = {
      ...pixElement(e2e(), { txid: 'QR1', valor: '105.00' }),
      componentesValor: { original: { valor: '100.00' }, multa: { valor: '3.00' }, juros: { valor: '2.00' } },
    };
    f.provider.holds(pix);
    await run(f, [callback(pix)]);
    expect(f.published[0].detail.pix.componentesValor).toEqual({
      original: { cents: 10000, decimal: '100.00' },
      multa: { cents: 300, decimal: '3.00' },
      juros: { cents: 200, decimal: '2.00' },
    });
  });

  it("a horario without a zone is read in Brasília's, said so in the event and counted", async () => {
    const f = fakePixDeps();
    const pix = pixElement(e2e(), { txid: 'QR1', horario: '2026-11-27T21:30:00' });
    f.provider.holds(pix);
    await run(f, [callback(pix)]);
    expect(f.published[0].detail.pix).toMatchObject({ horario: '2026-11-27T21:30:00-03:00', horarioZoneAssumed: true });
    expect(f.counts[ProcessorMetric.PIX_ZONE_ASSUMED]).toBe(1);
  });

  it.each(['UTC', 'Asia/Tokyo', 'America/Sao_Paulo'])(
    'the same zoneless horario names the same instant with the host in %s',
    (zone) => {
      const before = process.env.TZ;
      try {
        process.env.TZ = zone;
        const read = readPix({ endToEndId: 'E1', valor: '1.00', horario: '2026-11-27T21:30:00' }, 'Pix query', 200);
        expect(Date.parse(read.horario)).toBe(Date.parse('2026-11-28T00:30:00Z'));
        // What the host's zone would have made of it: the test above would catch that reading.
        if (zone !== 'America/Sao_Paulo')
          expect(Date.parse('2026-11-27T21:30:00')).not.toBe(Date.parse('2026-11-28T00:30:00Z'));
      } finally {
        process.env.TZ = before;
      }
    },
  );

  it('a horario that is not a date-time is refused with a reason (the Pix is quarantined, nothing published)', async () => {
    const f = fakePixDeps();
    await run(f, [callback({ ...pixElement(e2e(), { txid: 'QR1' }), horario: '2026-20-01T10:00:00Z' })]);
    expect(f.published).toEqual([]);
    expect(f.quarantined.map((q) => q.reason)).toEqual([
      expect.stringMatching(/pix\[0\] cannot be read: .*has no valid time at pix\.horario \(an RFC 3339 date-time\)/),
    ]);
  });
});

describe("a callback costs a bounded share of the provider's budget", () => {
  it("a body of 25 Pix: the first ten verified at the notification's share, the rest sent again and verified at the look queue's, each once", async () => {
    const f = fakePixDeps();
    const lookCalls: string[] = [];
    const provider = f.provider;
    const atLookShare = {
      getPix: (id: string) => {
        lookCalls.push(`GET /pix/${id}`);
        return provider.getPix(id);
      },
      getCharge: provider.getCharge.bind(provider),
      getRefund: provider.getRefund.bind(provider),
    };
    f.deps = { ...f.deps, lookBank: { clients: { ...f.deps.bank.clients, pix: atLookShare } } };
    const all = Array.from({ length: 25 }, (_, i) => pixElement(e2e(), { txid: `QR${i}` }));
    all.forEach((p) => provider.holds(p));
    await run(f, [callback(...all)]);
    expect(f.published).toHaveLength(ProcessorDefaults.subjectsPerNotification);
    expect(provider.calls).toHaveLength(ProcessorDefaults.subjectsPerNotification);
    expect(f.requeued).toHaveLength(1);
    expect(f.requeuedTo).toEqual([ProcessorQueue.NOTIFICATIONS]);
    const { notification } = decodeStoredNotification(f.requeued[0]);
    expect(notification.lookShare).toBe(true);
    expect(f.counts[ProcessorMetric.SUBJECTS_AT_LOOK_SHARE]).toBe(15);
    // The rest comes back: all of it at the look queue's share (no new bound), none published twice.
    await run(f, [requeuedRecord(f.requeued[0])]);
    expect(lookCalls).toHaveLength(15);
    expect(f.requeued).toHaveLength(1);
    expect(new Set(f.published.map((e) => e.detail.subject.endToEndId)).size).toBe(25);
    expect(f.published).toHaveLength(25);
  });
});

describe('how far back a refund can come', () => {
  const DAY = 86_400_000;
  const lateRefund = async (recordTtlSecondsByKind?: Record<string, number>) => {
    const f = fakePixDeps();
    f.deps = {
      ...f.deps,
      settings: { ...f.deps.settings, ...(recordTtlSecondsByKind ? { recordTtlSecondsByKind } : {}) },
    };
    // A MED return settled 50 days after the Pix's day, found by the sweep (its callback lost).
    const pix = pixElement(e2e(), { txid: 'QR1' });
    const refund = {
      ...refundElement('MED9', RefundStatus.RETURNED, '110.00', new Date(f.clock.now() - 50 * DAY).toISOString()),
      natureza: RefundNature.MED_FRAUDE,
    };
    f.provider.holds(pix);
    f.provider.refund(pix.endToEndId as string, refund);
    await run(f, [
      rawRecord(
        encodeLookRequest({
          trigger: EventTrigger.RECONCILIATION,
          subject: { kind: 'pix-refund', endToEndId: pix.endToEndId as string, refundId: 'MED9' },
          requestedAt: new Date(f.clock.now()).toISOString(),
          reason: 'the provider lists it',
        }),
        { senderId: 'x' },
      ),
    ]);
    return f;
  };

  it("a refund dated 50 days back is published when Pix records live 101 days; the refund's own date still decides", async () => {
    const f = await lateRefund({ pix: 101 * 86_400, 'pix-refund': 101 * 86_400 });
    expect(f.published.map((e) => [e.detailType, e.detail.refund.natureza])).toEqual([[T.PIX_REFUND, 'MED_FRAUDE']]);
  });

  it('with every record at the 30-day idempotencyTtl, the same refund is recorded and never published (it may have been before its record expired)', async () => {
    const f = await lateRefund();
    expect(f.published).toEqual([]);
    expect(f.counts[ProcessorMetric.LOOKS_PAST_RECORDS]).toBe(1);
  });
});
