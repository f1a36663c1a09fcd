/**
 * A settlement's bank day end to end, when the bank writes its query's timestamps otherwise than
 * the stack reads them: the simulator writes `dadosLiquidacao.data` as the bank's local time with
 * a Z, the stack reads a Z as UTC (its default), and the bank's clock is at 01:30 in São Paulo,
 * where the two readings put a settlement on different days. Each settlement is still published
 * once; the one a webhook already published costs the sweep no query; the difference is counted
 * where an operator can see it.
 */
import { BankEventDetailType as T } from '../../../contracts/events';
import { ProcessorMetric } from '../../../contracts/processor';
import { SweepMetric } from '../../../contracts/reconciliation';
import { SettlementTimestamp } from '../../../simulator/behaviour';
import { QueryOperation } from '../../../simulator/simulator';
import type { LocalRunner } from '../../../tools/local-runner/runner';
import { startE2eRunner, stopE2eRunner } from '../../support/e2e-runner';

jest.setTimeout(180_000);

let runner: LocalRunner;

beforeAll(async () => {
  runner = await startE2eRunner();
});

afterAll(() => stopE2eRunner(runner));

it('publishes each settlement once, queries nothing for the one already published, and counts both days that differ', async () => {
  await runner.control.setBehaviour({ settlementTimestamp: SettlementTimestamp.BANK_LOCAL });
  // The bank's clock to the next 01:30 in São Paulo (04:30 UTC).
  const now = Date.now();
  const target = new Date(now);
  target.setUTCHours(4, 30, 0, 0);
  if (target.getTime() <= now) target.setUTCDate(target.getUTCDate() + 1);
  const { offsetSeconds } = await runner.control.advanceClock((target.getTime() - now) / 1000);
  const bankNow = () => new Date(Date.now() + offsetSeconds * 1000);
  const dayBefore = new Date(target.getTime() - 86_400_000).toISOString().slice(0, 10);

  // One settlement delivered (published from its webhook), one the bank loses.
  const delivered = await runner.control.createBoleto({ valor: '31.00' });
  await runner.control.settleBoleto(delivered.nossoNumero);
  await runner.settle(60_000);
  await runner.control.setFaults({ loseDeliveries: true });
  const lost = await runner.control.createBoleto({ valor: '32.00' });
  await runner.control.settleBoleto(lost.nossoNumero);
  await runner.control.clearFaults();
  const since = runner.checkpoint();
  const queriesBefore = runner.simulator.queryCounts()[QueryOperation.BOLETO_QUERY];

  const report = await runner.sweep(bankNow());
  await runner.settle(60_000);

  // The delivered one: the record holds it on the day before (the query's day, read as UTC): no query.
  expect(report.settlementsToVerify).toBe(1);
  expect(runner.simulator.queryCounts()[QueryOperation.BOLETO_QUERY] - queriesBefore).toBe(1);
  const recovered = runner.verifiedEvents().slice(since.events);
  expect(
    recovered.map((e) => [e.detailType, (e.detail as { subject: { nossoNumero: string } }).subject.nossoNumero]),
  ).toEqual([[T.BOLETO_SETTLED, lost.nossoNumero]]);
  expect((recovered[0].detail as { settlement: { id: string } }).settlement.id).toBe(`${dayBefore}:3200`);
  // Both differences counted under the one metric name: the sweep's (a record already holding
  // it) and the processor's (the look the sweep asked).
  expect(SweepMetric.SETTLEMENT_DAY_MISMATCH).toBe(ProcessorMetric.SETTLEMENT_DAY_MISMATCH);
  expect(runner.counts().metrics[ProcessorMetric.SETTLEMENT_DAY_MISMATCH]).toBe(2);
  expect(runner.audit(since).problems).toEqual([]);
});
