import { DeleteMessageBatchCommand, type Message, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { sleep } from '../../lambda/shared/retry';
import { invokeLocally } from './lambda-invoke';

export type SqsHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | void>;

export interface SqsEventSourceOptions {
  readonly sqs: SQSClient;
  readonly queueUrl: string;
  /** @default an ARN made from the queue URL */
  readonly queueArn?: string;
  readonly handler: SqsHandler;
  /** Records per invocation. @default 10 */
  readonly batchSize?: number;
  /** The function's timeout: what the context's getRemainingTimeInMillis counts down from. @default 30000 */
  readonly functionTimeoutMs?: number;
  /** @default 'local-processor' */
  readonly functionName?: string;
  /** @default 'us-east-1' */
  readonly region?: string;
  /**
   * The mapping's `ReportBatchItemFailures`: records named in `batchItemFailures` are retried and
   * the rest deleted. Without it, Lambda ignores the answer: a batch that returns is deleted.
   * @default true
   */
  readonly reportBatchItemFailures?: boolean;
  /** Told of a failed receive while running (the queue unreachable). */
  readonly onPollError?: (error: unknown) => void;
  /** Told of every invocation once it ends (for counts and progress). */
  readonly onBatch?: (records: readonly SQSRecord[], result: PollResult) => void;
}

/** What one poll did. */
export interface PollResult {
  readonly received: number;
  readonly deleted: number;
  /** Records left in the queue to be retried (visible again after the visibility timeout). */
  readonly failed: number;
  /** The invocation's error, when the handler threw or timed out (the whole batch is retried). */
  readonly error?: unknown;
}

/** A received message as Lambda's SQS event holds it. */
export function lambdaRecord(message: Message, arn: string, region: string): SQSRecord {
  const attributes = message.Attributes ?? {};
  const messageAttributes: SQSRecord['messageAttributes'] = {};
  for (const [name, value] of Object.entries(message.MessageAttributes ?? {})) {
    messageAttributes[name] = {
      dataType: value.DataType ?? 'String',
      stringValue: value.StringValue,
      stringListValues: [],
      binaryListValues: [],
    };
  }
  return {
    messageId: message.MessageId!,
    receiptHandle: message.ReceiptHandle!,
    body: message.Body ?? '',
    attributes: {
      ApproximateReceiveCount: attributes.ApproximateReceiveCount ?? '1',
      SentTimestamp: attributes.SentTimestamp ?? String(Date.now()),
      SenderId: attributes.SenderId ?? 'local',
      ApproximateFirstReceiveTimestamp: attributes.ApproximateFirstReceiveTimestamp ?? String(Date.now()),
    },
    messageAttributes,
    md5OfBody: message.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: arn,
    awsRegion: region,
  };
}

/**
 * Invokes an SQS-triggered handler the way Lambda's event source mapping does: receives up to
 * `batchSize` messages, invokes the handler with an SQS event and a context whose remaining time
 * counts down from the function timeout, deletes the records that succeeded, and leaves the
 * others to come back after the visibility timeout. With `reportBatchItemFailures`, records
 * named in `batchItemFailures` failed; a thrown error, a timeout, or a malformed answer fails
 * the whole batch.
 */
export class SqsEventSource {
  private readonly arn: string;
  private readonly region: string;
  private running = false;
  private pollers: Promise<void>[] = [];

  constructor(private readonly options: SqsEventSourceOptions) {
    this.region = options.region ?? 'us-east-1';
    const name = options.queueUrl.split('/').pop();
    this.arn = options.queueArn ?? `arn:aws:sqs:${this.region}:000000000000:${name}`;
  }

  /** One receive and invocation; `waitTimeSeconds` is the long-poll wait when the queue is empty. */
  async pollOnce(waitTimeSeconds = 0): Promise<PollResult> {
    const { Messages = [] } = await this.options.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: this.options.queueUrl,
        MaxNumberOfMessages: this.options.batchSize ?? 10,
        WaitTimeSeconds: waitTimeSeconds,
        MessageSystemAttributeNames: ['All'],
        MessageAttributeNames: ['All'],
      }),
    );
    if (Messages.length === 0) return { received: 0, deleted: 0, failed: 0 };
    const records = Messages.map((message) => lambdaRecord(message, this.arn, this.region));
    const outcome = await this.invoke(records);
    const succeeded = outcome.error ? [] : records.filter((record) => !outcome.failed.has(record.messageId));
    for (let i = 0; i < succeeded.length; i += 10) {
      await this.options.sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: this.options.queueUrl,
          Entries: succeeded
            .slice(i, i + 10)
            .map((record, index) => ({ Id: String(index), ReceiptHandle: record.receiptHandle })),
        }),
      );
    }
    const result = {
      received: records.length,
      deleted: succeeded.length,
      failed: records.length - succeeded.length,
      error: outcome.error,
    };
    this.options.onBatch?.(records, result);
    return result;
  }

  /**
   * Polls continuously with `concurrency` pollers (the mapping's maximum concurrency), each
   * long-polling and invoking the handler with what it receives, until `stop()`.
   */
  start(concurrency = 1): void {
    if (this.running) throw new Error('The event source is already running');
    this.running = true;
    this.pollers = Array.from({ length: concurrency }, async () => {
      while (this.running) {
        try {
          await this.pollOnce(1);
        } catch (error) {
          // The queue is unreachable: the mapping backs off and polls again.
          this.options.onPollError?.(error);
          await sleep(500);
        }
      }
    });
  }

  /** Stops polling; waits for the invocations in flight to end. */
  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.pollers);
    this.pollers = [];
  }

  /** Polls until `done()` holds (checked after each poll), or throws after `timeoutMs`. */
  async runUntil(done: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<void> {
    const until = Date.now() + timeoutMs;
    while (!(await done())) {
      if (Date.now() > until) throw new Error(`SqsEventSource.runUntil: not done after ${timeoutMs} ms`);
      await this.pollOnce(1);
    }
  }

  /** Invokes the handler; answers which records failed, and the error when the whole batch did. */
  private async invoke(records: SQSRecord[]): Promise<{ failed: Set<string>; error?: unknown }> {
    try {
      const response = await invokeLocally(
        this.options.handler,
        { Records: records },
        {
          functionName: this.options.functionName ?? 'local-processor',
          timeoutMs: this.options.functionTimeoutMs ?? 30_000,
          region: this.region,
        },
      );
      if (this.options.reportBatchItemFailures === false) return { failed: new Set() };
      const failures = response?.batchItemFailures ?? [];
      const known = new Set(records.map((record) => record.messageId));
      // Lambda fails the whole batch when an identifier is empty or not in the batch.
      if (
        !Array.isArray(failures) ||
        failures.some((failure) => !failure?.itemIdentifier || !known.has(failure.itemIdentifier))
      ) {
        return { failed: known, error: new Error('Malformed batchItemFailures: the whole batch is retried') };
      }
      return { failed: new Set(failures.map((failure) => failure.itemIdentifier)) };
    } catch (error) {
      return { failed: new Set(records.map((record) => record.messageId)), error };
    }
  }
}
