/**
 * The processor bundle exactly as deployed (dist/handlers/processor/index.js), fed by an event
 * source that behaves like Lambda's SQS mapping, against the bank simulator over HTTPS (mutual
 * TLS for the payments API), fauxqs, dynalite and a local EventBridge.
 */
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { drainQueue } from '../../../tools/local-aws/fauxqs';
import { ProcessorHarness } from '../../support/processor-harness';
import { BankEventDetailType as T, QuarantineAttribute } from '../../../lambda/shared/processor-contract';
import { captureOutput } from '../../support/load-handler';

let h: ProcessorHarness;

beforeAll(async () => {
  h = await ProcessorHarness.start();
});

afterAll(async () => {
  await h?.stop();
});

beforeEach(async () => {
  h.events.clear();
  await h.control.clearFaults();
});

async function settledBoleto(valor = '150.25') {
  const boleto = await h.control.createBoleto({ valor });
  const change = await h.control.settleBoleto(boleto.nossoNumero);
  return { nossoNumero: boleto.nossoNumero, notification: change.notification as Record<string, unknown> };
}

it('publishes exactly one Boleto Settled for a settled boleto, with the verified answer', async () => {
  const { nossoNumero, notification } = await settledBoleto();
  await h.enqueue('boleto', notification, 'req-settled');
  await h.drain();

  expect(h.events.events).toHaveLength(1);
  const [event] = h.events.events;
  expect(event).toMatchObject({ source: 'cdk-bank-webhooks', detailType: T.BOLETO_SETTLED });
  expect(event.detail).toMatchObject({
    idempotencyKey: `boleto-event:${String(notification.idEventoWebhook)}`,
    matchesNotification: true,
    mismatches: [],
    status: 'LIQUIDADO',
    statusClass: 'settled',
    boleto: { nossoNumero, movimento: 'LIQUIDACAO_PIX', codigoBeneficiario: '54321' },
    verified: { nossoNumero, situacao: 'LIQUIDADO', dadosLiquidacao: { valor: '150.25' } },
    notification,
    requestId: 'req-settled',
    attempt: 1,
  });
  expect(await h.queueDepth(h.dlqUrl)).toBe(0);
});

it('publishes one event when the same boleto event is delivered three times', async () => {
  const { notification } = await settledBoleto('99.90');
  for (let i = 0; i < 3; i++) await h.enqueue('boleto', notification);
  const { output } = await captureOutput(() => h.drain());

  expect(h.events.ofType(T.BOLETO_SETTLED)).toHaveLength(1);
  expect(output.match(/Duplicate suppressed/g)).toHaveLength(2);
});

it('quarantines a body that is not JSON in the DLQ with its reason', async () => {
  const id = await h.enqueue('boleto', 'this is {not json');
  await h.drain();

  expect(h.events.events).toHaveLength(0);
  const [message] = await drainQueue(h.sqs, h.dlqUrl);
  expect(message.MessageAttributes?.[QuarantineAttribute.REASON]?.StringValue).toMatch(/not JSON/);
  expect(message.MessageAttributes?.[QuarantineAttribute.SOURCE_MESSAGE_ID]?.StringValue).toBe(id);
});

it('publishes a reversal as Boleto Settlement Reversed after the settlement', async () => {
  const { nossoNumero, notification } = await settledBoleto('80.00');
  await h.enqueue('boleto', notification);
  await h.drain();
  const reversal = await h.control.reverseBoleto(nossoNumero);
  await h.enqueue('boleto', reversal.notification);
  await h.drain();

  expect(h.events.events.map((e) => e.detailType)).toEqual([T.BOLETO_SETTLED, T.BOLETO_SETTLEMENT_REVERSED]);
  expect(h.events.events[1].detail).toMatchObject({
    matchesNotification: true, status: 'EM CARTEIRA', statusClass: 'open',
    boleto: { nossoNumero, movimento: 'ESTORNO_LIQUIDACAO_REDE' }, verified: { dadosLiquidacao: null },
  });
});

it('publishes a reversal that arrives before its settlement, and what the bank says about the settlement after the last attempt', async () => {
  const { nossoNumero, notification: settlement } = await settledBoleto('61.00');
  const reversal = await h.control.reverseBoleto(nossoNumero);
  await h.enqueue('boleto', reversal.notification);
  await h.enqueue('boleto', settlement);
  await h.drain();

  expect(h.events.events.map((e) => e.detailType).sort()).toEqual([T.BOLETO_NOT_CONFIRMED, T.BOLETO_SETTLEMENT_REVERSED]);
  // The settlement is never published as settled: the bank says the boleto is open.
  expect(h.events.ofType(T.BOLETO_NOT_CONFIRMED)[0].detail).toMatchObject({
    matchesNotification: false,
    status: 'EM CARTEIRA',
    mismatches: ['LIQUIDACAO_PIX needs a settled boleto, the bank says situacao "EM CARTEIRA" (open)'],
    attempt: 2,
    notification: settlement,
  });
  expect(h.events.ofType(T.BOLETO_SETTLED)).toHaveLength(0);
});

it('publishes written-off and rejected boletos', async () => {
  const a = await h.control.createBoleto({ valor: '10.00' });
  const b = await h.control.createBoleto({ valor: '11.00' });
  await h.enqueue('boleto', (await h.control.cancelBoleto(a.nossoNumero)).notification);
  await h.enqueue('boleto', (await h.control.rejectBoleto(b.nossoNumero)).notification);
  await h.drain();
  expect(h.events.events.map((e) => [e.detailType, (e.detail.boleto as { nossoNumero: string }).nossoNumero]).sort()).toEqual([
    [T.BOLETO_REJECTED, b.nossoNumero], [T.BOLETO_WRITTEN_OFF, a.nossoNumero],
  ].sort());
});

it('verifies Pix statuses over mutual TLS: one event per verified status, duplicates suppressed', async () => {
  const received = await h.control.createPayment({ tipo: 'pix', valor: '33.10' });
  const id = received.payment.idTransacao;
  await h.enqueue('payments', received.payment);
  await h.drain();
  const settled = await h.control.settlePayment('pix', id);
  await h.enqueue('payments', settled.payment);
  await h.enqueue('payments', settled.payment);
  await h.drain();

  const events = h.events.ofType(T.PAYMENT_STATUS_VERIFIED);
  expect(events.map((e) => [e.detail.status, e.detail.statusClass, e.detail.idempotencyKey])).toEqual([
    ['RECEBIDO', 'pending', `payment:pix:${id}:RECEBIDO`],
    ['EFETIVADO', 'settled', `payment:pix:${id}:EFETIVADO`],
  ]);
  expect(events[1].detail).toMatchObject({ matchesNotification: true, payment: { type: 'pix', idTransacao: id, notifiedStatus: 'EFETIVADO' }, verified: { status: 'EFETIVADO', valorPagamento: '33.10' } });
});

it('verifies paid boletos and tax payments, including a rejection', async () => {
  const boleto = await h.control.createPayment({ tipo: 'boleto', valor: '500.00' });
  const tax = await h.control.createPayment({ tipo: 'tributos', valor: '120.45' });
  await h.enqueue('payments', (await h.control.settlePayment('boleto', boleto.payment.idTransacao)).payment);
  await h.enqueue('payments', (await h.control.rejectPayment('tributos', tax.payment.idTransacao, { motivo: 'Saldo insuficiente' })).payment);
  await h.drain();

  const byType = Object.fromEntries(h.events.events.map((e) => [(e.detail.payment as { type: string }).type, e.detail]));
  expect(byType.boleto).toMatchObject({ status: 'EFETIVADO', statusClass: 'settled', matchesNotification: true });
  expect(byType.tributos).toMatchObject({ status: 'REJEITADO', statusClass: 'rejected', verified: { motivoRejeicao: 'Saldo insuficiente' } });
});

it('retries a payment notification the query does not reflect yet, and publishes once it does', async () => {
  const created = await h.control.createPayment({ tipo: 'pix', valor: '20.00' });
  const id = created.payment.idTransacao;
  // The notification says EFETIVADO before the bank's query does.
  await h.enqueue('payments', { ...created.payment, status: 'EFETIVADO' });
  const first = await h.source.pollOnce(1);
  expect(first).toMatchObject({ received: 1, failed: 1 });
  expect(h.events.events).toHaveLength(0);

  await h.control.settlePayment('pix', id);
  await h.drain();
  expect(h.events.events).toHaveLength(1);
  expect(h.events.events[0].detail).toMatchObject({ status: 'EFETIVADO', matchesNotification: true, attempt: 2 });
});

it('retries after a PutEvents partial failure and publishes exactly one event', async () => {
  const { notification } = await settledBoleto('12.34');
  h.events.failNextEntries(1);
  await h.enqueue('boleto', notification);
  const first = await h.source.pollOnce(1);
  expect(first).toMatchObject({ received: 1, failed: 1 });
  expect(h.events.events).toHaveLength(0);

  await h.drain();
  expect(h.events.ofType(T.BOLETO_SETTLED)).toHaveLength(1);
  expect(h.events.events[0].detail).toMatchObject({ attempt: 2 });
});

it('yields one event when two processor instances race on the same change', async () => {
  const { notification } = await settledBoleto('7.77');
  for (let i = 0; i < 4; i++) await h.enqueue('boleto', notification);
  const other = h.eventSource(h.loadInstance(), 1);
  const mine = h.eventSource(h.handler, 1);
  await Promise.all([h.drain(30_000, mine), h.drain(30_000, other)]);
  expect(h.events.ofType(T.BOLETO_SETTLED)).toHaveLength(1);
});

it('settles a duplicate that races the original inside the invocation: no record waits for the visibility timeout', async () => {
  const { notification } = await settledBoleto('8.88');
  await h.enqueue('boleto', notification);
  await h.enqueue('boleto', notification);
  // A slow query keeps the first copy IN_PROGRESS while the second arrives in another instance.
  await h.control.setFaults({ api: [{ scope: 'query', delayMs: 400 }] });
  const [first, second] = [h.eventSource(h.handler, 1), h.eventSource(h.loadInstance(), 1)];
  const results = await Promise.all([first.pollOnce(1), second.pollOnce(1)]);

  expect(results.map((r) => [r.received, r.failed])).toEqual([[1, 0], [1, 0]]);
  expect(h.events.ofType(T.BOLETO_SETTLED)).toHaveLength(1);
  expect(await h.queueDepth()).toBe(0);
});

it('publishes the good events of an array and quarantines the message with the bad one\'s reason', async () => {
  const { notification } = await settledBoleto('5.00');
  const bad = { ...notification, idEventoWebhook: 'bad-1', movimento: 'PROTESTO' };
  const id = await h.enqueue('boleto', [notification, bad]);
  await h.drain();

  expect(h.events.ofType(T.BOLETO_SETTLED)).toHaveLength(1);
  const [message] = await drainQueue(h.sqs, h.dlqUrl);
  expect(message.MessageAttributes?.[QuarantineAttribute.REASON]?.StringValue).toBe(
    'boleto event 1: movimento "PROTESTO" is not a known settlement, reversal, write-off or rejection (configure boletoMovements to add it)',
  );
  expect(message.MessageAttributes?.[QuarantineAttribute.SOURCE_MESSAGE_ID]?.StringValue).toBe(id);
  // Redriving it later publishes nothing twice.
  await h.sqs.send(new SendMessageCommand({ QueueUrl: h.queueUrl, MessageBody: message.Body! }));
  await h.drain();
  expect(h.events.ofType(T.BOLETO_SETTLED)).toHaveLength(1);
  await drainQueue(h.sqs, h.dlqUrl);
});

it.each([
  ['a payment body that is no payment', 'payments', { idTransacao: 'x', status: 'EFETIVADO' }, /not recognisably a Pix, boleto or tax payment/],
  ['a message the receiver did not write', 'raw', 'hello', /not JSON: it was not written by the BankWebhookReceiver receiver/],
])('quarantines %s with the reason, publishing nothing', async (_name, route, body, reason) => {
  if (route === 'raw') await h.sqs.send(new SendMessageCommand({ QueueUrl: h.queueUrl, MessageBody: body as string }));
  else await h.enqueue(route as 'payments', body);
  const { output } = await captureOutput(() => h.drain());

  expect(h.events.events).toHaveLength(0);
  const [message] = await drainQueue(h.sqs, h.dlqUrl);
  expect(message.MessageAttributes?.[QuarantineAttribute.REASON]?.StringValue).toMatch(reason);
  expect(output).toContain('"NotificationsQuarantined"');
  expect(output).toMatch(/"level":"ERROR","message":"Notification quarantined in the dead-letter queue"/);
});

it('quarantines a boleto event the bank never knows, after the last attempt', async () => {
  const { notification } = await settledBoleto('3.00');
  await h.enqueue('boleto', { ...notification, nossoNumero: '999999999', idEventoWebhook: 'ghost-1' });
  await h.drain();
  expect(h.events.events).toHaveLength(0);
  const [message] = await drainQueue(h.sqs, h.dlqUrl);
  expect(message.MessageAttributes?.[QuarantineAttribute.REASON]?.StringValue).toContain('the bank\'s query does not know it after every verification attempt: boleto query (nossoNumero 999999999) failed with HTTP 404');
});

it('never logs a credential, and its logs carry no notification bodies', async () => {
  const { notification } = await settledBoleto('1.00');
  const { output } = await captureOutput(async () => {
    await h.enqueue('boleto', notification);
    await h.drain();
  });
  const c = h.simulator.credentials;
  for (const secret of [c.collection.apiKey, c.collection.password, c.payments.clientSecret]) expect(output).not.toContain(secret);
  expect(output).toContain('Verified event published');
  // Ids and statuses, not the body: none of the notification's other fields is logged.
  for (const field of ['valorLiquidacao', 'carteira', 'dataEvento', String(notification.carteira)]) expect(output).not.toContain(field);
});
