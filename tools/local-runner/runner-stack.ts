/**
 * The stack the local runner runs: synthesized with its bank settings pointed at the bank
 * simulator, its stateful resources made in the stand-ins, and its functions started in processes
 * of their own and wired as the template wires them (environment, timeouts and memory, the
 * queues' redrive and visibility, the event source mappings, the rules, the registrations).
 * LocalRunner (runner.ts) adds what a scenario does with it.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { APIGatewayProxyResult, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { decodeStoredNotification } from '../../lambda/store/stored-notification';
import { PROCESSOR_SETTINGS_ENV, type ProcessorSettings } from '../../contracts/processor';
import { RECEIVER_SETTINGS_ENV, ReceiverDefaults, type ReceiverSettings, ROUTES } from '../../contracts/receiver';
import type { BankSimulator } from '../../simulator/simulator';
import { LocalApiGateway, type ProxyExchange } from '../local-aws/api-gateway';
import type { LocalEventBridge } from '../local-aws/eventbridge-server';
import { createQueueWithDlq } from '../local-aws/fauxqs';
import { LOCAL_AWS, localStackId } from '../local-aws/local-env';
import { LocalFunction } from '../local-aws/local-function';
import type { LocalSecretsManager } from '../local-aws/secrets-manager-server';
import { type PollResult, SqsEventSource } from '../local-aws/sqs-event-source';
import type { TcpGate } from '../local-aws/tcp-gate';
import type { StackOutput } from '../local-aws/cloudformation-server';
import type { LocalAlarm } from '../local-aws/cloudwatch-server';
import { importConnectionSecrets, type RunnerBank } from './bank-credentials';
import { startFrontDoors } from './front-doors';
import { LocalResolver, synthesizeLocalStack } from './local-resolver';
import { consumerExpectations, LocalConsumer } from './local-consumer';
import { LocalServices } from './local-services';
import { RunnerLogs } from './runner-logs';
import { LocalSweep } from './runner-sweep';
import { LocalDriftDetector, localSweepEnvironment } from './local-drift';
import { LocalRegistrations } from './runner-registrations';
import { LocalReceiverStack } from './local-stack';
import {
  type CloudFormationTemplate,
  describeReceiverDeployment,
  type EventSourceDescription,
  type FunctionDescription,
  type QueueDescription,
  type ReceiverDeployment,
  settingsIn,
  withVisibilityTimeout,
} from './template';
import { type LocalRunnerOptions, LOCAL_STACK_ID, type QuarantinedMessage, tracedEnvironment } from './runner-types';

/** The running stack: its stand-ins, its functions and what they did. */
export abstract class RunnerStack {
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
  /** The team's consumer (`options.consumer`), when the runner was given one. */
  consumer?: LocalConsumer;
  gateway!: LocalApiGateway;
  /** The front door's stage URL (`https://127.0.0.1:<port>/<stage>/`). */
  apiUrl!: string;
  /** The Pix API's front door (a receiver with `pix`): the URL to register for each key, without a trailing slash. */
  pixGateway?: LocalApiGateway;
  pixUrl?: string;
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
  /** The functions' logs and the metrics read from them. */
  protected readonly logs: RunnerLogs;
  /** The stack's name. */
  readonly stackName: string;
  protected source?: SqsEventSource;
  protected lookSource?: SqsEventSource;
  protected resolver!: LocalResolver;
  protected assemblyDir?: string;
  /** ARNs of the generated secrets, by logical id. */
  protected readonly secretArns = new Map<string, string>();
  protected readonly messageIds = new Set<string>();
  /** The sweep's runs and schedule, when the stack has a sweep. */
  protected reconciliation?: LocalSweep;
  /** The template's registrations, as a deploy, an update and a destroy drive them. */
  protected registrations!: LocalRegistrations;
  protected processorInvocations = 0;
  protected processorInvocationErrors = 0;
  protected constructor(protected readonly options: LocalRunnerOptions) {
    this.logs = new RunnerLogs(options);
    this.stackName = options.stackName ?? LOCAL_STACK_ID;
  }
  /** The in-process bank simulator; a runner whose bank is a local sandbox (`sandbox: true`) has none: use `bank`. */
  get simulator(): BankSimulator {
    if (!this.services.simulator)
      throw new Error(
        "This runner's bank is a local BankSandbox (sandbox: true): it has no in-process simulator; use runner.bank and runner.control.",
      );
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
  /** With a consumer rule whose target is a queue the consumer reads: that queue and its dead-letter queue. */
  get consumerQueueUrl(): string | undefined {
    return this.consumer?.queueUrl;
  }
  get consumerDlqUrl(): string | undefined {
    return this.consumer?.dlqUrl;
  }
  protected async init(): Promise<void> {
    this.services = await LocalServices.start({
      simulator: this.options.simulator,
      eventBridge: this.options.eventBridge,
      sandbox: this.options.sandbox,
    });
    this.assemblyDir = mkdtempSync(join(tmpdir(), 'bank-webhooks-assembly-'));
    this.template = synthesizeLocalStack(
      this.assemblyDir,
      this.bank,
      this.stackName,
      this.options.stack ?? ((scope, id) => new LocalReceiverStack(scope, id)),
    );
    const d = (this.deployment = describeReceiverDeployment(this.template));
    const visibility = this.options.visibilityTimeoutSeconds ?? d.queue.visibilityTimeoutSeconds;
    if (visibility <= d.processor.timeoutSeconds) {
      throw new Error(
        `visibilityTimeoutSeconds (${visibility}) must exceed the processor's timeout (${d.processor.timeoutSeconds} s): a message would come back while its invocation still runs`,
      );
    }
    await this.provision(visibility);
    const around = { template: this.template, resolver: this.resolver, sqs: this.sqs, events: this.events };
    if (this.options.consumer) {
      const expected = consumerExpectations(this.resolve(this.deployment.processor.environment));
      const environment = { ...this.functionEndpoints(), ...tracedEnvironment(this.options, 'consumer'), ...expected };
      this.consumer = await LocalConsumer.start(
        { ...this.options, consumer: this.options.consumer },
        { ...around, environment, log: (name, line) => this.log(name, line) },
      );
    }
    // The rules and queue policies as deployed: the local drift detection compares the template with them.
    await new LocalDriftDetector(around).deploy(this.services.cloudFormation);
    // Deployed but for what register() does.
    this.setStackStatus('CREATE_COMPLETE');
    this.services.cloudFormation.setOutputs(this.stackId, this.stackOutputs());
    this.startFunctions();
    this.resumeProcessing();
  }
  /** The template's stateful resources in the stand-ins: the queue and its DLQ, the table, the generated secrets, and the front door. */
  protected async provision(visibilityTimeoutSeconds: number): Promise<void> {
    const d = this.deployment;
    ({ queueUrl: this.queueUrl, dlqUrl: this.dlqUrl } = await createQueueWithDlq(
      this.sqs,
      d.queue.logicalId,
      d.queue.maxReceiveCount,
      visibilityTimeoutSeconds,
      d.queue.deadLetterQueue,
    ));
    ({ queueUrl: this.lookQueueUrl, dlqUrl: this.lookDlqUrl } = await createQueueWithDlq(
      this.sqs,
      d.lookQueue.logicalId,
      d.lookQueue.maxReceiveCount,
      visibilityTimeoutSeconds,
      d.lookQueue.deadLetterQueue,
    ));
    await this.services.dynamo.createTableLike(
      d.idempotencyTable,
      this.template.Resources[d.idempotencyTable].Properties ?? {},
    );
    await this.services.standUp(this.template, d);
    for (const logicalId of d.generatedSecrets)
      this.secretArns.set(logicalId, this.secrets.createSecret(logicalId, randomBytes(32).toString('hex')));
    ({
      gateway: this.gateway,
      apiUrl: this.apiUrl,
      pixGateway: this.pixGateway,
      pixUrl: this.pixUrl,
    } = await startFrontDoors(this.template, d, {
      tls: this.services.apiTls,
      invokeReceiver: (event) => this.receiver.invoke<APIGatewayProxyResult>(event, event.requestContext.requestId),
      onResponse: (exchange) => this.exchanges.push(exchange),
      logs: this.services.logs,
    }));
    const queueUrls = new Map([
      [d.queue.logicalId, this.queueUrl],
      [d.queue.deadLetterQueue, this.dlqUrl],
      [d.lookQueue.logicalId, this.lookQueueUrl],
      [d.lookQueue.deadLetterQueue, this.lookDlqUrl],
      ...this.services.standingQueues,
    ]);
    this.resolver = new LocalResolver(
      this.template,
      d,
      {
        queueUrls,
        secretArns: this.secretArns,
        apiUrl: this.apiUrl,
        ...(this.pixUrl ? { pixApiUrl: this.pixUrl } : {}),
      },
      this.stackName,
    );
    this.services.cloudWatchAlarms = () => this.localAlarms();
  }
  /** What every function's environment adds to the template's: the stand-ins' endpoints, and where spans go. */
  protected functionEndpoints(): Record<string, string> {
    return { ...this.services.endpoints(), ...tracedEnvironment(this.options) };
  }
  /** The functions, in processes of their own, wired as the template wires them: the receiver, the processor and its event source, the registrations, the sweep, a consumer. */
  protected startFunctions(): void {
    const d = this.deployment;
    const endpoints = this.functionEndpoints();
    const receiverEnv = this.resolve(d.receiver.environment) as Record<string, string>;
    const processorEnv = this.resolve(d.processor.environment) as Record<string, string>;
    if (this.options.visibilityTimeoutSeconds !== undefined)
      withVisibilityTimeout(processorEnv, this.options.visibilityTimeoutSeconds);
    importConnectionSecrets(this.secrets, processorEnv, this.bank);
    const receiverSettings = settingsIn<ReceiverSettings>(receiverEnv, RECEIVER_SETTINGS_ENV);
    this.tokens.payments = this.secrets.currentValue(receiverSettings.paymentsTokenSecretArn);
    this.tokens.boleto = this.secrets.currentValue(receiverSettings.boletoTokenSecretArn);
    this.boletoTokenHeader = receiverSettings.boletoTokenHeader;

    this.receiver = this.localFunction('receiver', d.receiver, { ...receiverEnv, ...endpoints });
    this.processor = this.localFunction('processor', d.processor, { ...processorEnv, ...endpoints });
    this.lookProcessor = this.localFunction(
      'processor',
      d.processor,
      { ...processorEnv, ...endpoints },
      'look-processor',
    );
    if (d.registrationHandler) {
      this.registrationHandler = this.localFunction('registration', d.registrationHandler, {
        ...(this.resolve(d.registrationHandler.environment) as Record<string, string>),
        ...endpoints,
      });
    }
    if (d.reconciliation) {
      this.sweeper = this.localFunction('reconciliation', d.reconciliation.sweep, {
        ...localSweepEnvironment(this.resolve(d.reconciliation.sweep.environment) as Record<string, string>),
        ...endpoints,
      });
      this.reconciliation = new LocalSweep(this.sweeper, {
        reconciliation: d.reconciliation,
        lambda: this.services.lambda,
        events: this.events,
        resolver: this.resolver,
        sqs: this.sqs,
        lookQueueUrl: this.lookQueueUrl,
        log: (name, line) => this.log(name, line),
      });
    }
    this.registrations = new LocalRegistrations({
      deployment: d,
      stackId: this.stackId,
      handler: this.registrationHandler,
      sweeper: this.sweeper,
      events: this.events,
      resolve: (value) => this.resolve(value),
      setStackStatus: (status) => this.setStackStatus(status),
    });
    // The processor's two event source mappings, each with environments of its own, as Lambda runs them.
    this.source = this.processorMapping(this.queueUrl, d.queue, d.eventSource, this.processor);
    this.lookSource = this.processorMapping(this.lookQueueUrl, d.lookQueue, d.lookEventSource, this.lookProcessor);
  }
  protected processorMapping(
    queueUrl: string,
    queue: QueueDescription,
    mapping: EventSourceDescription,
    fn: LocalFunction,
  ): SqsEventSource {
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
  protected resolve(value: unknown): unknown {
    return this.resolver.resolve(value);
  }
  /** @param processName names the function's process, when two share a log (`name`) */
  protected localFunction(
    name: string,
    description: FunctionDescription,
    environment: Record<string, string>,
    processName = name,
  ): LocalFunction {
    if (!description.assetPath)
      throw new Error(
        `The function ${description.logicalId} has no code asset in the cloud assembly; the local runner runs asset code only`,
      );
    const [file, exportName] = description.handler.split('.');
    return new LocalFunction({
      name: processName,
      entry: join(this.assemblyDir!, description.assetPath, `${file}.js`),
      exportName,
      environment,
      timeoutMs: description.timeoutSeconds * 1000,
      memoryMb: description.memorySize,
      onLog: (line) => this.log(name, line, description.logGroup),
    });
  }
  protected log(name: string, line: string, group?: string): void {
    this.logs.write(name, line);
    if (group) this.services.logs.append(group, line);
  }
  /** The folder of the functions' logs (`<function>.log`). */
  get logDir(): string {
    return this.logs.dir;
  }
  protected onBatch(records: readonly SQSRecord[], result: PollResult): void {
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
  /** The stack's id (ARN), as its functions see it (`AWS::StackId`). */
  get stackId(): string {
    return localStackId(this.stackName);
  }
  /** The stack's status as DescribeStacks answers it (the registration watch repairs only in a completed one). */
  setStackStatus(status: string): void {
    this.services.cloudFormation.setStatus(this.stackId, status);
  }
  /** The processor's settings, as the template gives them. */
  protected processorSettings(): ProcessorSettings {
    return settingsIn<ProcessorSettings>(
      this.resolve(this.deployment.processor.environment) as Record<string, unknown>,
      PROCESSOR_SETTINGS_ENV,
    );
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

  /** The template's outputs, resolved (the operator manifest among them). */
  protected abstract stackOutputs(): StackOutput[];
  /** The template's alarms as the local CloudWatch answers them. */
  protected abstract localAlarms(): LocalAlarm[];
}
