/**
 * The processor bundle exactly as deployed (dist/handlers/processor/index.js), fed by an event
 * source that behaves like Lambda's SQS mapping, against the bank simulator over HTTPS (mutual
 * TLS for the payments API), fauxqs, dynalite and a local EventBridge.
 */
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { encodeStoredNotification } from '../../../lambda/store/stored-notification';
import { drainQueue } from '../../../tools/local-aws/fauxqs';
import { ProcessorHarness } from '../../support/processor-harness';
import { BankEventDetailType as T } from '../../../contracts/events';
import { QuarantineAttribute } from '../../../contracts/processor';
import { captureOutput, jsonLogLines } from '../../support/load-handler';

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
    version: '3',
    idempotencyKey: expect.stringMatching(
      new RegExp(`^boleto:54321:${nossoNumero}#1:settled:\\d{4}-\\d{2}-\\d{2}:15025$`),
    ),
    trigger: 'webhook',
    account: { cooperativa: '0101', posto: '02', codigoBeneficiario: '54321' },
    subject: {
      kind: 'boleto',
      id: `boleto:54321:${nossoNumero}`,
      sequence: 1,
      nossoNumero,
      codigoBeneficiario: '54321',
    },
    state: { status: 'LIQUIDADO PIX', statusClass: 'settled' },
    settlement: { amount: { cents: 15025, decimal: '150.25' } },
    matchesNotification: true,
    mismatches: [],
    // The manual's flat answer, as the bank gave it.
    bankAnswer: { nossoNumero, situacao: 'LIQUIDADO PIX', valorNominal: 150.25, dadosLiquidacao: { valor: 150.25 } },
    notification: {
      requestId: 'req-settled',
      id: notification.idEventoWebhook,
      claim: { status: 'LIQUIDACAO_PIX', statusClass: 'settled' },
      body: notification,
    },
    attempt: 1,
  });
  expect(event.detail.settlement.date).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}-03:00$/);
  expect(await h.queueDepth(h.dlqUrl)).toBe(0);
});

it('publishes one event when the same boleto event is delivered three times', async () => {
  const { notification } = await settledBoleto('99.90');
  for (let i = 0; i < 3; i++) await h.enqueue('boleto', notification);
  const { output } = await captureOutput(() => h.drain());

  expect(h.events.ofType(T.BOLETO_SETTLED)).toHaveLength(1);
  expect(output.match(/Duplicate suppressed/g)).toHaveLength(2);
});

it('publishes nothing more for a settlement announced again under new notification ids (re-sent or forged)', async () => {
  const { notification } = await settledBoleto('42.00');
  await h.enqueue('boleto', notification);
  await h.drain();
  for (let i = 0; i < 5; i++) await h.enqueue('boleto', { ...notification, idEventoWebhook: `again-${i}` });
  await h.enqueue(
    'boleto',
    Array.from({ length: 20 }, (_, i) => ({ ...notification, idEventoWebhook: `forged-${i}` })),
  );
  await h.drain();
  expect(h.events.events.map((e) => e.detailType)).toEqual([T.BOLETO_SETTLED]);
  expect(await h.queueDepth(h.dlqUrl)).toBe(0);
});

it("gives settle → reverse → settle again three events, ordered by the subject's sequence", async () => {
  const { nossoNumero, notification } = await settledBoleto('55.00');
  await h.enqueue('boleto', notification);
  await h.drain();
  await h.enqueue('boleto', (await h.control.reverseBoleto(nossoNumero)).notification);
  await h.drain();
  await h.enqueue('boleto', (await h.control.settleBoleto(nossoNumero, { valor: '55.00' })).notification);
  await h.drain();
  expect(h.events.events.map((e) => [e.detailType, e.detail.subject.sequence])).toEqual([
    [T.BOLETO_SETTLED, 1],
    [T.BOLETO_SETTLEMENT_REVERSED, 2],
    [T.BOLETO_SETTLED, 3],
  ]);
  expect(h.events.events[1].detail.reverses).toEqual(h.events.events[0].detail.settlement);
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
    matchesNotification: true,
    state: { status: 'EM CARTEIRA', statusClass: 'open' },
    subject: { nossoNumero, sequence: 2 },
    notification: { claim: { status: 'ESTORNO_LIQUIDACAO_REDE' } },
    bankAnswer: { nossoNumero, situacao: 'EM CARTEIRA' },
  });
  expect(h.events.events[1].detail.bankAnswer).not.toHaveProperty('dadosLiquidacao');
});

it('publishes nothing financial for a settlement reversed before either was verified, and records the settlement as not confirmed', async () => {
  const { nossoNumero, notification: settlement } = await settledBoleto('61.00');
  const reversal = await h.control.reverseBoleto(nossoNumero);
  await h.enqueue('boleto', reversal.notification);
  await h.enqueue('boleto', settlement);
  await h.drain();

  // The bank shows the boleto open and nothing was published as settled: nothing to reverse, and
  // the settlement is never published as settled.
  expect(h.events.events.map((e) => e.detailType)).toEqual([T.NOTIFICATION_NOT_CONFIRMED]);
  expect(h.events.ofType(T.NOTIFICATION_NOT_CONFIRMED)[0].detail).toMatchObject({
    matchesNotification: false,
    state: { status: 'EM CARTEIRA', statusClass: 'open' },
    mismatches: ['LIQUIDACAO_PIX needs a settled boleto, the bank says situacao "EM CARTEIRA" (open)'],
    attempt: 2,
    notification: { body: settlement },
  });
  expect(h.events.ofType(T.BOLETO_SETTLED)).toHaveLength(0);
});

it('publishes written-off and rejected boletos', async () => {
  const a = await h.control.createBoleto({ valor: '10.00' });
  const b = await h.control.createBoleto({ valor: '11.00' });
  await h.enqueue('boleto', (await h.control.cancelBoleto(a.nossoNumero)).notification);
  await h.enqueue('boleto', (await h.control.rejectBoleto(b.nossoNumero)).notification);
  await h.drain();
  expect(h.events.events.map((e) => [e.detailType, e.detail.subject.nossoNumero]).sort()).toEqual(
    [
      [T.BOLETO_REJECTED, b.nossoNumero],
      [T.BOLETO_WRITTEN_OFF, a.nossoNumero],
    ].sort(),
  );
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
  expect(events.map((e) => [e.detail.state.status, e.detail.state.statusClass, e.detail.idempotencyKey])).toEqual([
    ['RECEBIDO', 'pending', `payment:pix:${id}#1:RECEBIDO`],
    ['EFETIVADO', 'settled', `payment:pix:${id}#2:EFETIVADO`],
  ]);
  expect(events[1].detail).toMatchObject({
    matchesNotification: true,
    account: { cooperativa: '0101', conta: '123456' },
    subject: { kind: 'payment', paymentKind: 'pix', idTransacao: id, sequence: 2 },
    state: { amount: { cents: 3310, decimal: '33.10' } },
    previousState: { status: 'RECEBIDO' },
    bankAnswer: { status: 'EFETIVADO', valorPagamento: '33.10' },
  });
});

it('publishes a Pix as settled when its EFETIVADO notification was lost: the late look at RECEBIDO finds it paid', async () => {
  const received = await h.control.createPayment({ tipo: 'pix', valor: '18.00' });
  await h.control.settlePayment('pix', received.payment.idTransacao);
  // Only the RECEBIDO notification reaches the queue.
  await h.enqueue('payments', received.payment);
  await h.drain();
  expect(
    h.events.events.map((e) => [
      e.detailType,
      e.detail.state.status,
      e.detail.state.statusClass,
      e.detail.matchesNotification,
    ]),
  ).toEqual([[T.PAYMENT_STATUS_VERIFIED, 'EFETIVADO', 'settled', false]]);
});

it('verifies paid boletos and tax payments, including a rejection', async () => {
  const boleto = await h.control.createPayment({ tipo: 'boleto', valor: '500.00' });
  const tax = await h.control.createPayment({ tipo: 'tributos', valor: '120.45' });
  await h.enqueue('payments', (await h.control.settlePayment('boleto', boleto.payment.idTransacao)).payment);
  await h.enqueue(
    'payments',
    (await h.control.rejectPayment('tributos', tax.payment.idTransacao, { motivo: 'Saldo insuficiente' })).payment,
  );
  await h.drain();

  const byType = Object.fromEntries(h.events.events.map((e) => [e.detail.subject.paymentKind, e.detail]));
  expect(byType.boleto).toMatchObject({
    state: { status: 'EFETIVADO', statusClass: 'settled' },
    matchesNotification: true,
  });
  expect(byType.tributos).toMatchObject({
    state: { status: 'REJEITADO', statusClass: 'rejected' },
    bankAnswer: { motivoRejeicao: 'Saldo insuficiente' },
  });
});

it('publishes what the bank shows at once, and looks again until it shows what the notification claims', async () => {
  const created = await h.control.createPayment({ tipo: 'pix', valor: '20.00' });
  const id = created.payment.idTransacao;
  // The notification says EFETIVADO before the bank's query does.
  await h.enqueue('payments', { ...created.payment, status: 'EFETIVADO' });
  const first = await h.source.pollOnce(1);
  expect(first).toMatchObject({ received: 1, failed: 1 });
  // RECEBIDO was not published yet: it is the bank's state, so it is published now.
  expect(h.events.events.map((e) => [e.detail.state.status, e.detail.matchesNotification])).toEqual([
    ['RECEBIDO', false],
  ]);

  await h.control.settlePayment('pix', id);
  await h.drain();
  expect(h.events.events).toHaveLength(2);
  expect(h.events.events[1].detail).toMatchObject({
    state: { status: 'EFETIVADO' },
    matchesNotification: true,
    attempt: 2,
    subject: { sequence: 2 },
  });
});

it('sends again an entry PutEvents did not accept, inside the invocation, and publishes exactly one event', async () => {
  const { notification } = await settledBoleto('12.34');
  h.events.failNextEntries(1);
  await h.enqueue('boleto', notification);
  expect(await h.source.pollOnce(1)).toMatchObject({ received: 1, failed: 0 });
  expect(h.events.ofType(T.BOLETO_SETTLED)).toHaveLength(1);
});

it('retries a record whose events EventBridge keeps refusing, and publishes exactly one event once it accepts', async () => {
  const { notification } = await settledBoleto('12.35');
  h.events.failNextEntries(3);
  await h.enqueue('boleto', notification);
  const first = await h.source.pollOnce(1);
  expect(first).toMatchObject({ received: 1, failed: 1 });
  expect(h.events.events).toHaveLength(0);

  await h.drain();
  // The event written with the state on the first receive is the one published.
  expect(h.events.ofType(T.BOLETO_SETTLED)).toHaveLength(1);
  expect(h.events.events[0].detail).toMatchObject({ attempt: 1, subject: { sequence: 1 } });
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

  expect(results.map((r) => [r.received, r.failed])).toEqual([
    [1, 0],
    [1, 0],
  ]);
  expect(h.events.ofType(T.BOLETO_SETTLED)).toHaveLength(1);
  expect(await h.queueDepth()).toBe(0);
});

it("publishes the good events of an array and quarantines the message with the bad one's reason", async () => {
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
  [
    'a payment body that is no payment',
    'payments',
    { idTransacao: 'x', status: 'EFETIVADO' },
    /not recognisably a Pix, boleto or tax payment/,
  ],
  [
    'a message the receiver did not write',
    'raw',
    'hello',
    /not JSON: it was not written by the BankWebhookReceiver receiver/,
  ],
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
  expect(message.MessageAttributes?.[QuarantineAttribute.REASON]?.StringValue).toContain(
    "the bank's query refuses it after every verification attempt: boleto query (nossoNumero 999999999) failed with HTTP 404",
  );
});

it("never publishes another beneficiary's settled boleto notified on our route", async () => {
  const theirs = await h.control.createBoleto({ valor: '70.00', beneficiario: '99999' });
  const change = await h.control.settleBoleto(theirs.nossoNumero);
  const named = change.notification as Record<string, unknown>;
  const { beneficiario: _b, ...unnamed } = named;
  await h.enqueue('boleto', named);
  await h.enqueue('boleto', { ...unnamed, idEventoWebhook: 'unnamed-1' });
  await h.drain();
  expect(h.events.events).toEqual([]);
  const reasons = (await drainQueue(h.sqs, h.dlqUrl))
    .map((m) => m.MessageAttributes?.[QuarantineAttribute.REASON]?.StringValue)
    .sort();
  expect(reasons).toEqual([
    `boleto event ${String(named.idEventoWebhook)} names beneficiary 99999, not this receiver's 54321: it is not ours to verify`,
    // Asked about our beneficiary only, the bank does not know the boleto.
    expect.stringContaining(`the bank's query refuses it after every verification attempt`),
  ]);
});

it('never logs a credential, and its logs carry no notification bodies', async () => {
  const { notification } = await settledBoleto('1.00');
  const { output } = await captureOutput(async () => {
    await h.enqueue('boleto', notification);
    await h.drain();
  });
  const c = h.simulator.credentials;
  for (const secret of [c.collection.apiKey, c.collection.password, c.payments.clientSecret])
    expect(output).not.toContain(secret);
  expect(output).toContain('Verified event published');
  // Ids and statuses, not the body: none of the notification's other fields is logged.
  for (const field of ['valorLiquidacao', 'carteira', 'dataEvento', String(notification.carteira)])
    expect(output).not.toContain(field);
});

describe('a large notification against a rate-limited query API', () => {
  // A queue whose visibility timeout outlasts an invocation, as the construct makes it (the shared
  // harness's 1 s would let a second poller take the message while the first still works on it).
  let big: ProcessorHarness;
  beforeAll(async () => {
    big = await ProcessorHarness.start({ visibilityTimeoutSeconds: 12 });
  });
  afterAll(async () => {
    await big?.stop();
  });

  it('publishes each of 60 settlements once from a body of ~600 events just under 256 KiB, and dead-letters nothing', async () => {
    // 60 queries at 5 a second do not fit in one invocation (8 s): what is left goes on as a new message.
    const notifications: Record<string, unknown>[] = [];
    for (let i = 0; i < 60; i++) {
      const boleto = await big.control.createBoleto({ valor: `${100 + i}.00` });
      notifications.push((await big.control.settleBoleto(boleto.nossoNumero)).notification as Record<string, unknown>);
    }
    const events = Array.from({ length: 600 }, (_, i) => ({ ...notifications[i % 60], idEventoWebhook: `bulk-${i}` }));
    // Pad each event so the body is just under 256 KiB.
    const bare = Buffer.byteLength(JSON.stringify(events));
    const pad = Math.floor((256 * 1024 - 200 - bare) / 600) - 16;
    const body = events.map((e) => ({ ...e, observacao: 'x'.repeat(pad) }));
    const size = Buffer.byteLength(JSON.stringify(body));
    expect(size).toBeGreaterThan(250 * 1024);
    expect(size).toBeLessThan(256 * 1024);

    await big.control.setFaults({ rateLimitPerSecond: { query: 5 } });
    await big.enqueue('boleto', body);
    const { output } = await captureOutput(() => big.drain(90_000));

    // (How the work splits across invocations depends on the machine's speed; the unit tests of
    // the core pin the continuation itself.) No record failed a receive along the way:
    expect(
      jsonLogLines(output).filter(
        (line) =>
          line.message === 'Processing failed; the notification will be retried' ||
          line.message === 'A bank call failed; the notification will be retried',
      ),
    ).toEqual([]);
    const settled = big.events.ofType(T.BOLETO_SETTLED);
    expect(settled).toHaveLength(60);
    expect(new Set(settled.map((e) => e.detail.subject.nossoNumero)).size).toBe(60);
    expect(new Set(settled.map((e) => e.detail.idempotencyKey)).size).toBe(60);
    expect(big.events.events).toHaveLength(60);
    expect(await big.queueDepth(big.dlqUrl)).toBe(0);
  }, 120_000);
});

describe('a notification sent compressed', () => {
  const send = async (contentEncoding: string, body: Buffer) => {
    const message = encodeStoredNotification(
      {
        route: 'boleto',
        receivedAt: new Date().toISOString(),
        requestId: `enc-${contentEncoding}`,
        contentType: 'application/json',
        contentEncoding,
      },
      body,
    );
    await h.sqs.send(new SendMessageCommand({ QueueUrl: h.queueUrl, MessageBody: message }));
  };

  it('is read after decoding its Content-Encoding (gzip, deflate, br)', async () => {
    const notifications = await Promise.all(
      ['1.01', '1.02', '1.03'].map(async (valor) => (await settledBoleto(valor)).notification),
    );
    await send('gzip', gzipSync(JSON.stringify(notifications[0])));
    await send('deflate', deflateSync(JSON.stringify(notifications[1])));
    await send('br', brotliCompressSync(JSON.stringify(notifications[2])));
    await h.drain();
    expect(
      h.events
        .ofType(T.BOLETO_SETTLED)
        .map((e) => e.detail.settlement.amount.decimal)
        .sort(),
    ).toEqual(['1.01', '1.02', '1.03']);
  });

  it('is quarantined with the reason when its encoding is unknown or its bytes do not decode', async () => {
    await send('compress', Buffer.from('x'));
    await send('gzip', Buffer.from('not gzip at all'));
    await h.drain();
    const reasons = (await drainQueue(h.sqs, h.dlqUrl))
      .map((m) => m.MessageAttributes?.[QuarantineAttribute.REASON]?.StringValue)
      .sort();
    expect(reasons).toEqual([
      'the notification\'s Content-Encoding "compress" is not one the processor reads (gzip, deflate, br)',
      expect.stringMatching(/^the notification's Content-Encoding gzip could not be decoded/),
    ]);
    expect(h.events.events).toEqual([]);
  });
});
