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
import { LOCAL_AWS } from '../local-aws/local-env';
import { SWEEP_SETTINGS_ENV, type SweepResult, type SweepSettings, type WatchedRegistration } from '../../contracts/reconciliation';
import { type BoletoContractSpec, compactDeployed, type PaymentWebhookSpec, RegistrationProperty } from '../../contracts/registration';
import { evaluateAlarm, LocalAlarmState } from './alarms';
import type { StackOutput } from '../local-aws/cloudformation-server';
import { runCli } from '../../cli/cli';
import type { AwsOptions } from '../../cli/operate/aws';
import type { LocalAlarm } from '../local-aws/cloudwatch-server';
import { auditExactlyOnce, type AuditInput, type AuditReport } from './audit';
import { RunnerStack } from './runner-stack';
import { ruleLogicalId, ruleQueueTarget } from './template';
import { matchesEventPattern } from '../local-aws/event-pattern';
import { type RunnerCheckpoint, type RunnerCounts, type LocalRunnerOptions } from './runner-types';

export { RUNNER_CONTEXT_KEYS } from './local-stack';
export { addMetricLine, LOCAL_STACK_ID, type LocalRunnerOptions, type QuarantinedMessage, type RunnerCheckpoint, type RunnerCounts } from './runner-types';

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
        if (matchesEventPattern(pattern, { source: event.source, 'detail-type': event.detailType, detail: event.detail })) void this.sendToQueue(QueueUrl!, event, rule);
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
      consumerInvocations: this.consumerInvocations,
      consumerErrors: this.consumerErrors,
      metrics: { ...this.metricSums },
    };
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
  /** POSTs `body` to the Pix API (`route` '': its bare URL, the validation call), as anyone who finds its URL can. */
  async postPix(body: string, route: 'pix' | '' = 'pix'): Promise<{ status: number; body: string }> {
    if (!this.pixUrl) throw new Error('This runner\'s stack has no Pix API');
    const answer = await httpCall(route ? `${this.pixUrl}/${route}` : this.pixUrl, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body, trustedCas: [this.apiCaPem] });
    return { status: answer.status, body: answer.body };
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
  protected stackOutputs(): StackOutput[] {
    return Object.entries(this.template.Outputs ?? {}).flatMap(([key, output]) => {
      try {
        return [{ key, value: String(this.resolver.resolve(output.Value)), ...(output.Description ? { description: output.Description } : {}) }];
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
  /** Where the operator CLI reaches the stand-ins, and as whom (what `npm run local` prints as exports). */
  operatorAws(): AwsOptions {
    return this.services.operatorAws();
  }
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
  /** Where the records stand now: audit(checkpoint) then checks only what came after. */
  checkpoint(): RunnerCheckpoint {
    return { exchanges: this.exchanges.length, events: this.verifiedEvents().length, quarantined: this.quarantined.length };
  }
  /**
   * Checks the end-to-end promise over everything seen since `since` (call after settle()). A
   * runner whose bank is a local sandbox has no in-process provider to ask which Pix it holds:
   * give them (`(await runner.control.pix.state()).pix`).
   */
  audit(since: RunnerCheckpoint = { exchanges: 0, events: 0, quarantined: 0 }, pixHeld?: AuditInput['pixHeld']): AuditReport {
    const settings = this.processorSettings();
    return auditExactlyOnce({
      exchanges: this.exchanges.slice(since.exchanges),
      events: this.verifiedEvents().slice(since.events),
      quarantined: this.quarantined.slice(since.quarantined),
      processedRequestIds: this.processedRequestIds,
      movements: settings.boletoMovements,
      paymentStatuses: settings.paymentStatuses,
      ...(pixHeld ? { pixHeld } : this.pixUrl && this.services.simulator ? { pixHeld: this.services.simulator.pixHeld() } : {}),
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
    if (!this.options.keepQuarantine) await this.readQuarantine();
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
    await Promise.all([this.gateway?.stop(), this.pixGateway?.stop(), this.services?.stop()]);
    await Promise.all([...this.logFiles.values()].map((file) => new Promise((resolve) => file.end(resolve))));
    if (this.assemblyDir) rmSync(this.assemblyDir, { recursive: true, force: true });
    if (this.ownsLogDir) rmSync(this.logDir, { recursive: true, force: true });
  }
}
