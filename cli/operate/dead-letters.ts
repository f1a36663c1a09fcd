/**
 * Reading and redriving the receiver's dead-letter queues. SQS's own move task cannot filter,
 * and a quarantined message was sent to its dead-letter queue by the processor (not moved there
 * by SQS), so the CLI redrives by itself: receive, send the body to the queue it belongs to, and
 * delete it from the dead-letter queue only once the send succeeded.
 */
import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageBatchCommand,
  type Message,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { QuarantineAttribute } from '../../contracts/processor';
import { formatTable } from '../table';
import { subjectsOf } from './subjects';

/** The two dead-letter queues, by the name the CLI's `--queue` takes. */
export enum DeadLetterQueue {
  NOTIFICATIONS = 'notifications',
  LOOKS = 'looks',
}

/** A message of a dead-letter queue, as an operator reads it. */
export interface DeadLetter {
  readonly queue: DeadLetterQueue;
  readonly message: Message;
  /** The processor's QuarantineReason (none: SQS moved it after a crash or timeout on its last receive). */
  readonly reason?: string;
  /** When it was quarantined, or sent to the dead-letter queue (epoch ms). */
  readonly at: number;
  /** The subjects it is about (`boleto:<codigoBeneficiario>:<nossoNumero>`, `payment:<kind>:<idTransacao>`). */
  readonly subjects: readonly string[];
  /** The notification's request id, for a stored notification. */
  readonly requestId?: string;
}

/** Longest an operator's listing holds the messages out of sight before letting them go again. */
const HOLD_SECONDS = 120;

function deadLetterOf(queue: DeadLetterQueue, message: Message, codigoBeneficiario: string): DeadLetter {
  const attributes = message.MessageAttributes ?? {};
  const quarantinedAt = Date.parse(attributes[QuarantineAttribute.AT]?.StringValue ?? '');
  const sentAt = Number(message.Attributes?.SentTimestamp ?? Date.now());
  return {
    queue,
    message,
    reason: attributes[QuarantineAttribute.REASON]?.StringValue,
    at: Number.isFinite(quarantinedAt) ? quarantinedAt : sentAt,
    ...subjectsOf(message.Body ?? '', codigoBeneficiario),
  };
}

/**
 * Receives up to `max` messages of a dead-letter queue and holds them out of sight while `use`
 * runs; what `use` did not take (delete) is made visible again, whatever happens.
 */
export async function withDeadLetters<T>(
  sqs: SQSClient,
  queue: DeadLetterQueue,
  url: string,
  codigoBeneficiario: string,
  max: number,
  use: (letters: readonly DeadLetter[], taken: (letter: DeadLetter) => void) => Promise<T>,
): Promise<T> {
  const letters: DeadLetter[] = [];
  const seen = new Set<string>();
  let empty = 0;
  // A receive may answer nothing while messages are there (SQS samples servers): two empty answers in a row end it.
  while (letters.length < max && empty < 2) {
    const { Messages: messages = [] } = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: url,
        MaxNumberOfMessages: Math.min(10, max - letters.length),
        VisibilityTimeout: HOLD_SECONDS,
        WaitTimeSeconds: 1,
        MessageAttributeNames: ['All'],
        MessageSystemAttributeNames: ['SentTimestamp', 'ApproximateReceiveCount'],
      }),
    );
    empty = messages.length ? 0 : empty + 1;
    for (const message of messages) {
      if (seen.has(message.MessageId!)) continue;
      seen.add(message.MessageId!);
      letters.push(deadLetterOf(queue, message, codigoBeneficiario));
    }
  }
  const gone = new Set<DeadLetter>();
  try {
    return await use(letters, (letter) => gone.add(letter));
  } finally {
    const back = letters.filter((letter) => !gone.has(letter));
    for (let i = 0; i < back.length; i += 10) {
      await sqs
        .send(
          new ChangeMessageVisibilityBatchCommand({
            QueueUrl: url,
            Entries: back.slice(i, i + 10).map((letter, j) => ({
              Id: String(j),
              ReceiptHandle: letter.message.ReceiptHandle!,
              VisibilityTimeout: 0,
            })),
          }),
        )
        .catch(() => undefined);
    }
  }
}

/** An AWS call's error in words: its name and message. */
export const errorText = (error: unknown): string =>
  `${(error as { name?: string }).name ?? 'Error'}: ${(error as Error).message}`;

/** The letters an operation could not take, each with what went wrong (redrive's and delete's). */
export function failuresTable(failed: readonly { readonly letter: DeadLetter; readonly why: string }[]): string {
  return formatTable(
    ['message id', 'what went wrong'],
    failed.map((f) => [f.letter.message.MessageId ?? '?', f.why]),
  );
}

/** What a redrive did. */
export interface RedriveResult {
  readonly sent: number;
  readonly failed: readonly { readonly letter: DeadLetter; readonly why: string }[];
}

/** SendMessageBatch's limits: ten entries, and 1 MiB for the bodies of all of them together. */
export const SEND_BATCH = { entries: 10, bytes: 1_048_576 } as const;

/** The letters in batches SendMessageBatch takes: at most ten, their bodies within its total size. */
export function sendBatches(letters: readonly DeadLetter[]): DeadLetter[][] {
  const batches: DeadLetter[][] = [];
  let batch: DeadLetter[] = [];
  let bytes = 0;
  for (const letter of letters) {
    const size = Buffer.byteLength(letter.message.Body ?? '', 'utf8');
    if (batch.length && (batch.length >= SEND_BATCH.entries || bytes + size > SEND_BATCH.bytes)) {
      batches.push(batch);
      batch = [];
      bytes = 0;
    }
    batch.push(letter);
    bytes += size;
  }
  if (batch.length) batches.push(batch);
  return batches;
}

/**
 * Sends each letter's body to `targetUrl` (without the quarantine's attributes: the processor
 * reads it as new) and deletes it from the dead-letter queue once sent, in batches within SQS's
 * limits. A batch SQS refuses whole, or an entry it refuses, is counted and the rest go on: what
 * could be moved is moved. A letter whose send or delete failed stays (or may be in both queues:
 * redriving is safe, a change already published is not published again).
 */
export async function redrive(
  sqs: SQSClient,
  deadLetterUrl: string,
  targetUrl: string,
  letters: readonly DeadLetter[],
  taken: (letter: DeadLetter) => void,
): Promise<RedriveResult> {
  let sent = 0;
  const failed: { letter: DeadLetter; why: string }[] = [];
  for (const batch of sendBatches(letters)) {
    let answer;
    try {
      answer = await sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: targetUrl,
          Entries: batch.map((letter, j) => ({ Id: String(j), MessageBody: letter.message.Body ?? '' })),
        }),
      );
    } catch (error) {
      for (const letter of batch) failed.push({ letter, why: `not sent: the batch was refused (${errorText(error)})` });
      continue;
    }
    for (const f of answer.Failed ?? [])
      failed.push({ letter: batch[Number(f.Id)], why: `not sent: ${f.Code ?? ''} ${f.Message ?? ''}`.trim() });
    const delivered = (answer.Successful ?? []).map((s) => batch[Number(s.Id)]);
    if (!delivered.length) continue;
    let deleted;
    try {
      deleted = await sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: deadLetterUrl,
          Entries: delivered.map((letter, j) => ({ Id: String(j), ReceiptHandle: letter.message.ReceiptHandle! })),
        }),
      );
    } catch (error) {
      for (const letter of delivered)
        failed.push({
          letter,
          why: `sent, but not deleted from the dead-letter queue (it may be redriven twice, which is safe): ${errorText(error)}`,
        });
      continue;
    }
    for (const f of deleted.Failed ?? [])
      failed.push({
        letter: delivered[Number(f.Id)],
        why: `sent, but not deleted from the dead-letter queue (it may be redriven twice, which is safe): ${f.Code ?? ''} ${f.Message ?? ''}`.trim(),
      });
    for (const s of deleted.Successful ?? []) {
      taken(delivered[Number(s.Id)]);
      sent++;
    }
  }
  return { sent, failed };
}
