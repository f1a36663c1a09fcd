/**
 * Nothing is published twice because a record expired: a look (a notification's, a reverify, a
 * Track Payment, the sweep) at a subject with no record publishes nothing when the bank's state is dated before what
 * records remember (idempotencyTtl less a day), counts it apart (never as recovered) and records
 * the state; a state with no date is published (the explicit rule); an operator's explicit replay
 * publishes with trigger `replay`.
 */
import { randomUUID } from 'node:crypto';
import { BankEventDetailType as T, EventTrigger } from '../../../contracts/events';
import { ProcessorMetric } from '../../../contracts/processor';
import { TrailEntryKind } from '../../../contracts/record';
import { TRACK_PAYMENT_DETAIL_TYPE } from '../../../contracts/reconciliation';
import { processBatch } from '../../../lambda/processor/batch';
import { encodeLookRequest } from '../../../lambda/store/look-request';
import {
  boletoEvent,
  contextWith,
  fakeDeps,
  type MemorySubjectStore,
  pixPayment,
  rawRecord,
  sqsRecord,
} from '../../support/processor-records';

type Fakes = ReturnType<typeof fakeDeps>;
const run = (f: Fakes, records: ReturnType<typeof sqsRecord>[]) =>
  processBatch({ Records: records }, contextWith(f.clock), f.deps);
const DAY = 86_400_000;
const BOLETO = 'boleto:54321:000002001';

const look = (f: Fakes, trigger = EventTrigger.RECONCILIATION) =>
  rawRecord(
    encodeLookRequest({
      trigger,
      subject: { kind: 'boleto', nossoNumero: '2001' },
      requestedAt: new Date(f.clock.now()).toISOString(),
      reason: 'reverify by an operator',
    }),
  );

function trackPayment(f: Fakes, idTransacao: string) {
  return rawRecord(
    JSON.stringify({
      version: '0',
      id: randomUUID(),
      'detail-type': TRACK_PAYMENT_DETAIL_TYPE,
      source: 'acme.payments',
      account: '111111111111',
      time: new Date(f.clock.now()).toISOString(),
      region: 'sa-east-1',
      resources: [],
      detail: { paymentKind: 'pix', idTransacao, account: { cooperativa: '0101', conta: '123456' } },
    }),
  );
}

/** The subject's record is gone, as DynamoDB deletes it past its TTL. */
const expire = (f: Fakes, subjectId: string) => (f.deps.store as MemorySubjectStore).records.delete(subjectId);

/** A settlement published by its webhook on the clock's day, then `days` later its record gone (DynamoDB's TTL). */
async function settledThenExpired(f: Fakes, days: number) {
  f.bank.settle('2001');
  await run(f, [sqsRecord('boleto', [boletoEvent('2001', 'LIQUIDACAO_PIX', '150.25')])]);
  expect(f.published.map((e) => e.detailType)).toEqual([T.BOLETO_SETTLED]);
  f.clock.advance(days * DAY);
  expire(f, BOLETO);
}

it('a reverify of a 40-day-old settlement whose record expired publishes nothing, counts it apart (not recovered) and records the state', async () => {
  const f = fakeDeps();
  await settledThenExpired(f, 40);
  await run(f, [look(f)]);
  expect(f.published).toHaveLength(1);
  expect(f.counts[ProcessorMetric.LOOKS_PAST_RECORDS]).toBe(1);
  expect(f.counts[ProcessorMetric.RECOVERED]).toBeUndefined();
  // No recovery check was scheduled: it is no lost webhook.
  expect(f.requeued).toEqual([]);
  const log = f.logs.find((l) =>
    l.message.startsWith("Not published: the bank's state is older than what records remember"),
  );
  expect(log?.extra).toMatchObject({
    subject: BOLETO,
    why: expect.stringContaining(
      'dated 2025-06-03T14:05:09.000-03:00, before what records remember (the 30-day idempotencyTtl less a day)',
    ),
  });
  // The state is recorded (with why in its trail): the next look finds it and publishes nothing either, without counting again.
  const record = await f.deps.store.read(BOLETO);
  expect(record.state?.statusClass).toBe('settled');
  expect(record.trail?.at(-1)).toMatchObject({
    kind: TrailEntryKind.LOOK,
    unpublished: expect.stringContaining('may have been published before its record expired'),
  });
  await run(f, [look(f)]);
  expect(f.published).toHaveLength(1);
  expect(f.counts[ProcessorMetric.LOOKS_PAST_RECORDS]).toBe(1);
});

it('a Track Payment for a payment paid 40 days ago whose record expired publishes nothing', async () => {
  const f = fakeDeps();
  f.bank.payments.set('P1', { ...pixPayment('P1', 'EFETIVADO'), dataPagamento: '2025-06-03' });
  await run(f, [sqsRecord('payments', { ...pixPayment('P1', 'EFETIVADO'), dataPagamento: '2025-06-03' })]);
  expect(f.published).toHaveLength(1);
  f.clock.advance(40 * DAY);
  expire(f, 'payment:pix:P1');
  await run(f, [trackPayment(f, 'P1')]);
  expect(f.published).toHaveLength(1);
  expect(f.counts[ProcessorMetric.LOOKS_PAST_RECORDS]).toBe(1);
});

it('still publishes what records would remember: a settlement 20 days old that no record holds is a lost webhook, published once and counted recovered', async () => {
  const f = fakeDeps();
  f.bank.settle('2001');
  f.clock.advance(20 * DAY);
  await run(f, [look(f)]);
  expect(f.published.map((e) => [e.detailType, e.detail.trigger])).toEqual([[T.BOLETO_SETTLED, 'reconciliation']]);
  expect(f.counts[ProcessorMetric.LOOKS_PAST_RECORDS]).toBeUndefined();
  expect(f.requeued).toHaveLength(1);
});

it('publishes a state with no date (a payment rejected, with no dataPagamento) from a look at a subject with no record: decided, and documented', async () => {
  const f = fakeDeps();
  f.clock.advance(40 * DAY);
  f.bank.payments.set('P2', pixPayment('P2', 'REJEITADO'));
  await run(f, [trackPayment(f, 'P2')]);
  expect(f.published.map((e) => e.detail.state.status)).toEqual(['REJEITADO']);
  expect(f.counts[ProcessorMetric.LOOKS_PAST_RECORDS]).toBeUndefined();
});

it("an operator's explicit replay publishes what it finds once, with trigger replay, never counted recovered", async () => {
  const f = fakeDeps();
  await settledThenExpired(f, 40);
  await run(f, [look(f, EventTrigger.REPLAY), look(f, EventTrigger.REPLAY)]);
  expect(f.published.map((e) => [e.detailType, e.detail.trigger, e.detail.subject.sequence])).toEqual([
    [T.BOLETO_SETTLED, 'webhook', 1],
    [T.BOLETO_SETTLED, 'replay', 1],
  ]);
  // The same change as the first event: consumers dedupe on the subject and its verified state (the settlement's id).
  expect(f.published[1].detail.settlement.id).toBe(f.published[0].detail.settlement.id);
  expect(f.counts[ProcessorMetric.RECOVERED]).toBeUndefined();
  expect(f.counts[ProcessorMetric.LOOKS_PAST_RECORDS]).toBeUndefined();
  expect(f.requeued).toEqual([]);
});

it('a notification of a 40-day-old settlement whose record expired (a late re-send, or a captured request posted again) publishes nothing, counted apart', async () => {
  const f = fakeDeps();
  await settledThenExpired(f, 40);
  await run(f, [sqsRecord('boleto', [boletoEvent('2001', 'LIQUIDACAO_PIX', '150.25')])]);
  expect(f.published).toHaveLength(1);
  expect(f.counts[ProcessorMetric.LOOKS_PAST_RECORDS]).toBe(1);
  expect(f.counts[ProcessorMetric.RECOVERED]).toBeUndefined();
  // The notification is handled and borne out (its trail says so): the state is recorded, nothing is published.
  const record = await f.deps.store.read(BOLETO);
  expect(record.trail?.filter((e) => e.kind === TrailEntryKind.NOTIFICATION)).toEqual([
    expect.objectContaining({ claim: 'LIQUIDACAO_PIX', matched: true }),
  ]);
});
