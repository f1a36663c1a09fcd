/** The local SQS event source behaves like Lambda's mapping with reportBatchItemFailures. */
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { type SqsHandler, SqsEventSource } from '../../../tools/local-aws/sqs-event-source';
import { resolveLocalhostSubdomains } from '../../support/aws-env';
import { createQueueWithDlq, drainQueue, type Fauxqs, startFauxqs } from '../../../tools/local-aws/fauxqs';

let fauxqs: Fauxqs;
let sqs: SQSClient;
let restoreDns: () => void;
let n = 0;

beforeAll(async () => {
  restoreDns = resolveLocalhostSubdomains();
  fauxqs = await startFauxqs();
  sqs = fauxqs.client();
});

afterAll(async () => {
  sqs?.destroy();
  await fauxqs?.stop();
  restoreDns?.();
});

async function queueWith(bodies: string[]): Promise<string> {
  const { queueUrl } = await createQueueWithDlq(sqs, `esm-${n++}`, 5, 1);
  for (const body of bodies) await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body }));
  return queueUrl;
}

const bodiesOf = (event: SQSEvent) => event.Records.map((r) => r.body).sort();

it('deletes the records that succeeded and leaves the reported failures, with receive counts and a counting-down context', async () => {
  const queueUrl = await queueWith(['a', 'b', 'c']);
  const seen: SQSEvent[] = [];
  let remaining = 0;
  const handler: SqsHandler = (event, context) => {
    seen.push(event);
    remaining = context.getRemainingTimeInMillis();
    return Promise.resolve({
      batchItemFailures: event.Records.filter((r) => r.body === 'b').map((r) => ({ itemIdentifier: r.messageId })),
    });
  };
  const source = new SqsEventSource({ sqs, queueUrl, handler, functionTimeoutMs: 5_000 });

  expect(await source.pollOnce(1)).toEqual({ received: 3, deleted: 2, failed: 1, error: undefined });
  expect(bodiesOf(seen[0])).toEqual(['a', 'b', 'c']);
  expect(seen[0].Records[0]).toMatchObject({ eventSource: 'aws:sqs', attributes: { ApproximateReceiveCount: '1' } });
  expect(remaining).toBeGreaterThan(4_000);
  expect(remaining).toBeLessThanOrEqual(5_000);

  await source.runUntil(() => seen.length === 2, 10_000);
  expect(bodiesOf(seen[1])).toEqual(['b']);
  expect(seen[1].Records[0].attributes.ApproximateReceiveCount).toBe('2');
});

it.each<[string, SqsHandler]>([
  ['the handler throws', () => Promise.reject(new Error('crash'))],
  [
    'a failure names a record not in the batch',
    () => Promise.resolve({ batchItemFailures: [{ itemIdentifier: 'nope' }] }),
  ],
])('retries the whole batch when %s', async (_name, handler) => {
  const queueUrl = await queueWith(['x', 'y']);
  const result = await new SqsEventSource({ sqs, queueUrl, handler }).pollOnce(1);
  expect(result).toMatchObject({ received: 2, deleted: 0, failed: 2, error: expect.any(Error) });
  await new Promise((resolve) => setTimeout(resolve, 1_100));
  expect((await drainQueue(sqs, queueUrl)).map((m) => m.Body).sort()).toEqual(['x', 'y']);
});

it('treats an invocation past the function timeout as failed', async () => {
  const queueUrl = await queueWith(['slow']);
  const handler: SqsHandler = () => new Promise((resolve) => setTimeout(() => resolve({ batchItemFailures: [] }), 500));
  const result = await new SqsEventSource({ sqs, queueUrl, handler, functionTimeoutMs: 100 }).pollOnce(1);
  expect(result).toMatchObject({ failed: 1, deleted: 0 });
  expect(String(result.error)).toContain('Task timed out after 100 ms');
});

it('polls continuously with several pollers until stopped, and without ReportBatchItemFailures deletes a batch that returns', async () => {
  const queueUrl = await queueWith(['1', '2', '3', '4', '5']);
  const seen: string[] = [];
  const source = new SqsEventSource({
    sqs,
    queueUrl,
    batchSize: 2,
    reportBatchItemFailures: false,
    handler: (event) => {
      seen.push(...event.Records.map((r) => r.body));
      // Ignored without ReportBatchItemFailures, as Lambda ignores it.
      return Promise.resolve({ batchItemFailures: event.Records.map((r) => ({ itemIdentifier: r.messageId })) });
    },
  });
  source.start(2);
  expect(() => source.start()).toThrow('The event source is already running');
  const until = Date.now() + 10_000;
  while (seen.length < 5 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
  await source.stop();
  expect(seen.sort()).toEqual(['1', '2', '3', '4', '5']);
  expect(await drainQueue(sqs, queueUrl)).toEqual([]);
});
