/**
 * The processor bundle exactly as deployed (dist/handlers/processor/index.js), fed by an event
 * source that behaves like Lambda's SQS mapping, against the bank simulator over HTTPS (mutual
 * TLS for the payments API), fauxqs, dynalite and a local EventBridge.
 */
import { drainQueue } from '../../support/fauxqs';
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
