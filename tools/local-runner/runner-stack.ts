/**
 * The stack the local runner runs: synthesized with its bank settings pointed at the bank
 * simulator, its stateful resources made in the stand-ins, and its functions started in processes
 * of their own and wired as the template wires them (environment, timeouts and memory, the
 * queues' redrive and visibility, the event source mappings, the rules, the registrations).
 * LocalRunner (runner.ts) adds what a scenario does with it.
 */
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync, mkdtempSync, type WriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { decodeStoredNotification } from '../../lambda/store/stored-notification';
import { BANK_CONNECTION_ENV, type BankConnectionSettings } from '../../contracts/bank-connection';
import { PROCESSOR_SETTINGS_ENV, type ProcessorSettings } from '../../contracts/processor';
import { PIX_CONNECTION_ENV, type PixConnectionSettings } from '../../contracts/pix-connection';
import { PIX_ROUTE, RECEIVER_SETTINGS_ENV, ReceiverDefaults, type ReceiverSettings, ROUTES } from '../../contracts/receiver';
import type { BankSimulator } from '../../simulator/simulator';
import { LocalApiGateway, type ProxyExchange } from '../local-aws/api-gateway';
import { LocalCustomResource } from '../local-aws/custom-resource';
import { LocalEventBridge, type RecordedEvent } from '../local-aws/eventbridge-server';
import { matchesEventPattern } from '../local-aws/event-pattern';
import { createQueueWithDlq } from '../local-aws/fauxqs';
import { LOCAL_AWS, localStackId } from '../local-aws/local-env';
import { LocalFunction } from '../local-aws/local-function';
import type { LocalSecretsManager } from '../local-aws/secrets-manager-server';
import { type PollResult, SqsEventSource } from '../local-aws/sqs-event-source';
import type { TcpGate } from '../local-aws/tcp-gate';
import { type SweepResult } from '../../contracts/reconciliation';
import { type MetricDatapoint, metricDatapoints } from './alarms';
import type { StackOutput } from '../local-aws/cloudformation-server';
import type { LocalAlarm } from '../local-aws/cloudwatch-server';
import { type RunnerBank, simulatorCredentials, simulatorPixCredentials } from './bank-credentials';
import { LocalResolver, synthesizeLocalStack } from './local-resolver';
import { LocalServices } from './local-services';
import { LocalReceiverStack } from './local-stack';
import {
  type CloudFormationTemplate, describeQueueConsumer, describeReceiverDeployment, type QueueConsumerDescription, ruleLogicalId, type EventSourceDescription, type FunctionDescription, type QueueDescription, type ReceiverDeployment, settingsIn, withVisibilityTimeout,
} from './template';

import { addMetricLine, delivered, type LocalRunnerOptions, LOCAL_STACK_ID, type QuarantinedMessage, type RunningRegistration, tracedEnvironment } from './runner-types';

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
  consumer?: LocalFunction;
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
  readonly logDir: string;
  /** The stack's name. */
  readonly stackName: string;
  /** With a consumer rule whose target is a queue the consumer reads: that queue and its dead-letter queue. */
  consumerQueueUrl?: string;
  consumerDlqUrl?: string;
  protected consumerQueue?: QueueConsumerDescription;
  protected consumerSource?: SqsEventSource;
  protected source?: SqsEventSource;
  protected lookSource?: SqsEventSource;
  protected resolver!: LocalResolver;
  protected assemblyDir?: string;
  protected readonly ownsLogDir: boolean;
  protected readonly logFiles = new Map<string, WriteStream>();
  /** ARNs of the generated secrets, by logical id. */
  protected readonly secretArns = new Map<string, string>();
  protected readonly messageIds = new Set<string>();
  protected readonly metricSums: Record<string, number> = {};
  /** Every metric datapoint the functions printed, for the alarms. */
  protected readonly datapoints: MetricDatapoint[];
  protected scheduleTimer?: NodeJS.Timeout;
  protected sweepRunning?: Promise<SweepResult | undefined>;
  protected readonly registrations: RunningRegistration[] = [];
  protected readonly consumerCalls: Array<Promise<void>> = [];
  protected processorInvocations = 0;
  protected processorInvocationErrors = 0;
  protected consumerInvocations = 0;
  protected consumerErrors = 0;
  protected constructor(protected readonly options: LocalRunnerOptions) {
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
  protected async init(): Promise<void> {
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
  protected async provision(visibilityTimeoutSeconds: number): Promise<void> {
    const d = this.deployment;
    ({ queueUrl: this.queueUrl, dlqUrl: this.dlqUrl } = await createQueueWithDlq(this.sqs, d.queue.logicalId, d.queue.maxReceiveCount, visibilityTimeoutSeconds, d.queue.deadLetterQueue));
    ({ queueUrl: this.lookQueueUrl, dlqUrl: this.lookDlqUrl } = await createQueueWithDlq(this.sqs, d.lookQueue.logicalId, d.lookQueue.maxReceiveCount, visibilityTimeoutSeconds, d.lookQueue.deadLetterQueue));
    await this.services.dynamo.createTableLike(d.idempotencyTable, this.template.Resources[d.idempotencyTable].Properties ?? {});
    await this.services.standUp(this.template, d);
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
    if (d.pixApi) {
      // The Pix API: its validation call (the root) and its callbacks, to the same receiver.
      const toReceiver = (event: APIGatewayProxyEvent) => this.receiver.invoke<APIGatewayProxyResult>(event, event.requestContext.requestId);
      this.pixGateway = new LocalApiGateway({
        tls: this.services.apiTls,
        stage: d.pixApi.stageName,
        functionTimeoutMs: d.receiver.timeoutSeconds * 1000,
        routes: { '': toReceiver, [PIX_ROUTE]: toReceiver },
        onResponse: (exchange) => this.exchanges.push(exchange),
        binaryMediaTypes: (this.template.Resources[d.pixApi.restApi].Properties?.BinaryMediaTypes as string[] | undefined) ?? [],
      });
      this.pixUrl = (await this.pixGateway.start()).replace(/\/$/, '');
    }
    if (this.options.consumer && this.options.consumerRule) {
      this.consumerQueue = describeQueueConsumer(this.template, ruleLogicalId(this.template, this.options.consumerRule));
      const q = this.consumerQueue?.queue;
      if (q) ({ queueUrl: this.consumerQueueUrl, dlqUrl: this.consumerDlqUrl } = await createQueueWithDlq(this.sqs, q.logicalId, q.maxReceiveCount, this.options.consumerVisibilityTimeoutSeconds ?? q.visibilityTimeoutSeconds, q.deadLetterQueue));
    }
    const queueUrls = new Map([
      [d.queue.logicalId, this.queueUrl], [d.queue.deadLetterQueue, this.dlqUrl], [d.lookQueue.logicalId, this.lookQueueUrl], [d.lookQueue.deadLetterQueue, this.lookDlqUrl], ...this.services.standingQueues,
    ]);
    this.resolver = new LocalResolver(this.template, d, { queueUrls, secretArns: this.secretArns, apiUrl: this.apiUrl, ...(this.pixUrl ? { pixApiUrl: this.pixUrl } : {}) }, this.stackName);
    this.services.cloudWatchAlarms = () => this.localAlarms();
  }
  /** The functions, in processes of their own, wired as the template wires them: the receiver, the processor and its event source, the registrations, the sweep, a consumer. */
  protected startFunctions(): void {
    const d = this.deployment;
    const endpoints = { ...this.services.endpoints(), ...tracedEnvironment(this.options) };
    const receiverEnv = this.resolve(d.receiver.environment) as Record<string, string>;
    const processorEnv = this.resolve(d.processor.environment) as Record<string, string>;
    if (this.options.visibilityTimeoutSeconds !== undefined) withVisibilityTimeout(processorEnv, this.options.visibilityTimeoutSeconds);
    // The bank credentials are the one secret the stack imports: it is created under the name
    // the template points at, with the simulator's credentials.
    const credentialsArn = settingsIn<BankConnectionSettings>(processorEnv, BANK_CONNECTION_ENV).credentialsSecretArn;
    this.secrets.createSecret(credentialsArn.replace(/^arn:[^:]+:secretsmanager:[^:]*:[^:]*:secret:/, ''), JSON.stringify(simulatorCredentials(this.bank)));
    // A stack with Pix imports its Pix credentials too: the simulator's Pix application.
    const pixConnection = processorEnv[PIX_CONNECTION_ENV] ? settingsIn<PixConnectionSettings>(processorEnv, PIX_CONNECTION_ENV) : undefined;
    if (pixConnection) {
      this.secrets.createSecret(pixConnection.credentialsSecretArn.replace(/^arn:[^:]+:secretsmanager:[^:]*:[^:]*:secret:/, ''), JSON.stringify(simulatorPixCredentials(this.bank)));
    }
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
        environment: { ...endpoints, ...tracedEnvironment(this.options, 'consumer') }, timeoutMs: 30_000, onLog: (line) => this.log('consumer', line),
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
  protected processorMapping(queueUrl: string, queue: QueueDescription, mapping: EventSourceDescription, fn: LocalFunction): SqsEventSource {
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
  protected localFunction(name: string, description: FunctionDescription, environment: Record<string, string>, processName = name): LocalFunction {
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
  protected log(name: string, line: string): void {
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
  /** A rule's SQS target: the event, as EventBridge delivers it, becomes a message in the queue (a failure is logged, as EventBridge would retry it). */
  protected sendToQueue(queueUrl: string, event: RecordedEvent, rule: string): Promise<void> {
    return this.sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(delivered(event)) })).then(() => undefined, (error: unknown) => {
      this.log('eventbridge', `${rule}: SendMessage failed: ${(error as Error).message}`);
    });
  }
  protected deliverToConsumer(event: RecordedEvent): void {
    this.consumerInvocations++;
    this.consumerCalls.push(this.consumer!.invoke(delivered(event)).then(() => undefined, (error: unknown) => {
      this.consumerErrors++;
      this.log('consumer', `consumer failed: ${(error as Error).message}`);
    }));
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
    return settingsIn<ProcessorSettings>(this.resolve(this.deployment.processor.environment) as Record<string, unknown>, PROCESSOR_SETTINGS_ENV);
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
