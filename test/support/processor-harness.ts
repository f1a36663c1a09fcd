import { randomUUID } from 'node:crypto';
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent, Context } from 'aws-lambda';
import { BANK_CONNECTION_ENV } from '../../contracts/bank-connection';
import { PROCESSOR_SETTINGS_ENV } from '../../contracts/processor';
import { encodeStoredNotification } from '../../lambda/store/stored-notification';
import { type Route } from '../../contracts/receiver';
import { BankSimulator, type BankSimulatorOptions } from '../../simulator/simulator';
import { LocalEventBridge } from '../../tools/local-aws/eventbridge-server';
import { LocalSecretsManager } from '../../tools/local-aws/secrets-manager-server';
import { SqsEventSource, type SqsEventSourceOptions } from '../../tools/local-aws/sqs-event-source';
import { LOCAL_AWS, localAwsEnvironment } from '../../tools/local-aws/local-env';
import { resolveLocalhostSubdomains } from './aws-env';
import { type Dynalite, startDynalite } from '../../tools/local-aws/dynalite';
import { createQueueWithDlq, type Fauxqs, queueDepth, startFauxqs } from '../../tools/local-aws/fauxqs';
import { loadHandlerBundle } from './load-handler';
import { detailProblems } from '../../tools/event-schemas';
import { simulatorConnection, simulatorCredentials } from './simulator-connection';
import { processorSettings } from '../../lib/processor/processor-settings';

export type SqsLambdaHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

export interface ProcessorHarnessOptions {
  readonly simulator?: BankSimulatorOptions;
  /** @default 3 */
  readonly maxReceiveCount?: number;
  /** @default 2 */
  readonly maxVerificationAttempts?: number;
  /** Short, so failed records come back quickly. @default 1 */
  readonly visibilityTimeoutSeconds?: number;
  /** The processor function's timeout, which bounds bank retries. @default 8000 */
  readonly functionTimeoutMs?: number;
  /** Deadline of one bank call. @default 1500 */
  readonly callTimeoutMs?: number;
  /** The connection's queriesPerSecond. @default the construct's default */
  readonly queriesPerSecond?: number;
}

/**
 * Everything the processor bundle talks to, on loopback: the bank simulator (HTTPS, mutual TLS
 * for payments), fauxqs (queue and DLQ), dynalite (idempotency table), a local Secrets Manager
 * (bank credentials) and a local EventBridge (records PutEvents). The bundle is the deployed
 * file, configured by the environment variables the construct sets.
 */
export class ProcessorHarness {
  handler!: SqsLambdaHandler;
  source!: SqsEventSource;
  queueUrl!: string;
  dlqUrl!: string;
  sqs!: SQSClient;
  readonly events = new LocalEventBridge();
  readonly secrets = new LocalSecretsManager();
  simulator!: BankSimulator;
  private fauxqs!: Fauxqs;
  private dynamo!: Dynalite;
  private restoreDns!: () => void;
  env!: Record<string, string>;

  static async start(options: ProcessorHarnessOptions = {}): Promise<ProcessorHarness> {
    const harness = new ProcessorHarness(options);
    await harness.init();
    return harness;
  }

  private constructor(private readonly options: ProcessorHarnessOptions) {}

  get control() {
    return this.simulator.control;
  }

  private async init(): Promise<void> {
    const o = this.options;
    this.restoreDns = resolveLocalhostSubdomains();
    const name = `proc${randomUUID().slice(0, 8)}`;
    [this.simulator, this.fauxqs, this.dynamo] = await Promise.all([
      BankSimulator.start(o.simulator),
      startFauxqs(),
      startDynalite(),
    ]);
    const [eventsEndpoint, secretsEndpoint] = await Promise.all([this.events.start(), this.secrets.start()]);
    this.sqs = this.fauxqs.client();
    ({ queueUrl: this.queueUrl, dlqUrl: this.dlqUrl } = await createQueueWithDlq(
      this.sqs,
      name,
      o.maxReceiveCount ?? 3,
      o.visibilityTimeoutSeconds ?? 1,
    ));
    await this.dynamo.createIdempotencyTable(`${name}-idempotency`);

    const credentialsArn = this.secrets.createSecret(
      `${name}-bank-credentials`,
      JSON.stringify(simulatorCredentials(this.simulator)),
    );
    const connection = simulatorConnection(this.simulator, credentialsArn, {
      callTimeoutMs: o.callTimeoutMs ?? 1_500,
      ...(o.queriesPerSecond ? { queriesPerSecond: o.queriesPerSecond } : {}),
    });
    const settings = processorSettings(
      // One queue for notifications and looks alike (the construct gives looks their own).
      {
        eventBusName: `${name}-bus`,
        idempotencyTableName: `${name}-idempotency`,
        quarantineQueueUrl: this.dlqUrl,
        queueUrl: this.queueUrl,
        lookQueueUrl: this.queueUrl,
        lookQuarantineQueueUrl: this.dlqUrl,
        ownSenderId: LOCAL_AWS.accountId,
      },
      {
        maxReceiveCount: o.maxReceiveCount ?? 3,
        maxVerificationAttempts: o.maxVerificationAttempts ?? 2,
        safetyMarginMs: 500,
        queueVisibilityTimeoutSeconds: o.visibilityTimeoutSeconds ?? 1,
      },
    );
    this.env = {
      ...localAwsEnvironment({
        SQS: this.fauxqs.endpoint,
        SECRETS_MANAGER: secretsEndpoint,
        DYNAMODB: this.dynamo.endpoint,
        EVENTBRIDGE: eventsEndpoint,
      }),
      [BANK_CONNECTION_ENV]: JSON.stringify(connection),
      [PROCESSOR_SETTINGS_ENV]: JSON.stringify(settings),
    };
    this.handler = this.loadInstance();
    this.source = this.eventSource(this.handler);
  }

  /** A fresh processor instance (another Lambda execution environment). */
  loadInstance(): SqsLambdaHandler {
    return loadHandlerBundle<SqsLambdaHandler>('processor', this.env);
  }

  /** An event source mapping feeding `handler` from the queue. */
  eventSource(handler: SqsLambdaHandler, batchSize = 10, onBatch?: SqsEventSourceOptions['onBatch']): SqsEventSource {
    return new SqsEventSource({
      sqs: this.sqs,
      queueUrl: this.queueUrl,
      handler,
      batchSize,
      functionTimeoutMs: this.options.functionTimeoutMs ?? 8_000,
      onBatch,
    });
  }

  /** Stores a notification in the queue the way the receiver does; returns its message id. */
  async enqueue(route: Route, body: unknown, requestId: string = randomUUID()): Promise<string> {
    const raw = Buffer.isBuffer(body) ? body : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
    const message = encodeStoredNotification(
      {
        route,
        receivedAt: new Date().toISOString(),
        requestId,
        sourceIp: '127.0.0.1',
        contentType: 'application/json',
      },
      raw,
    );
    const result = await this.sqs.send(new SendMessageCommand({ QueueUrl: this.queueUrl, MessageBody: message }));
    return result.MessageId!;
  }

  /** Messages in the queue, visible or in flight. */
  async queueDepth(queueUrl = this.queueUrl): Promise<number> {
    return queueDepth(this.sqs, queueUrl);
  }

  /** Runs the event source until the queue is empty; fails if any event broke its detail type's JSON Schema. */
  async drain(timeoutMs = 30_000, source = this.source): Promise<void> {
    await source.runUntil(async () => (await this.queueDepth()) === 0, timeoutMs);
    const problems = this.events.events.flatMap((event) => detailProblems(event.detailType, event.detail));
    if (problems.length) throw new Error(`published events break their JSON Schema:\n${problems.join('\n')}`);
  }

  async stop(): Promise<void> {
    this.sqs?.destroy();
    await Promise.all([
      this.simulator?.stop(),
      this.fauxqs?.stop(),
      this.dynamo?.stop(),
      this.events.stop(),
      this.secrets.stop(),
    ]);
    this.restoreDns?.();
  }
}
