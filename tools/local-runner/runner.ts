/**
 * The whole flow on one machine, with the handler bundles `cdk deploy` ships: the stack is
 * synthesized with its bank settings pointed at the bank simulator, and every part the template
 * declares gets a local stand-in wired from the template itself (functions' environment,
 * timeouts and memory, the queue's redrive and visibility, the event source mapping, the
 * registrations' properties).
 */
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync, mkdtempSync, rmSync, type WriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AttributeValue, ScanCommand } from '@aws-sdk/client-dynamodb';
import { PurgeQueueCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { App, Stack } from 'aws-cdk-lib';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { decodeStoredNotification } from '../../lambda/store/stored-notification';
import { DynamoDbSubjectStore, type SubjectRecord } from '../../lambda/store/subject-store';
import { BANK_CONNECTION_ENV, type BankConnectionSettings } from '../../contracts/bank-connection';
import { PROCESSOR_SETTINGS_ENV, type ProcessorSettings } from '../../contracts/processor';
import { PAYMENTS_TOKEN_HEADER, RECEIVER_SETTINGS_ENV, ReceiverDefaults, type ReceiverSettings, ROUTES } from '../../contracts/receiver';
import { httpCall } from '../../simulator/https-client';
import type { BankSimulator, BankSimulatorOptions } from '../../simulator/simulator';
import { LocalApiGateway, type ProxyExchange } from '../local-aws/api-gateway';
import { LocalCustomResource } from '../local-aws/custom-resource';
import { LocalEventBridge, type RecordedEvent } from '../local-aws/eventbridge-server';
import { matchesEventPattern } from '../local-aws/event-pattern';
import { createQueueWithDlq, drainQueue, queueDepth } from '../local-aws/fauxqs';
import { LOCAL_AWS, localStackId } from '../local-aws/local-env';
import { LocalFunction } from '../local-aws/local-function';
import type { LocalSecretsManager } from '../local-aws/secrets-manager-server';
import { type PollResult, SqsEventSource } from '../local-aws/sqs-event-source';
import type { TcpGate } from '../local-aws/tcp-gate';
import { SWEEP_SETTINGS_ENV, type SweepResult, type SweepSettings, type WatchedRegistration } from '../../contracts/reconciliation';
import { type BoletoContractSpec, compactDeployed, type PaymentWebhookSpec, RegistrationProperty } from '../../contracts/registration';
import { evaluateAlarm, LocalAlarmState, type MetricDatapoint, metricDatapoints } from './alarms';
import type { StackOutput } from '../local-aws/cloudformation-server';
import { runCli } from '../../cli/cli';
import type { LocalAlarm } from '../local-aws/cloudwatch-server';
import { auditExactlyOnce, type AuditReport } from './audit';
import { type RunnerBank, simulatorCredentials } from './bank-credentials';
import { LocalResolver, localBucketName, synthesizeLocalStack } from './local-resolver';
import { LocalServices } from './local-services';
import { LocalReceiverStack } from './local-stack';
import {
  type CloudFormationTemplate, describeQueueConsumer, describeReceiverDeployment, type QueueConsumerDescription, ruleLogicalId, type EventSourceDescription, type FunctionDescription, type QueueDescription, type ReceiverDeployment, settingsIn,
} from './template';

export { RUNNER_CONTEXT_KEYS } from './local-stack';

/** The name of the stack the runner synthesizes. */
export const LOCAL_STACK_ID = 'BankWebhooksLocal';

export interface LocalRunnerOptions {
  /**
   * Builds the stack to run inside `app`, whose context points the bank settings at the simulator
   * (RUNNER_CONTEXT_KEYS). The stack must hold exactly one BankWebhookReceiver.
   * @default LocalReceiverStack (local-stack.ts): a receiver as the basic example deploys it
   */
  readonly stack?: (app: App, id: string) => Stack;
  /** Options of the bank simulator (faults in force from the start, delivery deadline…); with `sandbox`, only its accounts count. @default a simulator with the sample account */
  readonly simulator?: Omit<BankSimulatorOptions, 'trustedCas'>;
  /**
   * Run the bank as a deployed BankSandbox: its bundle in two local environments behind a local
   * function URL, its state in dynalite, its control API by invoking it (no mutual TLS). @default false: the in-process simulator
   */
  readonly sandbox?: boolean;
  /**
   * A team's own consumer: a module (TypeScript or JavaScript) whose export receives every
   * verified event in the shape EventBridge gives a Lambda target, in its own process.
   * @default none
   */
  readonly consumer?: { readonly entry: string; readonly exportName?: string };
  /**
   * The logical ID (or its prefix, such as the rule's construct path) of an `AWS::Events::Rule` in
   * the template whose target the consumer stands for: the consumer then gets only the events
   * that rule's event pattern matches, as EventBridge would deliver them.
   * @default every event on the bus
   */
  readonly consumerRule?: string;
  /**
   * The visibility timeout of the consumer's own queue (a rule made with `consumer`) in place of
   * the template's, so that a message the consumer failed comes back sooner in tests.
   * @default the template's
   */
  readonly consumerVisibilityTimeoutSeconds?: number;
  /**
   * An EventBridge stand-in already started and shared with other runners (several receivers
   * publishing to one bus); the runner neither starts nor stops it.
   * @default a bus of the runner's own
   */
  readonly eventBridge?: LocalEventBridge;
  /**
   * The stack's name (its receiver's metrics are named after it by default).
   * @default LOCAL_STACK_ID
   */
  readonly stackName?: string;
  /**
   * The metric datapoints CloudWatch keeps for the account and region, shared with other
   * runners (several receivers in one account): each runner adds its functions' datapoints and
   * evaluates its own alarms over all of them, as CloudWatch would.
   * @default datapoints of the runner's own
   */
  readonly metrics?: MetricDatapoint[];
  /** Where the functions' log files go. @default a new temporary folder, removed by stop() */
  readonly logDir?: string;
  /** Pollers feeding the processor. @default the mapping's maximum concurrency, else 2 */
  readonly pollers?: number;
  /** Told of every line a function writes. */
  readonly onLog?: (functionName: string, line: string) => void;
  /**
   * The queue's visibility timeout in place of the template's, so that retried messages come back
   * sooner in tests. It must exceed the processor's timeout (an IN_PROGRESS idempotency record of
   * a crashed invocation lasts that long).
   * @default the template's
   */
  readonly visibilityTimeoutSeconds?: number;
}

/** Where a scenario starts in the runner's records (see `checkpoint()` and `audit()`). */
export interface RunnerCheckpoint {
  readonly exchanges: number;
  readonly events: number;
  readonly quarantined: number;
}

/** A message the processor quarantined, as read back from the dead-letter queue. */
export interface QuarantinedMessage {
  readonly messageId: string;
  readonly reason?: string;
  readonly body: string;
}

/** Counts of what the runner saw; the demo's progress line and summary come from here. */
export interface RunnerCounts {
  readonly answered: Readonly<Record<number, number>>;
  readonly enqueuedMessages: number;
  readonly processorInvocations: number;
  readonly processorInvocationErrors: number;
  readonly verifiedEvents: number;
  readonly quarantined: number;
  readonly consumerInvocations: number;
  readonly consumerErrors: number;
  /** Sums of the processor's and receiver's own metrics (their embedded-metric-format log lines). */
  readonly metrics: Readonly<Record<string, number>>;
}

interface RunningRegistration {
  readonly logicalId: string;
  readonly type: string;
  readonly resource: LocalCustomResource;
}

/** An event as EventBridge hands it to a target (a Lambda function's payload, an SQS message's body). */
function delivered(event: RecordedEvent): Record<string, unknown> {
  return {
    version: '0', id: event.id, 'detail-type': event.detailType, source: event.source, account: LOCAL_AWS.accountId,
    time: event.time ?? new Date().toISOString(), region: LOCAL_AWS.region, resources: [], detail: event.detail,
  };
}

/** Sums the counts of embedded-metric-format lines (Powertools Metrics) by metric name. */
export function addMetricLine(line: string, sums: Record<string, number>): void {
  if (!line.startsWith('{') || !line.includes('"_aws"')) return;
  try {
    const parsed = JSON.parse(line) as Record<string, unknown> & { _aws?: { CloudWatchMetrics?: Array<{ Metrics?: Array<{ Name: string }> }> } };
    for (const directive of parsed._aws?.CloudWatchMetrics ?? []) {
      for (const { Name } of directive.Metrics ?? []) {
        const value = parsed[Name];
        const values = Array.isArray(value) ? value : [value];
        sums[Name] = (sums[Name] ?? 0) + values.reduce((total: number, v) => total + (typeof v === 'number' ? v : 0), 0);
      }
    }
  } catch {
    // not a metric line
  }
}

/** The whole receiving side, local: see the module comment. Start with `LocalRunner.start()`. */
export class LocalRunner {
  static async start(options: LocalRunnerOptions = {}): Promise<LocalRunner> {
    const runner = new LocalRunner(options);
    try {
      await runner.init();
    } catch (error) {
      await runner.stop();
      throw error;
    }
    return runner;
  }

  /** The stand-ins of the AWS services, and the bank. */
  services!: LocalServices;
  /** The synthesized template and what the runner read from it. */
  template!: CloudFormationTemplate;
  deployment!: ReceiverDeployment;
  /** Every request to the front door, in order of answer. */
  readonly exchanges: ProxyExchange[] = [];
  /** Messages the processor quarantined, read from the dead-letter queue so far. */
  readonly quarantined: QuarantinedMessage[] = [];
  /** Request ids of every message the processor was given. */
  readonly processedRequestIds = new Set<string>();
  receiver!: LocalFunction;
  processor!: LocalFunction;
  registrationHandler?: LocalFunction;
  /** The reconciliation sweep's function, when the stack has one. */
  sweeper?: LocalFunction;
  consumer?: LocalFunction;
  gateway!: LocalApiGateway;
  /** The front door's stage URL (`https://127.0.0.1:<port>/<stage>/`). */
  apiUrl!: string;
  queueUrl!: string;
  dlqUrl!: string;
  /** The processor's look queue (the sweep's and Track Payment's look requests) and its dead-letter queue. */
  lookQueueUrl!: string;
  lookDlqUrl!: string;
  /** The processor's environments serving the look queue (Lambda runs each mapping's apart). */
  lookProcessor!: LocalFunction;
  /** The token values of the generated token secrets, by route. */
  readonly tokens: Partial<Record<(typeof ROUTES)[number], string>> = {};
  /** Name of the header that carries the boleto token. */
  boletoTokenHeader: string = ReceiverDefaults.boletoTokenHeader;
  readonly logDir: string;
  /** The stack's name. */
  readonly stackName: string;

  /** With a consumer rule whose target is a queue the consumer reads: that queue and its dead-letter queue. */
  consumerQueueUrl?: string;
  consumerDlqUrl?: string;
  private consumerQueue?: QueueConsumerDescription;
  private consumerSource?: SqsEventSource;
  private source?: SqsEventSource;
  private lookSource?: SqsEventSource;
  private resolver!: LocalResolver;
  private assemblyDir?: string;
  private readonly ownsLogDir: boolean;
  private readonly logFiles = new Map<string, WriteStream>();
  /** ARNs of the generated secrets, by logical id. */
  private readonly secretArns = new Map<string, string>();
  private readonly messageIds = new Set<string>();
  private readonly metricSums: Record<string, number> = {};
  /** Every metric datapoint the functions printed, for the alarms. */
  private readonly datapoints: MetricDatapoint[];
  private scheduleTimer?: NodeJS.Timeout;
  private sweepRunning?: Promise<SweepResult | undefined>;
  private readonly registrations: RunningRegistration[] = [];
  private readonly consumerCalls: Array<Promise<void>> = [];
  private processorInvocations = 0;
  private processorInvocationErrors = 0;
  private consumerInvocations = 0;
  private consumerErrors = 0;

  private constructor(private readonly options: LocalRunnerOptions) {
    this.datapoints = options.metrics ?? [];
    this.stackName = options.stackName ?? LOCAL_STACK_ID;
    this.ownsLogDir = !options.logDir;
    this.logDir = options.logDir ?? mkdtempSync(join(tmpdir(), 'bank-webhooks-logs-'));
    mkdirSync(this.logDir, { recursive: true });
  }

  /** The in-process bank simulator; a runner whose bank is a local sandbox (`sandbox: true`) has none: use `bank`. */
  get simulator(): BankSimulator {
    if (!this.services.simulator) throw new Error('This runner\'s bank is a local BankSandbox (sandbox: true): it has no in-process simulator; use runner.bank and runner.control.');
    return this.services.simulator;
  }

  /** The bank the receiver talks to (the simulator, or the local sandbox). */
  get bank(): RunnerBank {
    return this.services.bank;
  }

  get control() {
    return this.bank.control;
  }

  /** The bus the processor publishes to (shared when the options gave one). */
  get events(): LocalEventBridge {
    return this.services.events;
  }

  get secrets(): LocalSecretsManager {
    return this.services.secrets;
  }

  /** An SQS client that reaches the queues through `sqsGate`. */
  get sqs(): SQSClient {
    return this.services.sqs;
  }

  /** Closes and reopens the way to the queue (SQS unreachable for a while). */
  get sqsGate(): TcpGate {
    return this.services.sqsGate;
  }

  /** The CA (PEM) that issued the front door's certificate. */
  get apiCaPem(): string {
    return this.services.apiCaPem;
  }

  /** Counts so far. */
  counts(): RunnerCounts {
    const answered: Record<number, number> = {};
    for (const exchange of this.exchanges) answered[exchange.status] = (answered[exchange.status] ?? 0) + 1;
    return {
      answered,
      enqueuedMessages: this.messageIds.size,
      processorInvocations: this.processorInvocations,
      processorInvocationErrors: this.processorInvocationErrors,
      verifiedEvents: this.verifiedEvents().length,
      quarantined: this.quarantined.length,
      consumerInvocations: this.consumerInvocations,
      consumerErrors: this.consumerErrors,
      metrics: { ...this.metricSums },
    };
  }

  private async init(): Promise<void> {
    this.services = await LocalServices.start({ simulator: this.options.simulator, eventBridge: this.options.eventBridge, sandbox: this.options.sandbox });
    this.assemblyDir = mkdtempSync(join(tmpdir(), 'bank-webhooks-assembly-'));
    this.template = synthesizeLocalStack(this.assemblyDir, this.bank, this.stackName, this.options.stack ?? ((scope, id) => new LocalReceiverStack(scope, id)));
    const d = (this.deployment = describeReceiverDeployment(this.template));
    const visibility = this.options.visibilityTimeoutSeconds ?? d.queue.visibilityTimeoutSeconds;
    if (visibility <= d.processor.timeoutSeconds) {
      throw new Error(`visibilityTimeoutSeconds (${visibility}) must exceed the processor's timeout (${d.processor.timeoutSeconds} s): a message would come back while its invocation still runs`);
    }
    await this.provision(visibility);
    // Deployed but for what register() does.
    this.setStackStatus('CREATE_COMPLETE');
    this.services.cloudFormation.setOutputs(this.stackId, this.stackOutputs());
    this.startFunctions();
    this.resumeProcessing();
  }

  /** The template's stateful resources in the stand-ins: the queue and its DLQ, the table, the generated secrets, and the front door. */
  private async provision(visibilityTimeoutSeconds: number): Promise<void> {
    const d = this.deployment;
    ({ queueUrl: this.queueUrl, dlqUrl: this.dlqUrl } = await createQueueWithDlq(this.sqs, d.queue.logicalId, d.queue.maxReceiveCount, visibilityTimeoutSeconds, d.queue.deadLetterQueue));
    ({ queueUrl: this.lookQueueUrl, dlqUrl: this.lookDlqUrl } = await createQueueWithDlq(this.sqs, d.lookQueue.logicalId, d.lookQueue.maxReceiveCount, visibilityTimeoutSeconds, d.lookQueue.deadLetterQueue));
    await this.services.dynamo.createTableLike(d.idempotencyTable, this.template.Resources[d.idempotencyTable].Properties ?? {});
    for (const [logicalId, resource] of Object.entries(this.template.Resources)) if (resource.Type === 'AWS::S3::Bucket') this.services.s3.createBucket(localBucketName(logicalId));
    for (const logicalId of d.generatedSecrets) this.secretArns.set(logicalId, this.secrets.createSecret(logicalId, randomBytes(32).toString('hex')));
    this.gateway = new LocalApiGateway({
      tls: this.services.apiTls,
      stage: d.api.stageName,
      functionTimeoutMs: d.receiver.timeoutSeconds * 1000,
      routes: Object.fromEntries(ROUTES.map((route) => [route, (event) => this.receiver.invoke(event, event.requestContext.requestId)])),
      onResponse: (exchange) => this.exchanges.push(exchange),
      binaryMediaTypes: (this.template.Resources[d.api.restApi].Properties?.BinaryMediaTypes as string[] | undefined) ?? [],
    });
    this.apiUrl = await this.gateway.start();
    if (this.options.consumer && this.options.consumerRule) {
      this.consumerQueue = describeQueueConsumer(this.template, ruleLogicalId(this.template, this.options.consumerRule));
      const q = this.consumerQueue?.queue;
      if (q) ({ queueUrl: this.consumerQueueUrl, dlqUrl: this.consumerDlqUrl } = await createQueueWithDlq(this.sqs, q.logicalId, q.maxReceiveCount, this.options.consumerVisibilityTimeoutSeconds ?? q.visibilityTimeoutSeconds, q.deadLetterQueue));
    }
    const queueUrls = new Map([
      [d.queue.logicalId, this.queueUrl], [d.queue.deadLetterQueue, this.dlqUrl], [d.lookQueue.logicalId, this.lookQueueUrl], [d.lookQueue.deadLetterQueue, this.lookDlqUrl],
    ]);
    this.resolver = new LocalResolver(this.template, d, { queueUrls, secretArns: this.secretArns, apiUrl: this.apiUrl }, this.stackName);
    this.services.cloudWatchAlarms = () => this.localAlarms();
  }

  /** The functions, in processes of their own, wired as the template wires them: the receiver, the processor and its event source, the registrations, the sweep, a consumer. */
  private startFunctions(): void {
    const d = this.deployment;
    const endpoints = this.services.endpoints();
    const receiverEnv = this.resolve(d.receiver.environment) as Record<string, string>;
    const processorEnv = this.resolve(d.processor.environment) as Record<string, string>;
    // The bank credentials are the one secret the stack imports: it is created under the name
    // the template points at, with the simulator's credentials.
    const credentialsArn = settingsIn<BankConnectionSettings>(processorEnv, BANK_CONNECTION_ENV).credentialsSecretArn;
    this.secrets.createSecret(credentialsArn.replace(/^arn:[^:]+:secretsmanager:[^:]*:[^:]*:secret:/, ''), JSON.stringify(simulatorCredentials(this.bank)));
    const receiverSettings = settingsIn<ReceiverSettings>(receiverEnv, RECEIVER_SETTINGS_ENV);
    this.tokens.payments = this.secrets.currentValue(receiverSettings.paymentsTokenSecretArn);
    this.tokens.boleto = this.secrets.currentValue(receiverSettings.boletoTokenSecretArn);
    this.boletoTokenHeader = receiverSettings.boletoTokenHeader;

    this.receiver = this.localFunction('receiver', d.receiver, { ...receiverEnv, ...endpoints });
    this.processor = this.localFunction('processor', d.processor, { ...processorEnv, ...endpoints });
    this.lookProcessor = this.localFunction('processor', d.processor, { ...processorEnv, ...endpoints }, 'look-processor');
    if (d.registrationHandler) {
      this.registrationHandler = this.localFunction('registration', d.registrationHandler, { ...(this.resolve(d.registrationHandler.environment) as Record<string, string>), ...endpoints });
      for (const registration of d.registrations) {
        this.registrations.push({
          logicalId: registration.logicalId,
          type: registration.type,
          resource: new LocalCustomResource({
            handler: (event) => this.registrationHandler!.invoke(event, event.RequestId),
            resourceType: registration.type,
            logicalResourceId: registration.logicalId,
            timeoutMs: d.registrationHandler.timeoutSeconds * 1000,
            stackId: this.stackId,
          }),
        });
      }
    }
    if (d.reconciliation) {
      this.sweeper = this.localFunction('reconciliation', d.reconciliation.sweep, { ...(this.resolve(d.reconciliation.sweep.environment) as Record<string, string>), ...endpoints });
      // The operator CLI's `sweep` invokes it by name (its logical id locally), as the schedule would.
      const sweeper = this.sweeper;
      this.services.lambda.serve(d.reconciliation.sweep.logicalId, async (payload) => {
        await this.sweepRunning?.catch(() => undefined);
        const run = sweeper.invoke<SweepResult>(payload);
        this.sweepRunning = run;
        return run;
      });
      if (d.reconciliation.trackPaymentRule) {
        // The rule's SQS target: the event, as EventBridge delivers it, becomes a message in the queue.
        const pattern = this.resolver.rulePattern(d.reconciliation.trackPaymentRule);
        this.events.subscribe((event) => {
          if (!matchesEventPattern(pattern, { source: event.source, 'detail-type': event.detailType, detail: event.detail })) return;
          void this.sendToQueue(this.lookQueueUrl, event, 'Track Payment rule');
        });
      }
    }
    if (this.options.consumer) {
      this.consumer = new LocalFunction({
        name: 'consumer', entry: this.options.consumer.entry, exportName: this.options.consumer.exportName,
        environment: endpoints, timeoutMs: 30_000, onLog: (line) => this.log('consumer', line),
      });
      const pattern = this.options.consumerRule ? this.resolver.rulePattern(this.options.consumerRule) : undefined;
      this.events.subscribe((event) => {
        if (pattern && !matchesEventPattern(pattern, { source: event.source, 'detail-type': event.detailType, detail: event.detail })) return;
        if (this.consumerQueueUrl) this.consumerCalls.push(this.sendToQueue(this.consumerQueueUrl, event, 'consumer rule'));
        else this.deliverToConsumer(event);
      });
      if (this.consumerQueueUrl && this.consumerQueue) {
        // The rule's SQS target and the function's event source mapping on it, as the template wires them.
        this.consumerSource = new SqsEventSource({
          sqs: this.sqs,
          queueUrl: this.consumerQueueUrl,
          queueArn: `arn:aws:sqs:${LOCAL_AWS.region}:${LOCAL_AWS.accountId}:${this.consumerQueue.queue.logicalId}`,
          handler: async (sqsEvent: SQSEvent) => {
            this.consumerInvocations++;
            try {
              return await this.consumer!.invoke<SQSBatchResponse>(sqsEvent);
            } catch (error) {
              this.consumerErrors++;
              this.log('consumer', `consumer failed: ${(error as Error).message}`);
              throw error;
            }
          },
          batchSize: this.consumerQueue.eventSource.batchSize,
          reportBatchItemFailures: this.consumerQueue.eventSource.reportBatchItemFailures,
          functionTimeoutMs: 30_000,
          functionName: 'consumer',
          region: LOCAL_AWS.region,
        });
        this.consumerSource.start(1);
      }
    }

    // The processor's two event source mappings, each with environments of its own, as Lambda runs them.
    this.source = this.processorMapping(this.queueUrl, d.queue, d.eventSource, this.processor);
    this.lookSource = this.processorMapping(this.lookQueueUrl, d.lookQueue, d.lookEventSource, this.lookProcessor);
  }

  private processorMapping(queueUrl: string, queue: QueueDescription, mapping: EventSourceDescription, fn: LocalFunction): SqsEventSource {
    return new SqsEventSource({
      sqs: this.sqs,
      queueUrl,
      queueArn: `arn:aws:sqs:${LOCAL_AWS.region}:${LOCAL_AWS.accountId}:${queue.logicalId}`,
      handler: (event: SQSEvent) => fn.invoke<SQSBatchResponse>(event),
      batchSize: mapping.batchSize,
      reportBatchItemFailures: mapping.reportBatchItemFailures,
      functionTimeoutMs: this.deployment.processor.timeoutSeconds * 1000,
      functionName: 'processor',
      region: LOCAL_AWS.region,
      onBatch: (records, result) => this.onBatch(records, result),
    });
  }

  /** Resolves a template value against the local stand-ins; the API's URL becomes the front door's. */
  private resolve(value: unknown): unknown {
    return this.resolver.resolve(value);
  }

  /** @param processName names the function's process, when two share a log (`name`) */
  private localFunction(name: string, description: FunctionDescription, environment: Record<string, string>, processName = name): LocalFunction {
    if (!description.assetPath) throw new Error(`The function ${description.logicalId} has no code asset in the cloud assembly; the local runner runs asset code only`);
    const [file, exportName] = description.handler.split('.');
    return new LocalFunction({
      name: processName,
      entry: join(this.assemblyDir!, description.assetPath, `${file}.js`),
      exportName,
      environment,
      timeoutMs: description.timeoutSeconds * 1000,
      memoryMb: description.memorySize,
      onLog: (line) => this.log(name, line),
    });
  }

  private log(name: string, line: string): void {
    addMetricLine(line, this.metricSums);
    this.datapoints.push(...metricDatapoints(line));
    let file = this.logFiles.get(name);
    if (!file) {
      file = createWriteStream(join(this.logDir, `${name}.log`), { flags: 'a' });
      this.logFiles.set(name, file);
    }
    file.write(`${line}\n`);
    this.options.onLog?.(name, line);
  }

  private onBatch(records: readonly SQSRecord[], result: PollResult): void {
    this.processorInvocations++;
    if (result.error) this.processorInvocationErrors++;
    for (const record of records) {
      this.messageIds.add(record.messageId);
      try {
        this.processedRequestIds.add(decodeStoredNotification(record.body).notification.requestId);
      } catch {
        // not a stored notification: the processor quarantines it
      }
    }
  }

  /** A rule's SQS target: the event, as EventBridge delivers it, becomes a message in the queue (a failure is logged, as EventBridge would retry it). */
  private sendToQueue(queueUrl: string, event: RecordedEvent, rule: string): Promise<void> {
    return this.sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(delivered(event)) })).then(() => undefined, (error: unknown) => {
      this.log('eventbridge', `${rule}: SendMessage failed: ${(error as Error).message}`);
    });
  }

  private deliverToConsumer(event: RecordedEvent): void {
    this.consumerInvocations++;
    this.consumerCalls.push(this.consumer!.invoke(delivered(event)).then(() => undefined, (error: unknown) => {
      this.consumerErrors++;
      this.log('consumer', `consumer failed: ${(error as Error).message}`);
    }));
  }

  /**
   * Sends a request to the front door as the bank would, with the route's token in its header
   * unless `token` says otherwise (`null`: no token; a string: that value). Answers the status.
   */
  async post(route: (typeof ROUTES)[number], body: string | Buffer, token?: string | null): Promise<{ status: number; body: string }> {
    const header = route === 'payments' ? PAYMENTS_TOKEN_HEADER : this.boletoTokenHeader;
    const value = token === undefined ? this.tokens[route] : token;
    const headers: Record<string, string> = { 'Content-Type': 'application/json', ...(value === null || value === undefined ? {} : { [header]: value }) };
    const answer = await httpCall(this.apiUrl + route, { method: 'POST', headers, body, trustedCas: [this.apiCaPem] });
    return { status: answer.status, body: answer.body };
  }

  /** The stack's id (ARN), as its functions see it (`AWS::StackId`). */
  get stackId(): string {
    return localStackId(this.stackName);
  }

  /** The stack's status as DescribeStacks answers it (the registration watch repairs only in a completed one). */
  setStackStatus(status: string): void {
    this.services.cloudFormation.setStatus(this.stackId, status);
  }

  /**
   * Registers with the bank: a CloudFormation Create of each registration, in template order,
   * then of the sweep's schedule rule (which depends on them); the stack is CREATE_IN_PROGRESS
   * meanwhile and CREATE_COMPLETE after (ROLLBACK_COMPLETE when a registration failed).
   */
  async register(): Promise<void> {
    this.setStackStatus('CREATE_IN_PROGRESS');
    try {
      for (const registration of this.registrations) {
        const properties = this.resolve(this.deployment.registrations.find((r) => r.logicalId === registration.logicalId)!.properties) as Record<string, unknown>;
        await registration.resource.create(properties);
      }
    } catch (error) {
      this.setStackStatus('ROLLBACK_COMPLETE');
      throw error;
    }
    const rule = this.deployment.reconciliation?.scheduleRuleName;
    if (rule) this.events.putRule(rule);
    this.setStackStatus('CREATE_COMPLETE');
  }

  /**
   * A stack update that changes one registration (the first of `resourceType`): CloudFormation's
   * Update with the properties `change` makes of the current ones, the stack UPDATE_IN_PROGRESS
   * meanwhile (and while `during` runs, such as a sweep), then UPDATE_COMPLETE.
   */
  async updateRegistration(resourceType: string, change: (properties: Record<string, unknown>) => Record<string, unknown>, during?: () => Promise<void>): Promise<void> {
    const registration = this.registrations.find((r) => r.type === resourceType);
    if (!registration?.resource.state) throw new Error(`The stack has no ${resourceType} registered to update`);
    this.setStackStatus('UPDATE_IN_PROGRESS');
    try {
      await registration.resource.update(change(registration.resource.state.properties));
      await this.deployWatchedRegistration(registration.resource.state.properties);
      await during?.();
    } catch (error) {
      this.setStackStatus('UPDATE_ROLLBACK_COMPLETE');
      throw error;
    }
    this.setStackStatus('UPDATE_COMPLETE');
  }

  /** The same deploy changes what the sweep's settings say the registration is (the watch holds the bank to it). */
  private async deployWatchedRegistration(properties: Record<string, unknown>): Promise<void> {
    if (!this.sweeper) return;
    const environment = { ...this.sweeper.variables };
    const settings = JSON.parse(environment[SWEEP_SETTINGS_ENV]) as SweepSettings;
    if (!settings.watch) return;
    const deployed = compactDeployed(JSON.parse(properties[RegistrationProperty.SPEC] as string) as PaymentWebhookSpec | BoletoContractSpec);
    const swap = (w: WatchedRegistration): WatchedRegistration => (w.appliedRecord === properties[RegistrationProperty.APPLIED_RECORD] ? { ...w, deployed } : w);
    const { payment, contracts } = settings.watch;
    const watch = { ...settings.watch, ...(payment ? { payment: swap(payment) } : {}), contracts: contracts.map(swap) };
    await this.sweeper.updateEnvironment({ ...environment, [SWEEP_SETTINGS_ENV]: JSON.stringify({ ...settings, watch }) });
  }

  /**
   * Unregisters as `cdk destroy` would: the stack is DELETE_IN_PROGRESS (and stays so: a sweep
   * still running sees it), the sweep's schedule rule goes first (it depends on the
   * registrations), then a CloudFormation Delete of each registration that exists, in reverse order.
   */
  async unregister(): Promise<void> {
    this.setStackStatus('DELETE_IN_PROGRESS');
    const rule = this.deployment.reconciliation?.scheduleRuleName;
    if (rule) this.events.deleteRule(rule);
    for (const registration of [...this.registrations].reverse()) {
      if (registration.resource.state) await registration.resource.delete();
    }
  }

  /** The registrations as created: logical id, type, physical id and the data they answered. */
  registered(): Array<{ logicalId: string; type: string; physicalResourceId?: string; data?: Record<string, string> }> {
    return this.registrations.map((r) => ({ logicalId: r.logicalId, type: r.type, physicalResourceId: r.resource.state?.physicalResourceId, data: r.resource.state?.data }));
  }

  /** The events the processor published (the bus also carries others, such as Track Payment), all or those after `since`. */
  verifiedEvents(since?: RunnerCheckpoint): RecordedEvent[] {
    const source = this.processorSettings().eventSource;
    return this.events.events.filter((event) => event.source === source).slice(since?.events ?? 0);
  }

  /** The sum of a metric the functions printed so far (0 when none did). */
  metricSum(name: string): number {
    return this.metricSums[name] ?? 0;
  }

  /**
   * Runs the reconciliation sweep once, as its schedule would at `at` (waits for a sweep already
   * running, then runs another); answers the sweep's report. Throws when the stack has no sweep.
   */
  async sweep(at = new Date()): Promise<SweepResult> {
    if (!this.sweeper) throw new Error('The stack has no reconciliation sweep (reconciliation.enabled is false)');
    await this.sweepRunning?.catch(() => undefined);
    const run = this.sweeper.invoke<SweepResult>({
      version: '0', id: `sweep-${Date.now()}`, 'detail-type': 'Scheduled Event', source: 'aws.events', account: LOCAL_AWS.accountId,
      time: at.toISOString(), region: LOCAL_AWS.region, resources: [], detail: {},
    });
    this.sweepRunning = run;
    return run;
  }

  /**
   * Runs the template's schedules: the sweep every `intervalMs` (a test or the demo passes a short
   * one), a run never overlapping the one before. Stopped by stopSchedules() or stop().
   * @param intervalMs @default the schedule's own rate
   */
  startSchedules(intervalMs = this.deployment.reconciliation?.intervalMs): void {
    if (!this.sweeper || !intervalMs || this.scheduleTimer) return;
    this.scheduleTimer = setInterval(() => {
      this.sweep().catch((error: unknown) => this.log('reconciliation', `scheduled sweep failed: ${(error as Error).message}`));
    }, intervalMs);
  }

  stopSchedules(): void {
    clearInterval(this.scheduleTimer);
    this.scheduleTimer = undefined;
  }

  /**
   * The state of each alarm of the template at `now`, evaluated over the metrics the functions
   * printed as CloudWatch would (alarms on AWS services' own metrics, or on metric math, are
   * NOT_EVALUATED).
   */
  /** The template's outputs, resolved (the operator manifest among them); one the stand-ins cannot resolve is left out. */
  private stackOutputs(): StackOutput[] {
    return Object.entries(this.template.Outputs ?? {}).flatMap(([key, output]) => {
      try {
        return [{ key, value: String(this.resolver.resolve(output.Value)), ...(output.Description ? { description: output.Description } : {}) }];
      } catch {
        return [];
      }
    });
  }

  /** The template's alarms as the local CloudWatch answers them: named by logical id, in the state the runner evaluates now. */
  private localAlarms(): LocalAlarm[] {
    const states = this.alarmStates();
    const since = Date.now();
    return this.deployment.alarms.map((alarm) => ({
      name: alarm.logicalId, description: this.alarmDescription(alarm.description), since,
      state: states[alarm.logicalId] === LocalAlarmState.NOT_EVALUATED ? 'INSUFFICIENT_DATA' : states[alarm.logicalId],
    }));
  }

  /** An alarm's description as CloudWatch would hold it (a description naming a resource is a template value). */
  private alarmDescription(description: unknown): string | undefined {
    if (description === undefined || typeof description === 'string') return description;
    try {
      return String(this.resolver.resolve(description));
    } catch {
      return undefined;
    }
  }

  alarmStates(now = Date.now()): Record<string, LocalAlarmState> {
    return Object.fromEntries(this.deployment.alarms.map((alarm) => [alarm.logicalId, evaluateAlarm(alarm, this.datapoints, now)]));
  }

  /**
   * Runs an operator command (`cdk-bank-webhooks status|trace|dlq …`) against this stack's
   * stand-ins, as an operator would against AWS: `--stack` is added.
   */
  async operate(argv: readonly string[]): Promise<{ status: number; out: string; err: string }> {
    const out: string[] = [];
    const err: string[] = [];
    const status = await runCli([...argv, '--stack', this.stackName], {
      out: (text) => out.push(text), err: (text) => err.push(text), stopRequested: new Promise(() => undefined), aws: this.services.operatorAws(),
    });
    return { status, out: out.join('\n'), err: err.join('\n') };
  }

  /** A subject's record as the processor keeps it in the table (its trail among it). */
  async subjectRecord(subjectId: string): Promise<SubjectRecord> {
    return new DynamoDbSubjectStore(this.services.dynamo.client, this.deployment.idempotencyTable, 0).read(subjectId);
  }

  /**
   * The raw journal as the processor writes it (its bucket in the local S3), or undefined when
   * the stack keeps none: its keys under a prefix, and an object's text.
   */
  get journal(): { readonly bucket: string; keys(prefix?: string): string[]; text(key: string): string | undefined } | undefined {
    const bucket = this.processorSettings().journalBucketName;
    if (!bucket) return undefined;
    const s3 = this.services.s3;
    return { bucket, keys: (prefix) => s3.keys(bucket, prefix), text: (key) => s3.text(bucket, key) };
  }

  /** The processor's settings, as the template gives them. */
  private processorSettings(): ProcessorSettings {
    return settingsIn<ProcessorSettings>(this.resolve(this.deployment.processor.environment) as Record<string, unknown>, PROCESSOR_SETTINGS_ENV);
  }

  /** Where the records stand now: audit(checkpoint) then checks only what came after. */
  checkpoint(): RunnerCheckpoint {
    return { exchanges: this.exchanges.length, events: this.verifiedEvents().length, quarantined: this.quarantined.length };
  }

  /** Checks the end-to-end promise over everything seen since `since` (call after settle()). */
  audit(since: RunnerCheckpoint = { exchanges: 0, events: 0, quarantined: 0 }): AuditReport {
    const settings = this.processorSettings();
    return auditExactlyOnce({
      exchanges: this.exchanges.slice(since.exchanges),
      events: this.verifiedEvents().slice(since.events),
      quarantined: this.quarantined.slice(since.quarantined),
      processedRequestIds: this.processedRequestIds,
      movements: settings.boletoMovements,
      paymentStatuses: settings.paymentStatuses,
    });
  }

  /**
   * The processor's subject records, read from the local table: how many there are, and how many
   * hold an outbox (events written with their state and not yet published and cleared).
   */
  async subjectRecords(): Promise<{ subjects: number; withOutbox: number }> {
    const tally = { subjects: 0, withOutbox: 0 };
    let ExclusiveStartKey: Record<string, AttributeValue> | undefined;
    do {
      const page = await this.services.dynamo.client.send(new ScanCommand({ TableName: this.deployment.idempotencyTable, ProjectionExpression: 'outboxId', ExclusiveStartKey }));
      for (const item of page.Items ?? []) {
        tally.subjects++;
        if (item.outboxId) tally.withOutbox++;
      }
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
    return tally;
  }

  /** Stops the event source mappings' pollers (notifications and looks wait in their queues); batches in flight finish. */
  async pauseProcessing(): Promise<void> {
    await Promise.all([this.source?.stop(), this.lookSource?.stop()]);
  }

  /**
   * Starts the event source mappings' pollers: on the notification queue as many as `pollers`,
   * else the mapping's maximum concurrency, else 2; on the look queue its mapping's maximum.
   */
  resumeProcessing(): void {
    this.source?.start(this.options.pollers ?? this.deployment.eventSource.maxConcurrency ?? 2);
    this.lookSource?.start(this.deployment.lookEventSource.maxConcurrency ?? 2);
  }

  /** Empties the receiver's queue and the look queue (a benchmark's backlog it no longer needs). */
  async purgeQueue(): Promise<void> {
    for (const QueueUrl of [this.queueUrl, this.lookQueueUrl]) await this.sqs.send(new PurgeQueueCommand({ QueueUrl }));
  }

  async queueDepth(queueUrl = this.queueUrl): Promise<number> {
    return queueDepth(this.sqs, queueUrl);
  }

  /**
   * Waits until the bank has nothing left to deliver and both queues are empty (every message
   * processed or quarantined), then reads the quarantined messages. Calls `onTick` about twice a
   * second (for progress). Throws after `timeoutMs`.
   */
  async settle(timeoutMs = 60_000, onTick?: () => void): Promise<void> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      onTick?.();
      const idle = await this.control.waitForDeliveries(Math.max(1, Math.min(500, until - Date.now())));
      if (idle && this.sqsGate.isOpen && (await this.queueDepth()) === 0 && (await this.queueDepth(this.lookQueueUrl)) === 0) break;
      if (Date.now() > until) throw new Error(`Not settled after ${timeoutMs} ms: ${idle ? 'messages are still in the queue' : 'the bank is still delivering'}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    await Promise.all(this.consumerCalls);
    await this.readQuarantine();
    onTick?.();
  }

  /** Moves what the dead-letter queues hold into `quarantined`. */
  async readQuarantine(): Promise<void> {
    for (const message of [...await drainQueue(this.sqs, this.dlqUrl), ...await drainQueue(this.sqs, this.lookDlqUrl)]) {
      this.quarantined.push({ messageId: message.MessageId!, reason: message.MessageAttributes?.QuarantineReason?.StringValue, body: message.Body ?? '' });
    }
  }

  /** Stops everything; registrations still in place are left (call unregister() first). */
  async stop(): Promise<void> {
    this.stopSchedules();
    await this.sweepRunning?.catch(() => undefined);
    await Promise.all([this.source?.stop(), this.lookSource?.stop(), this.consumerSource?.stop()]);
    await Promise.all([this.receiver?.stop(), this.processor?.stop(), this.lookProcessor?.stop(), this.registrationHandler?.stop(), this.consumer?.stop(), this.sweeper?.stop()]);
    await Promise.all([this.gateway?.stop(), this.services?.stop()]);
    await Promise.all([...this.logFiles.values()].map((file) => new Promise((resolve) => file.end(resolve))));
    if (this.assemblyDir) rmSync(this.assemblyDir, { recursive: true, force: true });
    if (this.ownsLogDir) rmSync(this.logDir, { recursive: true, force: true });
  }
}
