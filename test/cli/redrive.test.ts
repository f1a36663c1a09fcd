/**
 * `dlq redrive` within SQS's batch limits (issue 53): ten entries and 1 MiB of bodies a
 * SendMessageBatch. Six 200 KB messages go in two batches; a batch SQS refuses whole, or an entry
 * it refuses, is counted and the rest are moved; what could not be deleted is said.
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import { type DeadLetter, DeadLetterQueue, redrive, SEND_BATCH, sendBatches } from '../../cli/operate/dead-letters';

const letter = (id: string, bytes: number): DeadLetter => ({
  queue: DeadLetterQueue.NOTIFICATIONS,
  at: 0,
  subjects: [],
  message: { MessageId: id, ReceiptHandle: `rh-${id}`, Body: 'x'.repeat(bytes) },
});

/** An SQS that holds SendMessageBatch to its limits, and fails what `fail` names. */
function fakeSqs(fail: { batchWith?: string; entry?: string; deleteOf?: string } = {}) {
  const sent: string[][] = [];
  const deleted: string[] = [];
  const client = {
    async send(command: {
      constructor: { name: string };
      input: { Entries: { Id: string; MessageBody?: string; ReceiptHandle?: string }[] };
    }) {
      const entries = command.input.Entries;
      if (command.constructor.name === 'SendMessageBatchCommand') {
        const total = entries.reduce((sum, e) => sum + Buffer.byteLength(e.MessageBody ?? ''), 0);
        if (entries.length > SEND_BATCH.entries)
          throw Object.assign(new Error('Too many entries'), { name: 'TooManyEntriesInBatchRequest' });
        if (total > SEND_BATCH.bytes)
          throw Object.assign(new Error(`Batch requests cannot be longer than ${SEND_BATCH.bytes} bytes`), {
            name: 'BatchRequestTooLong',
          });
        if (fail.batchWith && entries.some((e) => e.MessageBody!.length === Number(fail.batchWith)))
          throw Object.assign(new Error('Service unavailable'), { name: 'ServiceUnavailable' });
        sent.push(entries.map((e) => e.Id));
        return {
          Successful: entries.filter((e) => e.MessageBody!.length !== Number(fail.entry)).map((e) => ({ Id: e.Id })),
          Failed: entries
            .filter((e) => e.MessageBody!.length === Number(fail.entry))
            .map((e) => ({ Id: e.Id, Code: 'InternalError', Message: 'try again' })),
        };
      }
      deleted.push(...entries.map((e) => e.ReceiptHandle!));
      return {
        Successful: entries.filter((e) => e.ReceiptHandle !== fail.deleteOf).map((e) => ({ Id: e.Id })),
        Failed: entries
          .filter((e) => e.ReceiptHandle === fail.deleteOf)
          .map((e) => ({ Id: e.Id, Code: 'ReceiptHandleIsInvalid' })),
      };
    },
  };
  return { client: client as unknown as SQSClient, sent, deleted };
}

it('moves six 200 KB messages in batches within 1 MiB of bodies, each sent and then deleted', async () => {
  const letters = Array.from({ length: 6 }, (_, i) => letter(`m${i}`, 200 * 1024));
  expect(sendBatches(letters).map((b) => b.length)).toEqual([5, 1]);
  const sqs = fakeSqs();
  const taken: string[] = [];
  const result = await redrive(sqs.client, 'dlq', 'queue', letters, (l) => taken.push(l.message.MessageId!));
  expect(result).toEqual({ sent: 6, failed: [] });
  expect(taken).toHaveLength(6);
  // Twelve small ones: ten, then two.
  expect(sendBatches(Array.from({ length: 12 }, (_, i) => letter(`s${i}`, 10))).map((b) => b.length)).toEqual([10, 2]);
});

it('moves what it can when SQS refuses a batch whole or one entry, and says which were not moved or not deleted', async () => {
  const letters = [
    letter('a', 100),
    letter('b', 101),
    letter('c', 300 * 1024),
    letter('d', 800 * 1024),
    letter('e', 102),
  ];
  // a, b, c go together; d and e in the next (c + d would pass 1 MiB); the first batch fails whole.
  expect(sendBatches(letters).map((b) => b.map((l) => l.message.MessageId))).toEqual([
    ['a', 'b', 'c'],
    ['d', 'e'],
  ]);
  const sqs = fakeSqs({ batchWith: '101', entry: '102' });
  const result = await redrive(sqs.client, 'dlq', 'queue', letters, () => undefined);
  expect(result.sent).toBe(1);
  expect(result.failed.map((f) => [f.letter.message.MessageId, f.why.split(':')[0]])).toEqual([
    ['a', 'not sent'],
    ['b', 'not sent'],
    ['c', 'not sent'],
    ['e', 'not sent'],
  ]);
  expect(result.failed[0].why).toContain('the batch was refused (ServiceUnavailable: Service unavailable)');
  const undeleted = await redrive(
    fakeSqs({ deleteOf: 'rh-a' }).client,
    'dlq',
    'queue',
    [letter('a', 1), letter('b', 2)],
    () => undefined,
  );
  expect(undeleted.sent).toBe(1);
  expect(undeleted.failed[0].why).toMatch(/^sent, but not deleted from the dead-letter queue/);
});
