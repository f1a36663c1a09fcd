/** The AWS calls the processor's core is given: publishing to EventBridge, quarantining to a dead-letter queue, sending back to a queue. */
import { type EventBridgeClient, PutEventsCommand, type PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import { QuarantineAttribute } from '../../contracts/processor';
import { QUARANTINE_REASON_BYTES } from '../../contracts/receiver';
import { sleep } from '../shared/retry';
import { inSpan, SpanKind, tracedAttributes } from '../shared/telemetry';
import { sqsAttributeText } from '../store/stored-notification';
import type { ProcessorQueue, PublishEntry } from './deps';

/** PutEvents takes at most 10 entries and 256 KB per request. */
const MAX_ENTRIES = 10;
const MAX_REQUEST_BYTES = 256_000;
/** Sends of the entries EventBridge did not accept, inside one publish. */
const PUBLISH_ATTEMPTS = 3;

function chunks(entries: readonly PutEventsRequestEntry[]): PutEventsRequestEntry[][] {
  const result: PutEventsRequestEntry[][] = [];
  let size = 0;
  for (const entry of entries) {
    const bytes =
      Buffer.byteLength(entry.Detail ?? '') +
      Buffer.byteLength(entry.DetailType ?? '') +
      Buffer.byteLength(entry.Source ?? '');
    const last = result[result.length - 1];
    if (!last || last.length >= MAX_ENTRIES || size + bytes > MAX_REQUEST_BYTES) {
      result.push([entry]);
      size = bytes;
    } else {
      last.push(entry);
      size += bytes;
    }
  }
  return result;
}

/** Publishes every entry to the bus with the source, sending again (twice at most) only the ones EventBridge did not accept. */
export function eventBridgePublisher(
  events: EventBridgeClient,
  eventBusName: string,
  source: string,
): (entries: readonly PublishEntry[]) => Promise<void> {
  return (entries) =>
    inSpan(
      'publish',
      { 'messaging.batch.message_count': entries.length },
      async () => {
        let remaining: PutEventsRequestEntry[] = entries.map((entry) => ({
          EventBusName: eventBusName,
          Source: source,
          DetailType: entry.detailType,
          Detail: entry.detail,
        }));
        for (let attempt = 1; ; attempt++) {
          const failed: { entry: PutEventsRequestEntry; why: string }[] = [];
          for (const chunk of chunks(remaining)) {
            const result = await events.send(new PutEventsCommand({ Entries: chunk }));
            chunk.forEach((entry, i) => {
              const answer = result.Entries?.[i];
              if (!answer?.EventId)
                failed.push({
                  entry,
                  why: `${answer?.ErrorCode ?? 'no event id'}${answer?.ErrorMessage ? ` (${answer.ErrorMessage})` : ''}`,
                });
            });
          }
          if (!failed.length) return;
          if (attempt >= PUBLISH_ATTEMPTS)
            throw new Error(`EventBridge did not accept ${failed.length} event(s): ${failed[0].why}`);
          remaining = failed.map((f) => f.entry);
          await sleep(100 * attempt);
        }
      },
      { kind: SpanKind.PRODUCER },
    );
}

/** Puts a record's body in the dead-letter queue of its kind with its reason, time and source message id. */
export function sqsQuarantine(
  sqs: SQSClient,
  deadLetterQueueUrls: Readonly<Record<ProcessorQueue, string>>,
): (record: SQSRecord, reason: string, queue: ProcessorQueue) => Promise<void> {
  return async (record, reason, queue) => {
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: deadLetterQueueUrls[queue],
        MessageBody: record.body,
        MessageAttributes: {
          [QuarantineAttribute.REASON]: {
            DataType: 'String',
            StringValue: sqsAttributeText(reason, QUARANTINE_REASON_BYTES) || 'quarantined',
          },
          [QuarantineAttribute.AT]: { DataType: 'String', StringValue: new Date().toISOString() },
          [QuarantineAttribute.SOURCE_MESSAGE_ID]: { DataType: 'String', StringValue: record.messageId },
        },
      }),
    );
  };
}

/** Sends a message body back to one of the queues the processor reads, visible after `delaySeconds`. */
export function sqsRequeue(
  sqs: SQSClient,
  queueUrls: Readonly<Record<ProcessorQueue, string>>,
): (messageBody: string, delaySeconds: number, queue: ProcessorQueue) => Promise<void> {
  return async (messageBody, delaySeconds, queue) => {
    // The next attempt continues this one's trace.
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: queueUrls[queue],
        MessageBody: messageBody,
        DelaySeconds: delaySeconds,
        ...tracedAttributes(),
      }),
    );
  };
}
