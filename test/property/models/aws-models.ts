/**
 * SQS, S3 and EventBridge in memory, at the SDK client's boundary, for the property harness. Each
 * answers a command at once; when and in what order an answer reaches its caller is the harness's
 * (world.ts). Anything a model is sent that it does not know throws, so a handler's new call is noticed.
 */
import { PutEventsCommand, type PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { PutObjectCommand, S3ServiceException } from '@aws-sdk/client-s3';
import { type MessageAttributeValue, SendMessageBatchCommand, SendMessageCommand } from '@aws-sdk/client-sqs';

/** One message of a queue. */
export interface QueuedMessage {
  readonly messageId: string;
  readonly body: string;
  readonly attributes: Record<string, MessageAttributeValue>;
  readonly sentAt: number;
  receiveCount: number;
  /** Receives that left it visible, so that another receiver got it too (at-least-once delivery). */
  duplicates: number;
  visibleAt: number;
  /** The receipt handle of the latest receive: a delete with an older one leaves the message. */
  receipt?: string;
}

/** A standard SQS queue: at-least-once, visibility timeout, receive count, redrive to its dead-letter queue. */
export class QueueModel {
  readonly messages: QueuedMessage[] = [];
  /** Every message ever sent, in order (what the invariants account for). */
  readonly sent: QueuedMessage[] = [];
  deadLetter?: QueueModel;
  private receipts = 0;
  private readonly sendListeners = new Set<() => void>();

  constructor(
    readonly url: string,
    readonly visibilityTimeoutMs: number,
    readonly maxReceiveCount: number,
    private readonly now: () => number,
    private readonly ids: () => string,
  ) {}

  send(body: string, attributes: Record<string, MessageAttributeValue> = {}, delaySeconds = 0): QueuedMessage {
    const message: QueuedMessage = {
      messageId: this.ids(),
      body,
      attributes,
      sentAt: this.now(),
      receiveCount: 0,
      duplicates: 0,
      visibleAt: this.now() + delaySeconds * 1000,
    };
    this.messages.push(message);
    this.sent.push(message);
    for (const listener of [...this.sendListeners]) listener();
    return message;
  }

  /**
   * A long poll's wait: until a message is sent, the next one becomes visible, or `maxMs` passes
   * (SQS's ReceiveMessage waits 20 s at most).
   */
  waitForMessages(maxMs: number): Promise<void> {
    return new Promise((resolve) => {
      const next = this.nextVisibleAt();
      const done = () => {
        clearTimeout(timer);
        this.sendListeners.delete(done);
        resolve();
      };
      const timer = setTimeout(done, Math.max(1, Math.min(maxMs, next === undefined ? maxMs : next - this.now())));
      this.sendListeners.add(done);
    });
  }

  /**
   * Up to `max` visible messages, each hidden for the visibility timeout (unless `keepVisible`
   * says otherwise: SQS's at-least-once delivery hands a message to two receivers). A message
   * received more than maxReceiveCount times goes to the dead-letter queue instead.
   */
  receive(max: number, keepVisible: (message: QueuedMessage) => boolean = () => false): QueuedMessage[] {
    const now = this.now();
    const batch: QueuedMessage[] = [];
    for (const message of [...this.messages]) {
      if (batch.length >= max) break;
      if (message.visibleAt > now) continue;
      if (this.deadLetter && message.receiveCount >= this.maxReceiveCount) {
        this.remove(message);
        this.deadLetter.messages.push({ ...message, visibleAt: now });
        this.deadLetter.sent.push(message);
        continue;
      }
      message.receiveCount++;
      message.receipt = `${message.messageId}#${++this.receipts}`;
      if (keepVisible(message)) message.duplicates++;
      else message.visibleAt = now + this.visibilityTimeoutMs;
      batch.push({ ...message });
    }
    return batch;
  }

  /** Deletes the message if `receipt` is its latest; answers whether it did. */
  delete(receipt: string): boolean {
    const message = this.messages.find((m) => m.receipt === receipt);
    if (!message) return false;
    this.remove(message);
    return true;
  }

  /** Makes a received message visible again now (a failed record, told to SQS by the batch response). */
  release(receipt: string): void {
    const message = this.messages.find((m) => m.receipt === receipt);
    if (message) message.visibleAt = Math.min(message.visibleAt, this.now());
  }

  /** When the next message becomes visible (epoch ms), or undefined when the queue is empty. */
  nextVisibleAt(): number | undefined {
    return this.messages.length ? Math.min(...this.messages.map((m) => m.visibleAt)) : undefined;
  }

  private remove(message: QueuedMessage): void {
    this.messages.splice(this.messages.indexOf(message), 1);
  }
}

/** The account's queues by URL, as the SQS client sees them. */
export class SqsModel {
  readonly queues = new Map<string, QueueModel>();

  add(queue: QueueModel): QueueModel {
    this.queues.set(queue.url, queue);
    return queue;
  }

  handle(command: unknown): unknown {
    if (command instanceof SendMessageCommand) {
      const message = this.queue(command.input.QueueUrl).send(
        command.input.MessageBody!,
        command.input.MessageAttributes ?? {},
        command.input.DelaySeconds ?? 0,
      );
      return { MessageId: message.messageId };
    }
    if (command instanceof SendMessageBatchCommand) {
      const queue = this.queue(command.input.QueueUrl);
      const Successful = (command.input.Entries ?? []).map((entry) => ({
        Id: entry.Id,
        MessageId: queue.send(entry.MessageBody!, entry.MessageAttributes ?? {}, entry.DelaySeconds ?? 0).messageId,
      }));
      return { Successful, Failed: [] };
    }
    throw new Error(`the SQS model does not answer ${(command as object).constructor.name}`);
  }

  private queue(url: string | undefined): QueueModel {
    const queue = url && this.queues.get(url);
    if (!queue) throw new Error(`the SQS model has no queue ${url}`);
    return queue;
  }
}

/** One S3 bucket: objects written once (`If-None-Match: *` answers 412 when the key exists). */
export class S3Model {
  readonly objects = new Map<string, string>();

  constructor(readonly bucket: string) {}

  handle(command: unknown): unknown {
    if (command instanceof PutObjectCommand) {
      if (command.input.Bucket !== this.bucket)
        throw new Error(`the S3 model holds ${this.bucket}, not ${command.input.Bucket}`);
      const key = command.input.Key!;
      if (command.input.IfNoneMatch === '*' && this.objects.has(key)) {
        throw new S3ServiceException({
          name: 'PreconditionFailed',
          $fault: 'client',
          $metadata: { httpStatusCode: 412 },
          message: 'At least one of the pre-conditions you specified did not hold',
        });
      }
      const body = command.input.Body;
      this.objects.set(key, Buffer.isBuffer(body) ? body.toString('utf8') : typeof body === 'string' ? body : '');
      return { ETag: `"${this.objects.size}"` };
    }
    throw new Error(`the S3 model does not answer ${(command as object).constructor.name}`);
  }
}

/** An event the bus accepted. */
export interface AcceptedEvent {
  readonly eventId: string;
  readonly source: string;
  readonly detailType: string;
  readonly detail: Record<string, unknown>;
  readonly at: number;
}

/** The event bus: every accepted entry kept in order; `refuse` may fail an entry (PutEvents' partial failure). */
export class EventBridgeModel {
  readonly accepted: AcceptedEvent[] = [];
  /** Entries PutEvents answered as failed. */
  refused = 0;

  constructor(
    readonly busName: string,
    private readonly now: () => number,
    private readonly ids: () => string,
    private readonly refuse: (entry: PutEventsRequestEntry) => boolean = () => false,
  ) {}

  handle(command: unknown): unknown {
    if (command instanceof PutEventsCommand) {
      const Entries = (command.input.Entries ?? []).map((entry) => {
        if (entry.EventBusName !== this.busName)
          return {
            ErrorCode: 'ResourceNotFoundException',
            ErrorMessage: `Event bus ${entry.EventBusName} does not exist.`,
          };
        if (this.refuse(entry)) {
          this.refused++;
          return { ErrorCode: 'InternalFailure', ErrorMessage: 'Internal service error.' };
        }
        const eventId = this.ids();
        this.accepted.push({
          eventId,
          source: entry.Source!,
          detailType: entry.DetailType!,
          detail: JSON.parse(entry.Detail!) as Record<string, unknown>,
          at: this.now(),
        });
        return { EventId: eventId };
      });
      return { Entries, FailedEntryCount: Entries.filter((e) => !('EventId' in e)).length };
    }
    throw new Error(`the EventBridge model does not answer ${(command as object).constructor.name}`);
  }
}
