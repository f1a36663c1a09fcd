/**
 * The processor bundle when the bank's query API fails: 5xx or timeouts for a while (the record
 * fails, comes back after the visibility timeout, and then succeeds), and the bank down for good
 * (the message reaches the DLQ after maxReceiveCount receives). A short function timeout keeps
 * the retries inside one invocation small.
 */
import { BankEventDetailType as T } from '../../../contracts/events';
import { QuarantineAttribute } from '../../../contracts/processor';
import { drainQueue } from '../../../tools/local-aws/fauxqs';
import { captureOutput, jsonLogLines } from '../../support/load-handler';
import { ProcessorHarness } from '../../support/processor-harness';

let h: ProcessorHarness;

beforeAll(async () => {
  h = await ProcessorHarness.start({
    functionTimeoutMs: 3_000,
    callTimeoutMs: 1_000,
    maxReceiveCount: 3,
    maxVerificationAttempts: 2,
  });
});

afterAll(async () => {
  await h?.stop();
});

beforeEach(async () => {
  h.events.clear();
  await h.control.clearFaults();
});

async function settlementNotification(): Promise<Record<string, unknown>> {
  const boleto = await h.control.createBoleto({ valor: '250.75' });
  return (await h.control.settleBoleto(boleto.nossoNumero)).notification as Record<string, unknown>;
}

it('fails the record while the query API answers 5xx, then publishes once it recovers', async () => {
  const notification = await settlementNotification();
  await h.control.setFaults({ api: [{ scope: 'query', status: 503, times: 6 }] });
  await h.enqueue('boleto', notification);

  const { result: first, output } = await captureOutput(() => h.source.pollOnce(1));
  expect(first).toMatchObject({ received: 1, failed: 1, error: undefined });
  expect(h.events.events).toHaveLength(0);
  expect(jsonLogLines(output)).toEqual(
    expect.arrayContaining([
      expect.objectContaining({ level: 'WARN', message: 'Retrying a bank call', status: 503 }),
      expect.objectContaining({
        level: 'WARN',
        message: 'A bank call failed; the notification will be retried',
        status: 503,
      }),
    ]),
  );

  await h.drain();
  expect(h.events.ofType(T.BOLETO_SETTLED)).toHaveLength(1);
  expect(h.events.events[0].detail.attempt).toBeGreaterThanOrEqual(2);
  expect(await h.queueDepth(h.dlqUrl)).toBe(0);
});

it('fails the record while the query API times out, then publishes once it answers in time', async () => {
  const notification = await settlementNotification();
  await h.control.setFaults({ api: [{ scope: 'query', delayMs: 1_500, times: 3 }] });
  await h.enqueue('boleto', notification);

  const { result: first, output } = await captureOutput(() => h.source.pollOnce(1));
  expect(first).toMatchObject({ received: 1, failed: 1 });
  expect(output).toContain('no complete answer within 1000 ms');

  await h.drain();
  expect(h.events.ofType(T.BOLETO_SETTLED)).toHaveLength(1);
});

it('quarantines the message itself on its last receive when the bank stays down, with the last error as the reason, publishing nothing', async () => {
  const notification = await settlementNotification();
  await h.control.setFaults({ api: [{ scope: 'all', status: 503 }] });
  const id = await h.enqueue('boleto', notification);

  const { output } = await captureOutput(() => h.drain(60_000));
  expect(h.events.events).toHaveLength(0);
  const dead = await drainQueue(h.sqs, h.dlqUrl);
  expect(dead.map((m) => m.MessageAttributes?.[QuarantineAttribute.SOURCE_MESSAGE_ID]?.StringValue)).toEqual([id]);
  expect(dead[0].MessageAttributes?.[QuarantineAttribute.REASON]?.StringValue).toMatch(
    /^failed on its last receive \(3 of 3\): boleto query .* HTTP 503/,
  );
  const failures = jsonLogLines(output).filter(
    (line) => line.message === 'A bank call failed; the notification will be retried',
  );
  expect(failures.map((line) => line.receiveCount)).toEqual([1, 2]);
});
