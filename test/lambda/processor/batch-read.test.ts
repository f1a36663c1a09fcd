/**
 * A batch reads its subjects in one request (the store's readMany, BatchGetItem on the table)
 * before its records are looked at, instead of one read each: fewer requests per event, and the
 * same guarantees, since every write is conditional on the version read.
 */
import { processBatch } from '../../../lambda/processor/batch';
import { BankEventDetailType as T } from '../../../contracts/events';
import { ProcessorMetric } from '../../../contracts/processor';
import type { SubjectRecord } from '../../../lambda/store/subject-store';
import { boletoEvent, contextWith, fakeDeps, pixPayment, sqsRecord } from '../../support/processor-records';

type Fakes = ReturnType<typeof fakeDeps>;
const run = (f: Fakes, records: ReturnType<typeof sqsRecord>[]) =>
  processBatch({ Records: records }, contextWith(f.clock), f.deps);
const subject = (nossoNumero: string) => `boleto:54321:${nossoNumero.padStart(9, '0')}`;

it('reads every subject of the batch in one request, and no subject again unless a write has to', async () => {
  const f = fakeDeps();
  const numbers = ['2001', '2002', '2003', '2004', '2005'];
  numbers.forEach((n) => f.bank.settle(n));
  f.bank.payments.set('E2E-READ-1', pixPayment('E2E-READ-1', 'EFETIVADO'));
  const result = await run(f, [
    ...numbers.map((n) => sqsRecord('boleto', boletoEvent(n))),
    sqsRecord('payments', pixPayment('E2E-READ-1', 'EFETIVADO')),
  ]);
  expect(result.batchItemFailures).toEqual([]);
  expect(f.store.manyReads).toEqual([[...numbers.map(subject), 'payment:pix:E2E-READ-1']]);
  expect(f.store.reads).toEqual([]);
  expect(f.published.map((e) => e.detailType).sort()).toEqual(
    [...Array(5).fill(T.BOLETO_SETTLED), T.PAYMENT_STATUS_VERIFIED].sort(),
  );
});

it("reads a subject two records name once together, and the second record's read on its own", async () => {
  const f = fakeDeps();
  f.bank.settle('2101');
  f.bank.settle('2102');
  const result = await run(f, [
    sqsRecord('boleto', boletoEvent('2101')),
    sqsRecord('boleto', boletoEvent('2101')),
    sqsRecord('boleto', boletoEvent('2102')),
  ]);
  expect(result.batchItemFailures).toEqual([]);
  expect(f.store.manyReads).toEqual([[subject('2101'), subject('2102')]]);
  expect(f.store.reads.filter((id) => id === subject('2101')).length).toBeGreaterThanOrEqual(1);
  expect(f.published.map((e) => e.detailType)).toEqual([T.BOLETO_SETTLED, T.BOLETO_SETTLED]);
});

it('publishes a change once when another invocation published it after the batch read its subject', async () => {
  const f = fakeDeps();
  f.bank.settle('2201');
  f.bank.settle('2202');
  // Another invocation, between the batch's read and this one's look, verifies and publishes 2201.
  const readMany = f.store.readMany.bind(f.store);
  const other = fakeDeps({ store: f.store, bank: f.bank, now: f.clock.now });
  let racedOnce = false;
  f.store.readMany = async (ids) => {
    const read: Map<string, SubjectRecord> = await readMany(ids);
    if (!racedOnce) {
      racedOnce = true;
      await processBatch({ Records: [sqsRecord('boleto', boletoEvent('2201'))] }, contextWith(f.clock), other.deps);
    }
    return read;
  };
  const result = await run(f, [
    sqsRecord('boleto', boletoEvent('2201', 'LIQUIDACAO_PIX', '150.25', { idEventoWebhook: 'another-id' })),
    sqsRecord('boleto', boletoEvent('2202')),
  ]);
  expect(result.batchItemFailures).toEqual([]);
  expect(other.published.map((e) => e.detail.subject.nossoNumero)).toEqual(['000002201']);
  // Its stale copy made its write lose; it read again, found the change published, and published nothing.
  expect(f.published.map((e) => e.detail.subject.nossoNumero)).toEqual(['000002202']);
  expect(f.store.records.get(subject('2201'))?.sequence).toBe(1);
  // ...and recorded this notification as handled, over the newer version.
  expect(f.store.records.get(subject('2201'))?.seen.some((seen) => seen.startsWith('another-id#'))).toBe(true);
});

it('reads each subject on its own when the batch read fails, with a warning, and loses nothing', async () => {
  const f = fakeDeps();
  f.bank.settle('2301');
  f.bank.settle('2302');
  f.store.readMany = () => Promise.reject(new Error('ProvisionedThroughputExceededException'));
  const result = await run(f, [sqsRecord('boleto', boletoEvent('2301')), sqsRecord('boleto', boletoEvent('2302'))]);
  expect(result.batchItemFailures).toEqual([]);
  expect(f.logs.filter((l) => l.level === 'WARN').map((l) => l.message)).toContain(
    "The batch's subjects could not be read in one request; each is read on its own",
  );
  expect(f.store.reads.sort()).toEqual([subject('2301'), subject('2302')]);
  expect(f.published).toHaveLength(2);
});

it('reads nothing ahead for a batch of one subject, and names no subject for a record it cannot read (its record quarantines it)', async () => {
  const f = fakeDeps();
  f.bank.settle('2401');
  await run(f, [
    sqsRecord('boleto', boletoEvent('2401')),
    { ...sqsRecord('boleto', boletoEvent('2401')), body: 'not a stored notification' },
  ]);
  expect(f.store.manyReads).toEqual([]);
  expect(f.store.reads).toEqual([subject('2401')]);
  expect(f.counts[ProcessorMetric.QUARANTINED]).toBe(1);
});
