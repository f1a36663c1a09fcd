/**
 * The property harness's world: the real handlers' cores (the receiver's handleNotification, the
 * processor's processBatch) with their real AWS adapters and stores, over in-memory models of SQS,
 * DynamoDB, S3, Secrets Manager and EventBridge, and the simulator's bank in process. The harness
 * owns every source of nondeterminism: time (a fake clock: each wait is a timer the driver fires
 * when nothing else can run), scheduling (every AWS and bank call is answered when fast-check's
 * scheduler releases it), randomness (Math.random seeded) and faults (the scenario's plan, by the
 * index of the call, the receive or the notification they hit). A seed is one replayable run.
 */
import { type DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import type { BankConnectionSettings } from '../../contracts/bank-connection';
import { GetSecretValueCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import type fc from 'fast-check';
import { LOOK_RATE_NAME, type ProcessorSettings } from '../../contracts/processor';
import { CooperativeClient, credentialsFromSecret, settledBoletoListing } from '../../lambda/bank/cooperative';
import { lookRequestSender } from '../../lambda/reconciliation/aws';
import { recentDays, sweep } from '../../lambda/reconciliation/sweep';
import { DynamoDbDayCursors } from '../../lambda/store/day-cursors';
import { DynamoDbPendingPayments } from '../../lambda/store/pending-payments';
import { sweepSettings } from '../../lib/reconciliation/sweep-settings';
import { followedSubject } from '../../lambda/bank/families';
import { recurrenceListing, recurringChargeListing } from '../../lambda/bank/pix/recurring-listing';
import { eventBridgePublisher, sqsQuarantine, sqsRequeue } from '../../lambda/processor/aws';
import { processBatch } from '../../lambda/processor/batch';
import { ProcessorQueue } from '../../lambda/processor/deps';
import { handleNotification, type ReceiverDeps } from '../../lambda/receiver/receiver';
import { TokenCache } from '../../lambda/receiver/token-cache';
import { loadStageToken } from '../../lambda/shared/secret-tokens';
import { ReceiverDefaults } from '../../contracts/receiver';
import { S3NotificationJournal } from '../../lambda/store/journal';
import { DynamoDbLookMarkers } from '../../lambda/store/look-markers';
import { DynamoDbSlotSchedule, sharedBankPacers } from '../../lambda/store/slot-schedule';
import { DynamoDbSubjectStore, type OutboxEntry, type SubjectStore } from '../../lambda/store/subject-store';
import { BankApiError } from '../../lambda/bank/errors';
import type { BankQueries, ProcessorDeps } from '../../lambda/processor/deps';
import { processorSettings } from '../../lib/processor/processor-settings';
import type { OutgoingNotification } from '../../simulator/bank';
import { restProxyEvent } from '../../tools/local-aws/api-gateway';
import { lambdaRecord } from '../../tools/local-aws/sqs-event-source';
import { RecordingLogger } from '../support/recording-logger';
import {
  BANK_ORIGIN,
  BankSide,
  BOLETO_TOKEN,
  BOLETO_TOKEN_HEADER,
  PAYMENTS_TOKEN,
  PIX_CREDENTIALS,
  PIX_KEYS,
} from './bank-side';
import { PixClient, pixDayListing } from '../../lambda/bank/pix';
import { normalizePixKey, pixKeyHash } from '../../contracts/pix';
import { PixConnectionDefaults } from '../../contracts/pix-connection';
import { SIMULATOR_PATHS } from '../../contracts/sandbox';
import { EventBridgeModel, QueueModel, S3Model, SqsModel, type QueuedMessage } from './models/aws-models';
import { PendingPaymentIndex } from '../../contracts/reconciliation';
import { DynamoDbModel } from './models/dynamodb-model';
import { AwsFault, DeliveryFault, type FaultPlan, Mutant, Origin, ReceiveFault } from './faults';
import type { Scenario } from './scenario';

const TABLE = 'property-idempotency';
const BUS = 'property-bus';
const BUCKET = 'property-journal';
const QUEUE_URL = 'https://sqs.sa-east-1.amazonaws.com/111111111111/property-notifications';
const DLQ_URL = 'https://sqs.sa-east-1.amazonaws.com/111111111111/property-notifications-dlq';
const LOOK_QUEUE_URL = 'https://sqs.sa-east-1.amazonaws.com/111111111111/property-looks';
const LOOK_DLQ_URL = 'https://sqs.sa-east-1.amazonaws.com/111111111111/property-looks-dlq';
const CREDENTIALS_ARN = 'arn:aws:secretsmanager:sa-east-1:111111111111:secret:property-bank-credentials-AbCdEf';
const PAYMENTS_TOKEN_ARN = 'arn:aws:secretsmanager:sa-east-1:111111111111:secret:property-payments-token-AbCdEf';
const BOLETO_TOKEN_ARN = 'arn:aws:secretsmanager:sa-east-1:111111111111:secret:property-boleto-token-AbCdEf';
const PIX_CREDENTIALS_ARN = 'arn:aws:secretsmanager:sa-east-1:111111111111:secret:property-pix-credentials-AbCdEf';

/** How the deployed stack is tuned in the harness: the construct's defaults, shorter where only time would pass. */
export const HARNESS_TIMING = {
  functionTimeoutMs: 30_000,
  visibilityTimeoutMs: 180_000,
  maxReceiveCount: 5,
  longPollMs: 20_000,
  batchSize: 10,
  sweepEveryMs: 15 * 60_000,
} as const;

const never = <T>(): Promise<T> => new Promise<T>(() => undefined);

function throttled(service: string): Error {
  return Object.assign(new Error(`Rate exceeded (${service})`), {
    name: 'ThrottlingException',
    $metadata: { httpStatusCode: 400 },
    $retryable: { throttling: true },
  });
}

/** One Lambda execution environment: its clients; once its invocation is abandoned (a timeout), every call it makes hangs. */
class Environment {
  dead = false;
  constructor(readonly id: string) {}
}

/** A delivery the bank made, and what the receiver answered. */
export interface Delivery {
  readonly notification: OutgoingNotification;
  /** The body as it was posted (a boleto event in the scenario's shape). */
  readonly sent: unknown;
  /** The route it was posted to, and API Gateway's request id (what the journal and the dead letters name). */
  readonly route: string;
  readonly requestId: string;
  readonly at: number;
  readonly status: number;
  readonly origin: Origin;
}

/** What the run counts, for the soak's report. */
export interface RunTally {
  faults: Record<string, number>;
  invocations: number;
  abandoned: number;
}

export class World {
  readonly bank: BankSide;
  readonly dynamo: DynamoDbModel;
  readonly sqs = new SqsModel();
  readonly queue: QueueModel;
  readonly dlq: QueueModel;
  readonly lookQueue: QueueModel;
  readonly lookDlq: QueueModel;
  readonly s3 = new S3Model(BUCKET);
  readonly bus: EventBridgeModel;
  readonly logs = new RecordingLogger();
  readonly deliveries: Delivery[] = [];
  readonly settings: ProcessorSettings;
  readonly tally: RunTally = { faults: {}, invocations: 0, abandoned: 0 };
  /** Sweeps that finished. */
  sweeps = 0;
  /** Set when faults stop (the plan's entries after it are not applied). */
  faultsStoppedAt?: number;
  /** Work that keeps the run going: deliveries and steps not yet made, invocations in flight. */
  pending = 0;
  stopped = false;
  /** When the late phase began (records past their lifetime), if the scenario has one. */
  lateFrom?: number;
  /** The table's items as the late phase found them: what an audit within the records' lifetime read. */
  itemsBeforeLate: ReadonlyArray<Record<string, unknown>> = [];
  /** The DynamoDB call before which the table's TTL deletes what has expired (the late phase's fault). */
  expireBeforeCall?: number;
  private dynamoCalls = 0;
  private awsCalls = 0;
  private bankCalls = 0;
  private notifications = 0;
  private receives = 0;
  private putEntries = 0;
  private ids = 0;
  private environments = 0;

  private readonly plan: FaultPlan;

  constructor(
    private readonly scheduler: fc.Scheduler,
    readonly scenario: Pick<Scenario, 'faults' | 'answers' | 'boletoShape' | 'pixReceiver' | 'pixBulk'>,
    private readonly mutant?: Mutant,
  ) {
    this.plan = scenario.faults;
    const now = () => Date.now();
    const id = () => `m-${(++this.ids).toString().padStart(6, '0')}`;
    this.bank = new BankSide(now, (notification) => this.notify(notification), scenario.answers);
    this.dynamo = new DynamoDbModel(TABLE, 'id', 'expiration', now, {
      [PendingPaymentIndex.NAME]: { partition: PendingPaymentIndex.PARTITION, sort: PendingPaymentIndex.SINCE },
    });
    this.queue = this.sqs.add(
      new QueueModel(QUEUE_URL, HARNESS_TIMING.visibilityTimeoutMs, HARNESS_TIMING.maxReceiveCount, now, id),
    );
    this.dlq = this.sqs.add(new QueueModel(DLQ_URL, HARNESS_TIMING.visibilityTimeoutMs, Infinity, now, id));
    this.lookQueue = this.sqs.add(
      new QueueModel(LOOK_QUEUE_URL, HARNESS_TIMING.visibilityTimeoutMs, HARNESS_TIMING.maxReceiveCount, now, id),
    );
    this.lookDlq = this.sqs.add(new QueueModel(LOOK_DLQ_URL, HARNESS_TIMING.visibilityTimeoutMs, Infinity, now, id));
    this.queue.deadLetter = this.dlq;
    this.lookQueue.deadLetter = this.lookDlq;
    this.bus = new EventBridgeModel(
      BUS,
      now,
      id,
      () => this.faultAt(this.plan.putEntries, this.putEntries++) !== undefined,
    );
    this.settings = processorSettings(
      {
        eventBusName: BUS,
        idempotencyTableName: TABLE,
        quarantineQueueUrl: DLQ_URL,
        queueUrl: QUEUE_URL,
        lookQueueUrl: LOOK_QUEUE_URL,
        lookQuarantineQueueUrl: LOOK_DLQ_URL,
        journalBucketName: BUCKET,
        ownSenderId: '111111111111',
      },
      {
        maxReceiveCount: HARNESS_TIMING.maxReceiveCount,
        receiverName: 'property',
        queueVisibilityTimeoutSeconds: HARNESS_TIMING.visibilityTimeoutMs / 1000,
      },
    );
    // A PRODUCTION receiver's Pix route: mutual TLS with a pin, so only the provider posts callbacks.
    this.settings = {
      ...this.settings,
      pixCallbacksAuthenticated: true,
      // Verification by listing from the first callback (no bound): every Pix of the run takes it.
      ...(scenario.pixBulk ? { pixBulk: { afterSeconds: 0, chargeReachMinutes: 60 } } : {}),
    };
  }

  private faultAt<T>(entries: ReadonlyArray<{ readonly at: number; readonly fault: T }>, index: number): T | undefined {
    if (this.faultsStoppedAt !== undefined) return undefined;
    const fault = entries.find((entry) => entry.at === index)?.fault;
    if (fault !== undefined) this.tally.faults[String(fault)] = (this.tally.faults[String(fault)] ?? 0) + 1;
    return fault;
  }

  /** One AWS or bank call from `env`: released by the scheduler, with the plan's fault for its index. */
  private async call<T>(
    env: Environment,
    label: string,
    fault: AwsFault | undefined,
    work: () => T | Promise<T>,
  ): Promise<T> {
    if (env.dead) return never();
    await this.scheduler.schedule(Promise.resolve(), label);
    if (env.dead) return never();
    if (fault === AwsFault.ABANDON_BEFORE) return this.abandon(env);
    if (fault === AwsFault.THROTTLE) throw throttled(label);
    const result = await work();
    if (fault === AwsFault.ABANDON_AFTER) return this.abandon(env);
    return result;
  }

  private abandon<T>(env: Environment): Promise<T> {
    env.dead = true;
    this.tally.abandoned++;
    return never();
  }

  /** An SDK client of `env` whose every command the model answers. */
  private client<C>(env: Environment, service: string, model: { handle(command: unknown): unknown }): C {
    return {
      send: (command: object) =>
        this.call(env, `${service} ${command.constructor.name}`, this.faultAt(this.plan.aws, this.awsCalls++), () => {
          if (service === 'dynamodb') this.ttlBefore(this.dynamoCalls++);
          return model.handle(this.planted(command));
        }),
    } as unknown as C;
  }

  /** DynamoDB's TTL, deleting what has expired just before the call the late phase names. */
  private ttlBefore(call: number): void {
    if (call !== this.expireBeforeCall) return;
    const gone = this.dynamo.expire();
    if (gone.length)
      this.tally.faults[AwsFault.TTL_EXPIRED] = (this.tally.faults[AwsFault.TTL_EXPIRED] ?? 0) + gone.length;
  }

  /** The late phase: the clock past every record's lifetime, the TTL to strike before DynamoDB call `expireAt` from now. */
  beginLatePhase(expireAt: number): void {
    this.itemsBeforeLate = structuredClone([...this.dynamo.items.values()]);
    this.lateFrom = Date.now();
    this.expireBeforeCall = this.dynamoCalls + expireAt;
    this.stopped = false;
  }

  /** The command as a planted bug would send it. */
  private planted(command: object): object {
    if (
      this.mutant !== Mutant.UNCONDITIONAL_WRITE ||
      !(command instanceof PutItemCommand) ||
      !/^(boleto|payment):/.test(command.input.Item?.id?.S ?? '')
    )
      return command;
    return new PutItemCommand({
      ...command.input,
      ConditionExpression: undefined,
      ExpressionAttributeNames: undefined,
      ExpressionAttributeValues: undefined,
    });
  }

  private secrets(env: Environment): SecretsManagerClient {
    const values: Record<string, string> = {
      [CREDENTIALS_ARN]: JSON.stringify(this.bank.secretValue()),
      [PAYMENTS_TOKEN_ARN]: PAYMENTS_TOKEN,
      [BOLETO_TOKEN_ARN]: BOLETO_TOKEN,
    };
    return this.client<SecretsManagerClient>(env, 'secretsmanager', {
      handle: (command) => {
        if (!(command instanceof GetSecretValueCommand))
          throw new Error(`the Secrets Manager model does not answer ${(command as object).constructor.name}`);
        const value = values[command.input.SecretId!];
        // No secret of the harness is being rotated: it has an AWSCURRENT version only.
        const stage = command.input.VersionStage ?? 'AWSCURRENT';
        if (value === undefined || stage !== 'AWSCURRENT')
          throw Object.assign(new Error("Secrets Manager can't find the specified secret."), {
            name: 'ResourceNotFoundException',
          });
        return { SecretString: value, VersionId: 'v1', VersionStages: ['AWSCURRENT'] };
      },
    });
  }

  // ---- The bank's side: its notifications, delivered (or not) to the receiver ----

  private notify(notification: OutgoingNotification): void {
    const fault = this.faultAt(this.plan.deliveries, this.notifications++);
    if (!notification.url || fault === DeliveryFault.LOSE) return;
    const copies = fault === DeliveryFault.DUPLICATE ? 2 : 1;
    for (let i = 0; i < copies; i++) {
      const delay = fault === DeliveryFault.DELAY ? 45_000 : i * 7_000;
      this.later(delay, () => this.deliver(notification, Origin.BANK));
    }
  }

  /** Runs `work` after `ms` of the harness's time, keeping the run going until it is done. */
  later(ms: number, work: () => Promise<unknown>): void {
    this.pending++;
    setTimeout(() => {
      void work().finally(() => this.pending--);
    }, ms);
  }

  /** A boleto event as the scenario's bank sends it: one object, an array of one, or `{"eventos": [...]}`. */
  private shaped(notification: OutgoingNotification): unknown {
    if (notification.kind !== 'boleto' || Array.isArray(notification.body)) return notification.body;
    if (this.scenario.boletoShape === 'array') return [notification.body];
    return this.scenario.boletoShape === 'eventos' ? { eventos: [notification.body] } : notification.body;
  }

  /** Someone posts a notification to the receiver (a fresh environment): the bank, a forger, or a foreign subject with the token. */
  async deliver(notification: OutgoingNotification, origin: Origin): Promise<void> {
    const env = new Environment(`receiver-${++this.environments}`);
    const url = new URL(notification.url!);
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    if (notification.authHeader)
      headers[notification.authHeader.name] =
        origin === Origin.FORGED ? 'forged-token-of-someone-else' : notification.authHeader.value;
    const sent = this.shaped(notification);
    const [route, requestId] = [url.pathname.replace(/^\//, ''), `req-${++this.ids}`];
    const event = restProxyEvent({ route, headers, body: JSON.stringify(sent), requestId, sourceIp: '203.0.113.10' });
    const deps: ReceiverDeps = {
      settings: {
        queueUrl: QUEUE_URL,
        paymentsTokenSecretArn: PAYMENTS_TOKEN_ARN,
        boletoTokenSecretArn: BOLETO_TOKEN_ARN,
        boletoTokenHeader: BOLETO_TOKEN_HEADER,
        maxBodyBytes: 256 * 1024,
        tokenCacheTtlMs: 300_000,
        enqueueBudgetMs: 5_000,
        receiverName: 'property',
      },
      sqs: this.client(env, 'sqs', this.sqs),
      // The receiver's own token loader (AWSCURRENT and, during a rotation, AWSPENDING), over the model.
      tokens: new TokenCache({
        load: (arn, stage) => loadStageToken(this.secrets(env), arn, stage, ReceiverDefaults.secretFetchBudgetMs),
        ttlMs: 300_000,
        mismatchRefreshIntervalMs: 5_000,
      }),
      logger: this.logs,
      count: () => undefined,
      remainingTimeMs: () => 10_000,
    };
    // API Gateway answers 504 at its 29 s limit: a receiver that hangs (abandoned) is a failed delivery.
    const timeout = new Promise<{ statusCode: number }>((resolve) =>
      setTimeout(() => resolve({ statusCode: 504 }), 29_000),
    );
    const answer = await Promise.race([handleNotification(event, deps), timeout]);
    this.deliveries.push({ notification, sent, route, requestId, at: Date.now(), status: answer.statusCode, origin });
  }

  // ---- The processor: execution environments fed by an event source mapping ----

  /** The bank's client of an environment, as a handler makes it (its pacers on the shared schedule), its calls through the harness. */
  private bankClient(env: Environment, dynamo: DynamoDBClient, connection: BankConnectionSettings) {
    const pacers = sharedBankPacers(dynamo, TABLE, connection);
    const transport = this.bank.transport((label, work) =>
      this.call(env, label, this.faultAt(this.plan.bank, this.bankCalls++), work),
    );
    const bank = new CooperativeClient({
      settings: connection,
      pacer: pacers.calls,
      credentials: credentialsFromSecret(this.secrets(env), CREDENTIALS_ARN),
      transport: () => transport,
    });
    return { bank, pacers };
  }

  private processorEnvironment() {
    const env = new Environment(`processor-${++this.environments}`);
    const dynamo = this.client<never>(env, 'dynamodb', this.dynamo);
    const sqs = this.client<never>(env, 'sqs', this.sqs);
    const connection = this.bank.connection(CREDENTIALS_ARN);
    const { bank, pacers } = this.bankClient(env, dynamo, connection);
    const lag = (error: unknown) => {
      if (this.mutant === Mutant.NOT_FOUND_AS_LAG && error instanceof BankApiError && error.status === 404)
        throw new BankApiError(error.operation, 503, 'not found yet', true);
      throw error;
    };
    const pixClient = (pacer: typeof pacers.calls) => this.pixClient(env, pacer);
    const queries = (client: CooperativeClient, pix: PixClient): BankQueries => ({
      clients: {
        cooperative: {
          queryBoleto: (...args: Parameters<CooperativeClient['queryBoleto']>) =>
            client.queryBoleto(...args).catch(lag),
          queryPayment: (...args: Parameters<CooperativeClient['queryPayment']>) =>
            client.queryPayment(...args).catch(lag),
        },
        pix,
      },
    });
    const store = new DynamoDbSubjectStore(dynamo, TABLE, this.settings.idempotencyTtlSeconds);
    const publish = eventBridgePublisher(this.client(env, 'eventbridge', this.bus), BUS, this.settings.eventSource);
    const deps: ProcessorDeps = {
      settings: {
        ...this.settings,
        pixKeys: (this.mutant === Mutant.ACCOUNT_KEYS ? [PIX_KEYS.ours, PIX_KEYS.other] : [PIX_KEYS.ours]).map(
          (key) => normalizePixKey(key)!.key,
        ),
        ...(this.scenario.pixReceiver?.keylessOwner ? { pixKeyless: true, pixRecurring: true } : {}),
      },
      account: connection.account,
      bank: queries(bank, pixClient(pacers.calls)),
      lookBank: queries(bank.withPacer(pacers.looks), pixClient(pacers.looks)),
      store: this.mutant === Mutant.PUBLISH_BEFORE_RECORD ? publishingFirst(store, publish) : store,
      markers: new DynamoDbLookMarkers(dynamo, TABLE),
      looks: {
        schedule: new DynamoDbSlotSchedule(dynamo, TABLE, LOOK_RATE_NAME),
        ratePerSecond: this.settings.lookQueryShare * connection.queriesPerSecond,
      },
      journal: new S3NotificationJournal(this.client(env, 's3', this.s3), BUCKET),
      publish,
      quarantine: sqsQuarantine(sqs, { [ProcessorQueue.NOTIFICATIONS]: DLQ_URL, [ProcessorQueue.LOOKS]: LOOK_DLQ_URL }),
      requeue: sqsRequeue(sqs, { [ProcessorQueue.NOTIFICATIONS]: QUEUE_URL, [ProcessorQueue.LOOKS]: LOOK_QUEUE_URL }),
      logger: this.logs,
      count: () => undefined,
    };
    return { env, deps };
  }

  /** The provider's Pix API for an environment, on the bank's transport and the pacer given (the standard Pix API's client, as the handler makes it). */
  private pixClient(env: Environment, pacer: ReturnType<typeof sharedBankPacers>['calls']): PixClient {
    const transport = this.bank.transport((label, work) =>
      this.call(env, label, this.faultAt(this.plan.bank, this.bankCalls++), work),
    );
    return new PixClient({
      settings: {
        baseUrl: BANK_ORIGIN,
        tokenUrl: `${BANK_ORIGIN}${SIMULATOR_PATHS.pixToken}`,
        credentialsSecretArn: PIX_CREDENTIALS_ARN,
        simulated: true,
      },
      credentials: () => Promise.resolve({ ...PIX_CREDENTIALS }),
      pacer,
      transport: () => transport,
    });
  }

  /** An event source mapping's poller: receives batches from `queue` and invokes an environment, replacing a dead one. */
  async poll(queue: QueueModel): Promise<void> {
    let environment = this.processorEnvironment();
    while (!this.stopped) {
      if (environment.env.dead) environment = this.processorEnvironment();
      const batch = queue.receive(
        HARNESS_TIMING.batchSize,
        () => this.faultAt(this.plan.receives, this.receives++) === ReceiveFault.DUPLICATE,
      );
      if (!batch.length) {
        await queue.waitForMessages(HARNESS_TIMING.longPollMs);
        continue;
      }
      this.pending++;
      this.tally.invocations++;
      try {
        await this.invoke(environment, queue, batch);
      } finally {
        this.pending--;
      }
    }
  }

  private async invoke(
    { env, deps }: ReturnType<World['processorEnvironment']>,
    queue: QueueModel,
    batch: QueuedMessage[],
  ): Promise<void> {
    const deadline = Date.now() + HARNESS_TIMING.functionTimeoutMs;
    const event: SQSEvent = { Records: batch.map((m) => sqsRecord(m, queue)) };
    const timedOut = new Promise<'timeout'>((resolve) =>
      setTimeout(() => resolve('timeout'), HARNESS_TIMING.functionTimeoutMs),
    );
    const result = await Promise.race([
      processBatch(event, { getRemainingTimeInMillis: () => deadline - Date.now() }, deps),
      timedOut,
    ]);
    if (result === 'timeout') {
      // Lambda ends the environment; nothing of the batch is deleted (SQS hands it out again after the visibility timeout).
      if (!env.dead) void this.abandon(env);
      return;
    }
    const failed = new Set(result.batchItemFailures.map((f) => f.itemIdentifier));
    for (const message of batch) if (!failed.has(message.messageId)) queue.delete(message.receipt!);
  }

  /**
   * One run of the reconciliation sweep, in an environment of its own: the day's settled boletos
   * listed and the pending payments followed, each a look request to the look queue.
   */
  async sweep(): Promise<void> {
    const env = new Environment(`sweep-${++this.environments}`);
    const dynamo = this.client<never>(env, 'dynamodb', this.dynamo);
    const connection = this.bank.connection(CREDENTIALS_ARN);
    const { bank, pacers } = this.bankClient(env, dynamo, connection);
    const settings = sweepSettings(
      { idempotencyTableName: TABLE, queueUrl: LOOK_QUEUE_URL },
      { receiverName: 'property' },
    );
    const beneficiario = connection.account.codigoBeneficiario;
    const store = new DynamoDbSubjectStore(dynamo, TABLE, 0);
    const run = sweep(
      {
        settings,
        codigoBeneficiario: beneficiario,
        listings: [
          {
            listing: settledBoletoListing(bank, beneficiario, connection.listingPageSize),
            cursors: new DynamoDbDayCursors(dynamo, TABLE, beneficiario, settings.lookbackDays, 'boleto'),
            daysBack: recentDays(settings.lookbackDays),
          },
          // The Pix received today and their refunds (the receiver's key; without a txid, as the scenario's receiver says).
          {
            listing: pixDayListing(this.pixClient(env, pacers.calls), {
              keyHashes: [pixKeyHash(normalizePixKey(PIX_KEYS.ours)!.key)],
              publishWithoutTxid: this.scenario.pixReceiver?.publishWithoutTxid ?? false,
              pageSize: PixConnectionDefaults.listingPageSize,
            }),
            cursors: new DynamoDbDayCursors(dynamo, TABLE, beneficiario, settings.lookbackDays, 'pix'),
            daysBack: recentDays(settings.lookbackDays),
          },
          // Pix Automático's, by creation, on the receiver that takes them.
          ...(this.scenario.pixReceiver?.keylessOwner
            ? [
                recurrenceListing(this.pixClient(env, pacers.calls), PixConnectionDefaults.listingPageSize),
                recurringChargeListing(this.pixClient(env, pacers.calls), PixConnectionDefaults.listingPageSize),
              ].map((listing) => ({
                listing,
                cursors: new DynamoDbDayCursors(dynamo, TABLE, beneficiario, settings.lookbackDays, listing.name),
                daysBack: recentDays(settings.lookbackDays),
              }))
            : []),
        ],
        readRecord: (id) => store.read(id),
        pendingPayments: new DynamoDbPendingPayments(dynamo, TABLE),
        followed: followedSubject,
        markers: new DynamoDbLookMarkers(dynamo, TABLE),
        send: lookRequestSender(this.client(env, 'sqs', this.sqs), LOOK_QUEUE_URL),
        count: () => undefined,
        logger: this.logs,
      },
      Date.now() + 60_000,
    );
    const timedOut = new Promise<void>((resolve) => setTimeout(resolve, 61_000));
    await Promise.race([
      run.then(() => {
        this.sweeps++;
      }),
      timedOut,
    ]);
  }

  /** Nothing left to do: no step, delivery or invocation pending and every queue empty. */
  quiet(): boolean {
    return this.pending === 0 && this.queue.messages.length === 0 && this.lookQueue.messages.length === 0;
  }
}

/** A store whose write publishes the outbox it holds first (the planted bug PUBLISH_BEFORE_RECORD). */
function publishingFirst(
  store: SubjectStore,
  publish: (entries: readonly OutboxEntry[]) => Promise<void>,
): SubjectStore {
  return {
    read: (id) => store.read(id),
    readMany: store.readMany && ((ids) => store.readMany!(ids)),
    write: async (id, version, next) => {
      if (next.outbox) await publish(next.outbox.entries);
      return store.write(id, version, next);
    },
    takeOutbox: (id, outbox, until) => store.takeOutbox(id, outbox, until),
    clearOutbox: (id, outboxId) => store.clearOutbox(id, outboxId),
  };
}

/** A message the model handed out, as Lambda's SQS event holds it. */
function sqsRecord(message: QueuedMessage, queue: QueueModel): SQSRecord {
  return lambdaRecord(
    {
      MessageId: message.messageId,
      ReceiptHandle: message.receipt,
      Body: message.body,
      MessageAttributes: message.attributes,
      Attributes: {
        ApproximateReceiveCount: String(message.receiveCount),
        SentTimestamp: String(message.sentAt),
        SenderId: '111111111111',
        ApproximateFirstReceiveTimestamp: String(message.sentAt),
      },
    },
    `arn:aws:sqs:sa-east-1:111111111111:${queue.url.split('/').pop()}`,
    'sa-east-1',
  );
}
