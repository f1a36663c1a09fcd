/**
 * The inputs that are not the bank's own answer, tried as an adversary (or a careless producer)
 * would, over the local runner (the example stack's bundles, the simulator): Track Payment floods
 * from a named and an unnamed source, a Track Payment that beats the bank's own notification,
 * pending payments while processing is behind, and a listing that leaves `hasNext` out. Each ends
 * refused, collapsed or bounded, and no real change is lost or published twice.
 */
import { EventBridgeClient, PutEventsCommand, type PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { ProcessorMetric } from '../../../contracts/processor';
import { SweepMetric, TRACK_PAYMENT_DETAIL_TYPE } from '../../../contracts/reconciliation';
import type { RecordedEvent } from '../../../tools/local-aws/eventbridge-server';
import { LOCAL_AWS } from '../../../tools/local-aws/local-env';
import { HasNextType } from '../../../simulator/behaviour';
import { QueryOperation } from '../../../simulator/simulator';
import type { LocalRunner } from '../../../tools/local-runner/runner';
import { E2E_LISTING_PAGE_SIZE, useE2eRunner } from '../../support/e2e-runner';

jest.setTimeout(240_000);

const current = useE2eRunner();
let runner: LocalRunner;
beforeEach(() => {
  runner = current();
});

const statusesOf = (events: readonly RecordedEvent[]) =>
  events.map((e) => {
    const detail = e.detail as { subject: { id: string }; state: { status: string }; trigger: string };
    return [detail.subject.id, detail.state.status, detail.trigger];
  });
const paymentQueries = () => runner.simulator.queryCounts()[QueryOperation.PAYMENT_QUERY];

/** Puts Track Payment events on the receiver's bus, ten to a call, as the company's code would. */
async function trackPayments(
  idTransacao: string,
  count: number,
  source = 'acme.payments',
  paymentKind = 'pix',
): Promise<void> {
  const account = runner.simulator.accounts[0];
  const bus = new EventBridgeClient({
    region: LOCAL_AWS.region,
    credentials: LOCAL_AWS.credentials,
    endpoint: runner.events.endpoint,
  });
  const entry: PutEventsRequestEntry = {
    EventBusName: runner.deployment.eventBus,
    Source: source,
    DetailType: TRACK_PAYMENT_DETAIL_TYPE,
    Detail: JSON.stringify({
      paymentKind,
      idTransacao,
      account: { cooperativa: account.cooperativa, conta: account.conta },
    }),
  };
  try {
    for (let sent = 0; sent < count; sent += 10) {
      await bus.send(
        new PutEventsCommand({ Entries: Array.from({ length: Math.min(10, count - sent) }, () => entry) }),
      );
    }
  } finally {
    bus.destroy();
  }
}

it('asks the bank nothing for 100 Track Payment events naming a payment already final, and reads none from a source the stack does not name', async () => {
  const since = runner.checkpoint();
  const { payment } = await runner.control.createPayment({ tipo: 'pix', valor: 12 });
  await runner.settle(60_000);
  await runner.control.settlePayment('pix', payment.idTransacao);
  await runner.settle(60_000);
  expect(statusesOf(runner.verifiedEvents(since)).map(([, status]) => status)).toEqual(['RECEBIDO', 'EFETIVADO']);
  const before = paymentQueries();
  const skipped = runner.metricSum(ProcessorMetric.TRACK_PAYMENTS_SKIPPED);
  await trackPayments(payment.idTransacao, 100);
  // Another team's function, not named in trackPaymentSources: its events never reach the queue.
  await trackPayments('E-unknown-to-the-bank', 30, 'mallory.payments');
  await runner.settle(60_000);
  expect(paymentQueries() - before).toBe(0);
  expect(runner.metricSum(ProcessorMetric.TRACK_PAYMENTS_SKIPPED) - skipped).toBe(100);
  expect(runner.verifiedEvents(since)).toHaveLength(2);
  expect(runner.quarantined).toEqual([]);
});

it('collapses 30 Track Payment events for a payment the bank does not know into one query, asked again later, with nothing in the dead-letter queue meanwhile', async () => {
  const before = paymentQueries();
  const quarantinedBefore = runner.quarantined.length;
  await trackPayments('E-not-yet-at-the-bank', 30);
  // Wait for the first look (the rest collapse into it); its retry is 60 s away, longer than this test.
  for (let i = 0; i < 80 && runner.metricSum(ProcessorMetric.TRACK_PAYMENTS_UNKNOWN) === 0; i++)
    await new Promise((resolve) => setTimeout(resolve, 250));
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  expect(runner.metricSum(ProcessorMetric.TRACK_PAYMENTS_UNKNOWN)).toBeGreaterThanOrEqual(1);
  expect(paymentQueries() - before).toBe(1);
  await runner.readQuarantine();
  expect(runner.quarantined.length).toBe(quarantinedBefore);
  // The deferred look is not waited for: its queue is emptied for the tests after this one.
  await runner.purgeQueue();
});

it("publishes once, and counts nothing recovered, when a Track Payment beats the bank's own RECEBIDO notification", async () => {
  const since = runner.checkpoint();
  const recovered = runner.metricSum(ProcessorMetric.RECOVERED);
  await runner.control.setFaults({ deliveryDelayMs: 1_500 });
  const { payment } = await runner.control.createPayment({ tipo: 'pix', valor: 5 });
  await trackPayments(payment.idTransacao, 1);
  await runner.settle(60_000);
  // The grace period (2 s here) ends after the bank's notification came: nothing was lost.
  await new Promise((resolve) => setTimeout(resolve, 2_500));
  await runner.settle(60_000);
  expect(statusesOf(runner.verifiedEvents(since))).toEqual([
    [`payment:pix:${payment.idTransacao}`, 'RECEBIDO', 'reconciliation'],
  ]);
  expect(runner.metricSum(ProcessorMetric.RECOVERED) - recovered).toBe(0);
});

it('sends one look per pending payment however many sweeps run while processing is behind, and each reaches its final status once', async () => {
  const since = runner.checkpoint();
  const payments = [];
  for (let i = 0; i < 6; i++)
    payments.push((await runner.control.createPayment({ tipo: 'pix', valor: 30 + i })).payment);
  await runner.settle(60_000);
  await runner.pauseProcessing();
  const inFlight = runner.metricSum(SweepMetric.PAYMENT_LOOKS_IN_FLIGHT);
  const sent = [];
  try {
    await runner.control.setFaults({ loseDeliveries: true });
    for (const p of payments) await runner.control.settlePayment('pix', p.idTransacao);
    for (let i = 0; i < 4; i++) sent.push((await runner.sweep()).paymentsToVerify);
  } finally {
    runner.resumeProcessing();
  }
  // One look per pending payment (ours, and any an earlier test left pending), not four: the
  // later sweeps find each payment's look still in flight.
  expect(sent[0]).toBeGreaterThanOrEqual(6);
  expect(sent.slice(1)).toEqual([0, 0, 0]);
  expect(runner.metricSum(SweepMetric.PAYMENT_LOOKS_IN_FLIGHT) - inFlight).toBe(3 * sent[0]);
  await runner.control.clearFaults();
  await runner.settle(60_000);
  const finals = statusesOf(runner.verifiedEvents(since)).filter(([, status]) => status === 'EFETIVADO');
  expect(finals.map(([id]) => id).sort()).toEqual(payments.map((p) => `payment:pix:${p.idTransacao}`).sort());
  expect(new Set(finals.map(([, , trigger]) => trigger))).toEqual(new Set(['reconciliation']));
  // Ours are final: the next sweep sends looks only for what earlier tests left pending.
  expect((await runner.sweep()).paymentsToVerify).toBe(sent[0] - 6);
});

it('reads every page of a listing that leaves hasNext out (a full page means maybe more): 120 lost settlements, all published once, the sweep complete', async () => {
  await runner.control.setBehaviour({ listingHasNext: HasNextType.MISSING, listingPageSize: E2E_LISTING_PAGE_SIZE });
  await runner.sweep();
  await runner.settle(60_000);
  const since = runner.checkpoint();
  await runner.control.setFaults({ loseDeliveries: true });
  const boletos = await Promise.all(
    Array.from({ length: 120 }, (_, i) => runner.control.createBoleto({ valor: 40 + i })),
  );
  for (const boleto of boletos) await runner.control.settleBoleto(boleto.nossoNumero);
  await runner.control.clearFaults();
  const report = await runner.sweep();
  await runner.settle(120_000);
  expect(report.complete).toBe(true);
  const published = runner
    .verifiedEvents(since)
    .map((e) => (e.detail as { subject: { nossoNumero: string } }).subject.nossoNumero);
  expect(published.sort()).toEqual(boletos.map((b) => b.nossoNumero).sort());
});
