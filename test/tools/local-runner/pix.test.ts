/**
 * Pix received, verified, end to end over the local runner (issue 51): the simulator's provider
 * announces Pix to the stack's Pix API, the receiver stores each callback, and the processor
 * publishes each Pix only once the provider confirms it under the stack's own Pix credentials.
 * Every 200 is accounted for; each change is published once; another customer's Pix never is.
 */
import { BankEventDetailType as T } from '../../../contracts/events';
import { ProcessorMetric } from '../../../contracts/processor';
import { ReceiverMetric } from '../../../contracts/receiver';
import { RefundStatus } from '../../../contracts/pix';
import { LocalReceiverStack } from '../../../tools/local-runner/local-stack';
import { LocalRunner } from '../../../tools/local-runner/runner';

jest.setTimeout(120_000);

let runner: LocalRunner;
const PIX_TYPES: readonly string[] = [T.PIX_RECEIVED, T.PIX_REFUND];

beforeAll(async () => {
  runner = await LocalRunner.start({ stack: (app, id) => new LocalReceiverStack(app, id, { pix: true }) });
  // cdk deploy: the bank's registrations and each Pix key's webhook, through the registration handler.
  await runner.register();
});

afterAll(async () => {
  await runner?.stop();
});

/** The Pix events published since `from`, as `[detail type, end-to-end id, status]`. */
const pixEvents = (from = 0) =>
  runner.events.events
    .slice(from)
    .filter((e) => PIX_TYPES.includes(e.detailType))
    .map((e) => [e.detailType, e.detail.subject.endToEndId as string, e.detail.state.status as string]);

it("serves a Pix API of its own whose URL the provider calls with /pix appended, and registers each key's webhook to it at deploy", async () => {
  expect(runner.pixUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/prod$/);
  const state = await runner.control.pix.state();
  expect(state.keys.length).toBeGreaterThan(0);
  expect(Object.values(state.webhooks).map((w) => (w as { webhookUrl: string }).webhookUrl)).toEqual(
    state.keys.map(() => runner.pixUrl),
  );
  expect(
    runner
      .registered()
      .filter((r) => r.type === 'Custom::BankPixKeyWebhook')
      .map((r) => r.physicalResourceId),
  ).toEqual(state.keys.map((k) => `pix-webhook/${encodeURIComponent(k)}`));
});

it('publishes charges paid by Pix (immediate and with a due date), a static code, and three Pix of one key in one callback, once each', async () => {
  const from = runner.events.events.length;
  const tokensBefore = runner.simulator.apiCallCounts().token.calls;
  const [chave] = (await runner.control.pix.state()).keys;
  const cob = await runner.control.pix.createCharge({ valor: '110.00' });
  const cobv = await runner.control.pix.createCharge({ kind: 'cobv', valor: '75.50' });
  const paidCob = await runner.control.pix.payCharge(cob.txid, { infoPagador: 'pedido 42' });
  const paidCobv = await runner.control.pix.payCharge(cobv.txid);
  const staticCode = await runner.control.pix.payKey(chave, { valor: '9.90', txid: 'LOJA01' });
  const three = await runner.control.pix.payMany([1, 2, 3].map((i) => ({ chave, valor: `${i}.00`, txid: `QR${i}` })));
  expect(three.notificationIds).toHaveLength(1);
  expect(await runner.control.waitForDeliveries(20_000)).toBe(true);
  await runner.settle(30_000);
  const ids = [...paidCob.pix, ...paidCobv.pix, ...staticCode.pix, ...three.pix].map((p) => p.endToEndId);
  expect(
    pixEvents(from)
      .map(([type, id]) => [type, id])
      .sort(),
  ).toEqual(ids.map((id) => [T.PIX_RECEIVED, id]).sort());
  const byId = new Map(runner.events.events.slice(from).map((e) => [e.detail.subject.endToEndId as string, e.detail]));
  expect(byId.get(paidCob.pix[0].endToEndId)).toMatchObject({
    pix: { charge: { kind: 'cob', status: 'CONCLUIDA' }, infoPagador: 'pedido 42', amount: { cents: 11000 } },
  });
  expect(byId.get(paidCobv.pix[0].endToEndId)).toMatchObject({ pix: { charge: { kind: 'cobv' } } });
  expect(byId.get(staticCode.pix[0].endToEndId)?.pix.charge).toBeUndefined();
  // The processor keeps its Pix client (its token, its mutual-TLS connection) between invocations:
  // at most one token for each of its environments (two on the notification queue, one on the
  // look queue), however many callbacks come one after the other.
  for (let i = 0; i < 6; i++) {
    await runner.control.pix.payKey(chave, { valor: '1.00', txid: `ONEBYONE${i}` });
    await runner.settle(10_000);
  }
  expect(runner.simulator.apiCallCounts().token.calls - tokensBefore).toBeLessThanOrEqual(3);
});

it('publishes a refund returned and one not done, and none while a refund is in process', async () => {
  const from = runner.events.events.length;
  const [chave] = (await runner.control.pix.state()).keys;
  const paid = await runner.control.pix.payKey(chave, { valor: '50.00', txid: 'QRREFUND' });
  const e2e = paid.pix[0].endToEndId;
  const returned = await runner.control.pix.refund(e2e, { valor: '20.00' });
  const notDone = await runner.control.pix.refund(e2e, { valor: '5.00' });
  await runner.control.pix.settleRefund(e2e, returned.id, RefundStatus.RETURNED);
  await runner.control.pix.settleRefund(e2e, notDone.id, RefundStatus.NOT_DONE, 'saldo insuficiente');
  await runner.control.pix.refund(e2e, { valor: '1.00' });
  expect(await runner.control.waitForDeliveries(20_000)).toBe(true);
  await runner.settle(30_000);
  expect(pixEvents(from)).toEqual([
    [T.PIX_RECEIVED, e2e, 'RECEBIDO'],
    [T.PIX_REFUND, e2e, 'DEVOLVIDO'],
    [T.PIX_REFUND, e2e, 'NAO_REALIZADO'],
  ]);
});

it("drops another customer's Pix sent to our URL: counted, journaled, never published, nothing in the dead-letter queue", async () => {
  const from = runner.events.events.length;
  const foreignBefore = runner.metricSum(ProcessorMetric.FOREIGN);
  // Someone else's key, and a Pix under one of ours that our credentials do not see.
  await runner.control.pix.deliverForeign({ url: runner.pixUrl, chave: 'someone@else.example' });
  await runner.control.pix.deliverForeign({ url: runner.pixUrl, chave: (await runner.control.pix.state()).keys[0] });
  expect(await runner.control.waitForDeliveries(20_000)).toBe(true);
  await runner.settle(30_000);
  await runner.readQuarantine();
  expect(pixEvents(from)).toEqual([]);
  expect(runner.metricSum(ProcessorMetric.FOREIGN) - foreignBefore).toBe(2);
  expect(runner.quarantined).toEqual([]);
});

it('answers the validation call 200 and stores nothing; a duplicated callback is published once; a forged one costs a query, never an event', async () => {
  const from = runner.events.events.length;
  const enqueued = runner.counts().enqueuedMessages;
  await runner.control.pix.sendValidation({ url: runner.pixUrl });
  expect((await runner.postPix('{}', '')).status).toBe(200);
  expect(await runner.control.waitForDeliveries(20_000)).toBe(true);
  expect(runner.metricSum(ReceiverMetric.VALIDATION_CALLS)).toBeGreaterThanOrEqual(2);
  expect(runner.counts().enqueuedMessages).toBe(enqueued);

  await runner.control.setFaults({ duplicateDeliveries: 2 });
  const [chave] = (await runner.control.pix.state()).keys;
  const paid = await runner.control.pix.payKey(chave, { valor: '12.34', txid: 'QRDUP' });
  expect(await runner.control.waitForDeliveries(20_000)).toBe(true);
  await runner.control.clearFaults();
  const forged = await runner.postPix(
    JSON.stringify({
      pix: [
        {
          endToEndId: 'E99999999202611271200forged00001',
          txid: 'QRX',
          valor: '999.00',
          horario: '2026-11-27T12:00:00Z',
        },
      ],
    }),
  );
  expect(forged.status).toBe(200);
  await runner.settle(30_000);
  expect(pixEvents(from)).toEqual([[T.PIX_RECEIVED, paid.pix[0].endToEndId, 'RECEBIDO']]);
  const audit = runner.audit();
  expect(audit.problems).toEqual([]);
});

it('recovers lost callbacks with the daily Pix sweep, once each (a Pix and its refund, as a reconciliation); a sweep again and the late callback publish nothing; a Pix without a txid is not published', async () => {
  const from = runner.events.events.length;
  const recoveredBefore = runner.metricSum(ProcessorMetric.RECOVERED);
  const [chave] = (await runner.control.pix.state()).keys;
  await runner.control.setFaults({ loseDeliveries: true });
  const lost = await runner.control.pix.payKey(chave, { valor: '3.21', txid: 'QRLOST' });
  const e2e = lost.pix[0].endToEndId;
  const refund = await runner.control.pix.refund(e2e, { valor: '1.21' });
  await runner.control.pix.settleRefund(e2e, refund.id, RefundStatus.RETURNED);
  await runner.control.clearFaults();
  // A key typed in: no txid, so the standard announces nothing, and the sweep leaves it alone (pix.sweep.publishWithoutTxid).
  const typedIn = await runner.control.pix.payKey(chave, { valor: '7.00' });
  expect(typedIn.skipped).toHaveLength(1);
  await runner.settle(10_000);
  expect(pixEvents(from)).toEqual([]);

  const report = await runner.sweep();
  expect(report.complete).toBe(true);
  expect(report.days.filter((d) => d.listing === 'pix').map((d) => d.pages)).toEqual([1, 1, 1, 1]);
  await runner.settle(30_000);
  expect(pixEvents(from).sort()).toEqual([
    [T.PIX_RECEIVED, e2e, 'RECEBIDO'],
    [T.PIX_REFUND, e2e, 'DEVOLVIDO'],
  ]);
  expect([...new Set(runner.events.events.slice(from).map((e) => e.detail.trigger))]).toEqual(['reconciliation']);
  expect(runner.metricSum(ProcessorMetric.RECOVERED) - recoveredBefore).toBe(2);

  const again = runner.events.events.length;
  expect((await runner.sweep()).settlementsToVerify).toBe(0);
  // The provider delivers the callback after all: verified, nothing more published.
  expect((await runner.postPix(JSON.stringify({ pix: lost.pix }))).status).toBe(200);
  await runner.settle(30_000);
  expect(pixEvents(again)).toEqual([]);
  expect(runner.audit().problems).toEqual([]);
});

it("traces a Pix by its end-to-end id (its record, its trail, its raw callback), and reverify asks the provider again about the window's Pix without publishing twice", async () => {
  const [chave] = (await runner.control.pix.state()).keys;
  const paid = await runner.control.pix.payKey(chave, { valor: '4.56', txid: 'QRTRACE' });
  const e2e = paid.pix[0].endToEndId;
  expect(await runner.control.waitForDeliveries(20_000)).toBe(true);
  await runner.settle(30_000);
  const trace = await runner.operate(['trace', e2e]);
  expect(trace.status).toBe(0);
  expect(trace.out).toContain(`Subject pix:${e2e}`);
  expect(trace.out).toMatch(/verified state\s+RECEBIDO \(settled\), 4\.56/);
  expect(trace.out).toMatch(new RegExp(`published\\s+Pix Received #1 \\(pix:${e2e}#1:settled:456\\)`));
  expect(trace.out).toMatch(/Raw notifications \(1\):/);

  const from = runner.events.events.length;
  const foreignBefore = runner.metricSum(ProcessorMetric.FOREIGN);
  const hourAgo = new Date(Date.now() - 3_600_000).toISOString();
  const reverify = await runner.operate([
    'reverify',
    '--from',
    hourAgo,
    '--to',
    new Date(Date.now() + 60_000).toISOString(),
  ]);
  expect(reverify.status).toBe(0);
  expect(reverify.out).toMatch(/pix:/);
  await runner.settle(30_000);
  // Every Pix of the window looked at again: nothing new is published, another customer's still dropped.
  expect(pixEvents(from)).toEqual([]);
  expect(runner.metricSum(ProcessorMetric.FOREIGN)).toBeGreaterThan(foreignBefore);
});

it("removes each key's webhook at destroy (it is still ours)", async () => {
  await runner.unregister();
  expect((await runner.control.pix.state()).webhooks).toEqual([]);
});

describe('the registration watch over the keys', () => {
  let watched: LocalRunner;

  afterAll(async () => {
    await watched?.stop();
  });

  it("alarms when the provider drops a key's webhook on its own, and, when asked, puts it back", async () => {
    watched = await LocalRunner.start({
      stack: (app, id) =>
        new LocalReceiverStack(app, id, { pix: true, receiver: { reconciliation: { repairRegistrations: true } } }),
    });
    await watched.register();
    const [chave] = (await watched.control.pix.state()).keys;
    let findings = (await watched.sweep()).registrations ?? [];
    expect(findings.filter((f) => f.registration.startsWith('pix ')).map((f) => f.state)).toEqual(
      (await watched.control.pix.state()).keys.map(() => 'in-sync'),
    );
    await watched.control.pix.dropWebhook(chave);
    findings = (await watched.sweep()).registrations ?? [];
    expect(findings.find((f) => f.registration === `pix ${chave}`)).toMatchObject({
      state: 'repaired',
      drift: ['missing'],
      repaired: true,
    });
    expect((await watched.control.pix.state()).webhooks.find((w) => w.chave === chave)?.webhookUrl).toBe(
      watched.pixUrl,
    );
    expect(watched.metricSum('RegistrationDrift')).toBeGreaterThanOrEqual(1);
  });
});
