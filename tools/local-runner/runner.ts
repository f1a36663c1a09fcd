/**
 * The whole flow on one machine, with the handler bundles `cdk deploy` ships: the stack runs as
 * its template says (runner-stack.ts) over local stand-ins of the AWS services and the bank
 * (local-services.ts); this is what a scenario does with it: post as the bank, register and
 * unregister as CloudFormation, sweep, read alarms, records and the journal, operate with the
 * CLI, settle and audit.
 */
import { rmSync } from 'node:fs';
import { type AttributeValue, ScanCommand } from '@aws-sdk/client-dynamodb';
import { CreateQueueCommand, PurgeQueueCommand } from '@aws-sdk/client-sqs';
import { DynamoDbSubjectStore, type SubjectRecord } from '../../lambda/store/subject-store';
import { PAYMENTS_TOKEN_HEADER, ROUTES } from '../../contracts/receiver';
import { httpCall } from '../../simulator/https-client';
import { type RecordedEvent } from '../local-aws/eventbridge-server';
import { drainQueue, queueDepth } from '../local-aws/fauxqs';
import type { SweepResult } from '../../contracts/reconciliation';
import { evaluateAlarm, LocalAlarmState } from './alarms';
import type { StackOutput } from '../local-aws/cloudformation-server';
import { runCli } from '../../cli/cli';
import type { AwsOptions } from '../../cli/operate/aws';
import type { LocalAlarm } from '../local-aws/cloudwatch-server';
import { auditExactlyOnce, type AuditInput, type AuditReport } from './audit';
import type { LocalRegistrations } from './runner-registrations';
import { RunnerStack } from './runner-stack';
import { ruleLogicalId, ruleQueueTarget } from './template';
import { matchesEventPattern } from '../local-aws/event-pattern';
import { type RunnerCheckpoint, type RunnerCounts, type LocalRunnerOptions, sendToQueue } from './runner-types';

export { RUNNER_CONTEXT_KEYS } from './local-stack';
export {
  addMetricLine,
  LOCAL_STACK_ID,
  type LocalRunnerOptions,
  type QuarantinedMessage,
  type RunnerCheckpoint,
  type RunnerCounts,
} from './runner-types';

/** The whole receiving side, local. Start with `LocalRunner.start()`. */
export class LocalRunner extends RunnerStack {
  static async start(options: LocalRunnerOptions = {}): Promise<LocalRunner> {
    const runner = new LocalRunner(options);
    try {
      await runner.init();
      await runner.startQueueRules();
    } catch (error) {
      await runner.stop();
      throw error;
    }
    return runner;
  }
  /** The queues of `queueRules`, by rule construct id. */
  readonly ruleQueues = new Map<string, string>();
  /**
   * The rules of `queueRules` with their SQS targets, and the bus's archive, in the local
   * EventBridge: what the operator CLI's `replay` lists, describes and replays to.
   */
  private async startQueueRules(): Promise<void> {
    const rules = this.options.queueRules ?? [];
    if (!rules.length) return;
    const archive = Object.entries(this.template.Resources).find(([, r]) => r.Type === 'AWS::Events::Archive')?.[0];
    if (archive) this.events.putArchive(archive);
    for (const rule of rules) {
      const logicalId = ruleLogicalId(this.template, rule);
      const queueId = ruleQueueTarget(this.template, logicalId);
      if (!queueId) throw new Error(`queueRules: the rule ${rule} has no SQS queue target`);
      const { QueueUrl } = await this.sqs.send(new CreateQueueCommand({ QueueName: queueId }));
      this.ruleQueues.set(rule, QueueUrl!);
      const pattern = this.resolver.rulePattern(rule);
      this.events.putRuleWithTarget(logicalId, (event) => {
        if (
          matchesEventPattern(pattern, { source: event.source, 'detail-type': event.detailType, detail: event.detail })
        )
          void sendToQueue(this.sqs, QueueUrl!, event, rule, (name, line) => this.log(name, line));
      });
    }
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
      consumerInvocations: this.consumer?.invocations ?? 0,
      consumerErrors: this.consumer?.errors ?? 0,
      metrics: { ...this.logs.metricSums },
    };
  }
  /**
   * Sends a request to the front door as the bank would, with the route's token in its header
   * unless `token` says otherwise (`null`: no token; a string: that value). Answers the status.
   */
  async post(
    route: (typeof ROUTES)[number],
    body: string | Buffer,
    token?: string | null,
  ): Promise<{ status: number; body: string }> {
    const header = route === 'payments' ? PAYMENTS_TOKEN_HEADER : this.boletoTokenHeader;
    const value = token === undefined ? this.tokens[route] : token;
    const headers: Record<string, string> = {
      'Content-Type': 'application/json',
      ...(value === null || value === undefined ? {} : { [header]: value }),
    };
    const answer = await httpCall(this.apiUrl + route, { method: 'POST', headers, body, trustedCas: [this.apiCaPem] });
    return { status: answer.status, body: answer.body };
  }
  /** POSTs `body` to the Pix API (`route` '': its bare URL, the validation call), as anyone who finds its URL can. */
  async postPix(body: string, route: 'pix' | '' = 'pix'): Promise<{ status: number; body: string }> {
    if (!this.pixUrl) throw new Error("This runner's stack has no Pix API");
    const answer = await httpCall(route ? `${this.pixUrl}/${route}` : this.pixUrl, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body,
      trustedCas: [this.apiCaPem],
    });
    return { status: answer.status, body: answer.body };
  }
  /** Registers with the bank as a deploy does (LocalRegistrations.register). */
  async register(): Promise<void> {
    await this.registrations.register();
  }
  /** A stack update that changes the first registration of `resourceType` (LocalRegistrations.update). */
  async updateRegistration(
    resourceType: string,
    change: (properties: Record<string, unknown>) => Record<string, unknown>,
    during?: () => Promise<void>,
  ): Promise<void> {
    await this.registrations.update(resourceType, change, during);
  }
  /** Unregisters as `cdk destroy` would (LocalRegistrations.unregister). */
  async unregister(): Promise<void> {
    await this.registrations.unregister();
  }
  /** The registrations as created: logical id, type, physical id and the data they answered. */
  registered(): ReturnType<LocalRegistrations['registered']> {
    return this.registrations.registered();
  }
  /** The events the processor published (the bus also carries others, such as Track Payment), all or those after `since`. */
  verifiedEvents(since?: RunnerCheckpoint): RecordedEvent[] {
    const source = this.processorSettings().eventSource;
    return this.events.events.filter((event) => event.source === source).slice(since?.events ?? 0);
  }
  /** The sum of a metric the functions printed so far (0 when none did). */
  metricSum(name: string): number {
    return this.logs.metricSums[name] ?? 0;
  }
  /**
   * Runs the reconciliation sweep once, as its schedule would at `at` (waits for a sweep already
   * running, then runs another); answers the sweep's report. Throws when the stack has no sweep.
   */
  async sweep(at = new Date()): Promise<SweepResult> {
    if (!this.reconciliation)
      throw new Error('The stack has no reconciliation sweep (reconciliation.enabled is false)');
    return this.reconciliation.run(at);
  }
  /**
   * Runs the template's schedules: the sweep every `intervalMs` (a test or the demo passes a short
   * one), a run never overlapping the one before. Stopped by stopSchedules() or stop().
   * @param intervalMs @default the schedule's own rate
   */
  startSchedules(intervalMs = this.deployment.reconciliation?.intervalMs): void {
    if (intervalMs) this.reconciliation?.startSchedules(intervalMs);
  }
  stopSchedules(): void {
    this.reconciliation?.stopSchedules();
  }
  /** The template's outputs, resolved (the operator manifest among them); one the stand-ins cannot resolve is left out. */
  protected stackOutputs(): StackOutput[] {
    return Object.entries(this.template.Outputs ?? {}).flatMap(([key, output]) => {
      try {
        return [
          {
            key,
            value: String(this.resolver.resolve(output.Value)),
            ...(output.Description ? { description: output.Description } : {}),
          },
        ];
      } catch {
        return [];
      }
    });
  }
  /** The template's alarms as the local CloudWatch answers them: named by logical id, in the state the runner evaluates now. */
  protected localAlarms(): LocalAlarm[] {
    const states = this.alarmStates();
    const since = Date.now();
    return this.deployment.alarms.map((alarm) => ({
      name: alarm.logicalId,
      description: this.alarmDescription(alarm.description),
      since,
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
  /**
   * The state of each alarm of the template at `now`, evaluated over the metrics the functions
   * printed as CloudWatch would (alarms on AWS services' own metrics, or on metric math, are
   * NOT_EVALUATED).
   */
  alarmStates(now = Date.now()): Record<string, LocalAlarmState> {
    return Object.fromEntries(
      this.deployment.alarms.map((alarm) => [alarm.logicalId, evaluateAlarm(alarm, this.logs.datapoints, now)]),
    );
  }
  /** Where the operator CLI reaches the stand-ins, and as whom (what `npm run local` prints as exports). */
  operatorAws(): AwsOptions {
    return this.services.operatorAws();
  }
  /**
   * Runs an operator command (`cdk-bank-webhooks status|trace|dlq …`) against this stack's
   * stand-ins, as an operator would against AWS: `--stack` is added.
   */
  async operate(argv: readonly string[]): Promise<{ status: number; out: string; err: string }> {
    const out: string[] = [];
    const err: string[] = [];
    const status = await runCli([...argv, '--stack', this.stackName], {
      out: (text) => out.push(text),
      err: (text) => err.push(text),
      stopRequested: new Promise(() => undefined),
      aws: this.services.operatorAws(),
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
  get journal():
    { readonly bucket: string; keys(prefix?: string): string[]; text(key: string): string | undefined } | undefined {
    const bucket = this.processorSettings().journalBucketName;
    if (!bucket) return undefined;
    const s3 = this.services.s3;
    return { bucket, keys: (prefix) => s3.keys(bucket, prefix), text: (key) => s3.text(bucket, key) };
  }
  /** Where the records stand now: audit(checkpoint) then checks only what came after. */
  checkpoint(): RunnerCheckpoint {
    return {
      exchanges: this.exchanges.length,
      events: this.verifiedEvents().length,
      quarantined: this.quarantined.length,
    };
  }
  /**
   * Checks the end-to-end promise over everything seen since `since` (call after settle()). A
   * runner whose bank is a local sandbox has no in-process provider to ask which Pix it holds:
   * give them (`(await runner.control.pix.state()).pix`).
   */
  audit(
    since: RunnerCheckpoint = { exchanges: 0, events: 0, quarantined: 0 },
    pixHeld?: AuditInput['pixHeld'],
  ): AuditReport {
    const settings = this.processorSettings();
    return auditExactlyOnce({
      exchanges: this.exchanges.slice(since.exchanges),
      events: this.verifiedEvents().slice(since.events),
      quarantined: this.quarantined.slice(since.quarantined),
      processedRequestIds: this.processedRequestIds,
      movements: settings.boletoMovements,
      paymentStatuses: settings.paymentStatuses,
      ...(pixHeld
        ? { pixHeld }
        : this.pixUrl && this.services.simulator
          ? { pixHeld: this.services.simulator.pixHeld() }
          : {}),
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
      const page = await this.services.dynamo.client.send(
        new ScanCommand({
          TableName: this.deployment.idempotencyTable,
          ProjectionExpression: 'outboxId',
          ExclusiveStartKey,
        }),
      );
      for (const item of page.Items ?? []) {
        tally.subjects++;
        if (item.outboxId) tally.withOutbox++;
      }
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
    return tally;
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
      if (
        idle &&
        this.sqsGate.isOpen &&
        (await this.queueDepth()) === 0 &&
        (await this.queueDepth(this.lookQueueUrl)) === 0
      )
        break;
      if (Date.now() > until)
        throw new Error(
          `Not settled after ${timeoutMs} ms: ${idle ? 'messages are still in the queue' : 'the bank is still delivering'}`,
        );
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    await this.consumer?.settled();
    if (!this.options.keepQuarantine) await this.readQuarantine();
    onTick?.();
  }
  /** Moves what the dead-letter queues hold into `quarantined`. */
  async readQuarantine(): Promise<void> {
    for (const message of [
      ...(await drainQueue(this.sqs, this.dlqUrl)),
      ...(await drainQueue(this.sqs, this.lookDlqUrl)),
    ]) {
      this.quarantined.push({
        messageId: message.MessageId!,
        reason: message.MessageAttributes?.QuarantineReason?.StringValue,
        body: message.Body ?? '',
      });
    }
  }
  /** Stops everything; registrations still in place are left (call unregister() first). */
  async stop(): Promise<void> {
    await this.reconciliation?.stop();
    await Promise.all([this.source?.stop(), this.lookSource?.stop(), this.consumer?.stop()]);
    await Promise.all([
      this.receiver?.stop(),
      this.processor?.stop(),
      this.lookProcessor?.stop(),
      this.registrationHandler?.stop(),
      this.sweeper?.stop(),
    ]);
    await Promise.all([this.gateway?.stop(), this.pixGateway?.stop(), this.services?.stop()]);
    await this.logs.close();
    if (this.assemblyDir) rmSync(this.assemblyDir, { recursive: true, force: true });
  }
}
