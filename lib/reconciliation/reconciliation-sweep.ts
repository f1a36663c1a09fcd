import { Aws, CfnOutput, Duration, Names, Stack, Token } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as sns from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { ProcessorDefaults } from '../../contracts/processor';
import {
  PendingPaymentIndex, RECONCILIATION_SERVICE_NAME, SWEEP_SETTINGS_ENV, SweepDefaults, SweepMetric, TRACK_PAYMENT_DETAIL_TYPE,
} from '../../contracts/reconciliation';
import { bankConnectionEnvironment } from '../core/bank-connection';
import { notifyOn, Runbook, thresholdAlarm, warnWithoutAlarmTopic } from '../core/alarms';
import { QueueSenders } from '../core/queue-senders';
import { acknowledgeInherent } from '../core/compliance';
import { checkFunctionNetwork, functionNetwork, type FunctionNetworkProps } from '../core/function-network';
import { appliedRecordArn } from '../core/registration-provider';
import { libraryMetric } from '../core/metrics';
import { onlyNamedTrackPaymentProducers } from '../core/track-payment-policy';
import { isWholeNumberIn, type PropsValidation, validateProps } from '../core/props-validation';
import { checkIdempotencyTtl, minIdempotencyTtlSeconds } from '../core/timing';
import type { SettlementProcessor } from '../processor/settlement-processor';
import type { BoletoWebhookContract } from '../registration/boleto-webhook-contract';
import type { PaymentWebhookRegistration } from '../registration/payment-webhook-registration';
import type { PixKeyWebhook } from '../registration/pix-key-webhook';
import { pixConnectionEnvironment } from '../core/pix-connection';
import { checkPixSweep, pixSweepSettings } from '../core/pix-receiver';
import type { PixKeysWatched } from '../../contracts/reconciliation';
import { SweepFunction } from './sweep-function';
import { sweepSettings } from './sweep-settings';
import { checkTracing, openTelemetryLayer, type OpenTelemetryOptions, type TracingMode, xrayTracing } from '../core/tracing';

/** How the reconciliation sweep runs. */
export interface ReconciliationSweepOptions {
  /**
   * Time between two sweeps: how late a lost settlement is found at most (plus the processor's
   * verification). From 10 minutes to 24 hours, whole minutes.
   * @default Duration.minutes(15)
   */
  readonly interval?: Duration;
  /**
   * Days before the bank's today whose settled boletos each sweep reads again (today and the last
   * N days, in the bank's time zone). From 0 to 30.
   * @default 3
   */
  readonly lookbackDays?: number;
  /**
   * How long a payment seen in a non-final status (RECEBIDO, AGENDADO, EM_PROCESSAMENTO) is
   * queried again by each sweep before it is given up. From 1 to 60 days.
   * @default Duration.days(7)
   */
  readonly paymentMaxAge?: Duration;
  /**
   * Put back what the stack deployed when the bank's registration differs (deactivated, blocked,
   * reactivated, lost, or another token). Never over another party's URL unless the
   * registration's own `takeOverExisting` is set, never while the stack is not in a completed
   * status, never while its deploy record is missing or disagrees with the stack, never a token
   * but the registered version of its own token secret, and not again once contested (changed
   * back within a day of a repair). Off, a drift raises the alarm and nothing more;
   * `takeOverExisting` alone does not turn it on.
   * @default false
   */
  readonly repairRegistrations?: boolean;
  /**
   * The event sources whose Track Payment events are followed (the company's own code that starts
   * payments, such as `acme.payables`). Only these: a Track Payment costs the bank's query budget,
   * so it is taken from producers you name. Never the receiver's own `eventSource`.
   * @default - none: no Track Payment rule (`trackPaymentRule` is undefined)
   */
  readonly trackPaymentSources?: string[];
  /**
   * Who may put Track Payment events of each source on the receiver's bus: each source named here
   * gets a bus policy statement that denies its Track Payment events to every other principal
   * (the source's other events are left alone). A source of `trackPaymentSources` not named here
   * gets a synth warning: anyone allowed `events:PutEvents` on the bus could drive looks with it.
   * @default - none named (a warning per source)
   */
  readonly trackPaymentProducers?: TrackPaymentProducer[];
  /**
   * Pending payments one sweep sends a look for at most, the oldest first; the rest wait for the
   * next sweep (`PaymentLooksCapped` counts them). From 1 to 10,000.
   * @default 1000
   */
  readonly maxPaymentLooksPerSweep?: number;
}

/** The code allowed to put Track Payment events of one source on the receiver's bus. */
export interface TrackPaymentProducer {
  /** The event source it puts Track Payment events under (one of `trackPaymentSources`). */
  readonly source: string;
  /** The roles of that code (a function's role, a container task's role). */
  readonly roles: iam.IRole[];
}

/** The reconciliation sweep of a BankWebhookReceiver: it finds what the bank never delivered. */
export interface ReconciliationOptions extends ReconciliationSweepOptions {
  /**
   * Run the sweep. Without it, a notification the bank fails to deliver (it never resends one) is
   * a settlement nobody learns about.
   * @default true
   */
  readonly enabled?: boolean;
}

/** Properties of {@link ReconciliationSweep}. */
export interface ReconciliationSweepProps extends ReconciliationSweepOptions, FunctionNetworkProps {
  /** The processor whose bank connection, table, queue and bus the sweep works with. */
  readonly processor: SettlementProcessor;
  /**
   * The payment callback registration the watch compares with the bank's.
   * @default - none watched
   */
  readonly paymentRegistration?: PaymentWebhookRegistration;
  /**
   * The boleto webhook contracts the watch compares with the bank's.
   * @default - none watched
   */
  readonly boletoContracts?: BoletoWebhookContract[];
  /**
   * Each Pix key's webhook the watch compares with the provider's (all at one Pix API).
   * @default - none watched
   */
  readonly pixKeyWebhooks?: PixKeyWebhook[];
  /**
   * Retention of the function's log group.
   * @default logs.RetentionDays.ONE_YEAR
   */
  readonly logRetention?: logs.RetentionDays;
  /**
   * KMS key of the function's log group; its policy must let CloudWatch Logs use it.
   * @default - CloudWatch Logs' own encryption
   */
  readonly logEncryptionKey?: kms.IKey;
  /**
   * How the function is traced.
   * @default TracingMode.OFF
   */
  readonly tracing?: TracingMode;
  /**
   * How AWS's OpenTelemetry layer runs; only with `tracing: TracingMode.OPENTELEMETRY`.
   * @default - AWS's layer for the stack's region, fast start off, Application Signals off
   */
  readonly openTelemetry?: OpenTelemetryOptions;
  /**
   * X-Ray active tracing of the function.
   * @deprecated use `tracing: TracingMode.XRAY`; removed in 1.0
   * @default false
   */
  readonly tracingEnabled?: boolean;
  /**
   * SNS topic notified when an alarm goes off and when it clears.
   * @default - alarms without actions
   */
  readonly alarmTopic?: sns.ITopic;
}

/** The options with every default filled. */
export interface ResolvedReconciliation {
  readonly enabled: boolean;
  readonly interval: Duration;
  readonly lookbackDays: number;
  readonly paymentMaxAge: Duration;
  readonly repairRegistrations: boolean;
}

function resolveReconciliation(options: ReconciliationOptions = {}): ResolvedReconciliation {
  return {
    enabled: options.enabled ?? true,
    interval: options.interval ?? Duration.minutes(SweepDefaults.intervalMinutes),
    lookbackDays: options.lookbackDays ?? SweepDefaults.lookbackDays,
    paymentMaxAge: options.paymentMaxAge ?? Duration.days(SweepDefaults.paymentMaxAgeDays),
    repairRegistrations: options.repairRegistrations ?? false,
  };
}

/**
 * Checks the sweep's options under `prefix` (such as `reconciliation.`), and that the processor's
 * records outlive what the sweep reads again (`idempotencyTtl`, when it is at least the
 * processor's own minimum, which the processor checks).
 */
export function checkReconciliationSweep(v: PropsValidation, options: ReconciliationSweepOptions, prefix: string, idempotencyTtl?: Duration, eventSource?: string): void {
  if (idempotencyTtl && !Token.isUnresolved(idempotencyTtl.toSeconds()) && idempotencyTtl.toSeconds() >= minIdempotencyTtlSeconds(0, 0)) {
    const r = resolveReconciliation(options);
    const lookback = Token.isUnresolved(r.lookbackDays) ? 30 : r.lookbackDays;
    checkIdempotencyTtl(v, idempotencyTtl, lookback, Math.ceil(r.paymentMaxAge.toDays({ integral: false })));
  }
  if (options.interval) {
    v.checkNumber(options.interval.toSeconds(), `${prefix}interval`, (s) => s % 60 === 0 && s >= 600 && s <= 86_400, 'must be whole minutes from 10 minutes (longer than one sweep may run) to 24 hours (seconds)');
  }
  v.checkNumber(options.lookbackDays, `${prefix}lookbackDays`, isWholeNumberIn(0, 30), 'must be a whole number of days from 0 to 30');
  v.checkNumber(options.maxPaymentLooksPerSweep, `${prefix}maxPaymentLooksPerSweep`, isWholeNumberIn(1, 10_000), 'must be a whole number from 1 to 10000');
  checkTrackPaymentSources(v, options.trackPaymentSources, `${prefix}trackPaymentSources`, eventSource);
  checkTrackPaymentProducers(v, options, `${prefix}trackPaymentProducers`);
  if (options.paymentMaxAge) {
    v.checkNumber(options.paymentMaxAge.toSeconds(), `${prefix}paymentMaxAge`, (s) => s % 86_400 === 0 && s >= 86_400 && s <= 60 * 86_400, 'must be whole days from 1 to 60 (seconds)');
  }
}

/** The Track Payment producers: each of a source the sweep follows, once, with at least one role. */
function checkTrackPaymentProducers(v: PropsValidation, options: ReconciliationSweepOptions, name: string): void {
  const producers = options.trackPaymentProducers;
  if (producers === undefined) return;
  const sources = options.trackPaymentSources ?? [];
  producers.forEach((producer, i) => {
    if (Token.isUnresolved(producer.source)) return;
    v.check(sources.includes(producer.source), `${name}[${i}].source`, `is "${producer.source}", which is not one of trackPaymentSources (${sources.map((s) => `"${s}"`).join(', ') || 'none'}): name the producers of a source the sweep follows`);
    v.check(producers.findIndex((p) => p.source === producer.source) === i, `${name}[${i}].source`, `names "${producer.source}" again: list every role of a source in one entry`);
    v.check((producer.roles ?? []).length > 0, `${name}[${i}].roles`, 'must name at least one role');
  });
}

/** The Track Payment sources: named, each an event source EventBridge takes, none the receiver's own. */
function checkTrackPaymentSources(v: PropsValidation, sources: string[] | undefined, name: string, eventSource: string | undefined): void {
  if (sources === undefined) return;
  v.check(sources.length > 0, name, 'must name at least one source (leave it out to read no Track Payment events)');
  sources.forEach((source, i) => {
    if (Token.isUnresolved(source)) return;
    v.check(/^[A-Za-z0-9._\-/]{1,256}$/.test(source), `${name}[${i}]`, `must be an event source of 1 to 256 letters, digits, dots, hyphens, underscores or slashes, got "${source}"`);
    v.check(source !== (eventSource ?? ProcessorDefaults.eventSource), `${name}[${i}]`, `is the receiver's own eventSource "${source}": Track Payment events come from the company's code, under a source of its own`);
    v.check(sources.indexOf(source) === i, `${name}[${i}]`, `names "${source}" twice`);
  });
}

/**
 * The scheduled sweep (a function and its schedule), the rule that turns a Track Payment event
 * into a look, and the alarms: a recovered settlement means the bank lost a webhook. Works on a
 * SettlementProcessor's table and queue; with registrations, it also watches them at the bank.
 */
export class ReconciliationSweep extends Construct {
  /** The sweep's function. */
  public readonly sweepFunction: lambda.Function;
  /** The schedule that runs it. */
  public readonly schedule: events.Rule;
  /** The rule that turns a Track Payment event of `trackPaymentSources` into a look (none without them). */
  public readonly trackPaymentRule?: events.Rule;
  /** Alarm: the sweep published changes the bank never notified (webhooks are being lost). */
  public readonly recoveredAlarm: cloudwatch.Alarm;
  /** Alarm: two sweeps in a row failed. */
  public readonly sweepErrorsAlarm: cloudwatch.Alarm;
  /** Alarm: a registration at the bank is not what the stack deployed (none without registrations). */
  public readonly registrationDriftAlarm?: cloudwatch.Alarm;
  /** Alarm: a registration drifted again soon after a repair (another stack or a person changes it back); none without registrations. */
  public readonly registrationContestedAlarm?: cloudwatch.Alarm;
  /** Alarm: a registration's deploy record is missing, unreadable or not what the stack deployed (someone wrote or deleted it); none without registrations. */
  public readonly registrationRecordAlarm?: cloudwatch.Alarm;
  /** The `receiver` dimension of its metrics: its processor's. */
  public readonly receiverName: string;

  constructor(scope: Construct, id: string, props: ReconciliationSweepProps) {
    super(scope, id);
    validateProps(this.node.path, 'ReconciliationSweep', props, (v, p) => {
      checkReconciliationSweep(v, p, '', p.processor.idempotencyTtl, p.processor.eventSource);
      checkTracing(v, p);
      checkPixSweep(v, p.processor.pix, 'pix', resolveReconciliation(p).lookbackDays, p.processor.idempotencyTtl);
      checkFunctionNetwork(v, p);
    });
    const options = resolveReconciliation(props);
    const { processor } = props;
    this.receiverName = processor.receiverName;
    const payment = props.paymentRegistration;
    const contracts = props.boletoContracts ?? [];
    const pixKeys = props.pixKeyWebhooks ?? [];
    // The keys the stack deployed, for the watch: an output (read with the stack's status), since
    // an entry per key would not fit the function's 4 KB of environment.
    const pixKeysOutput = pixKeys.length ? new CfnOutput(this, 'PixKeysWatched', {
      description: 'The Pix keys whose webhooks the registration watch compares with the provider\'s (read by the sweep function)',
      value: Stack.of(this).toJsonString({
        url: pixKeys[0].url, ...(pixKeys[0].takeOverExisting ? { takeOverExisting: true } : {}), keys: pixKeys.map((k) => [k.chave, k.appliedRecordName]),
      } satisfies PixKeysWatched),
    }) : undefined;
    const registrations: Array<PaymentWebhookRegistration | BoletoWebhookContract | PixKeyWebhook> = [...(payment ? [payment] : []), ...contracts, ...pixKeys];
    // Named at synth (not by CloudFormation), so the function can look its own schedule up without a circular reference.
    const scheduleRuleName = `${Names.uniqueResourceName(this, { maxLength: 50, separator: '-' })}-schedule`;
    const settings = sweepSettings({ idempotencyTableName: processor.idempotencyTable.tableName, queueUrl: processor.lookQueue.queueUrl }, {
      lookbackDays: options.lookbackDays,
      paymentMaxAgeDays: options.paymentMaxAge.toDays(),
      maxPaymentLooksPerSweep: props.maxPaymentLooksPerSweep,
      receiverName: processor.receiverName,
      ...(processor.pix ? { pix: pixSweepSettings(processor.pix, { lookbackDays: options.lookbackDays, intervalMinutes: options.interval.toMinutes(), idempotencyTtl: processor.idempotencyTtl }) } : {}),
      ...(registrations.length ? {
        watch: {
          ...(payment ? { payment: payment._watched } : {}), contracts: contracts.map((c) => c._watched),
          ...(pixKeysOutput ? { pixKeysOutput: pixKeysOutput.logicalId } : {}), repair: options.repairRegistrations, stackId: Aws.STACK_ID,
        },
      } : {}),
    });
    const fn = new SweepFunction(this, 'Function', {
      description: 'Finds settlements and payment changes the bank never notified, and has the processor verify and publish them',
      timeout: Duration.seconds(SweepDefaults.timeoutSeconds),
      memorySize: 512,
      logGroupId: 'LogGroup',
      roleId: 'Role',
      roleDescription: 'Bank reconciliation sweep: list settled boletos, read subject records and cursors, send look requests to the processor\'s look queue',
      logRetention: props.logRetention,
      logEncryptionKey: props.logEncryptionKey,
      tracing: xrayTracing(props),
      openTelemetry: openTelemetryLayer(this, props),
      network: functionNetwork(this, 'SecurityGroup', props),
      environment: { [SWEEP_SETTINGS_ENV]: Stack.of(this).toJsonString(settings) },
    });
    this.sweepFunction = fn;
    for (const [name, value] of Object.entries(bankConnectionEnvironment(this, processor.bank, fn))) fn.addEnvironment(name, value);
    // The Pix listing and the keys' webhooks are read at the Pix API, under the receiver's Pix credentials.
    const pixConnection = processor.pix?.connection ?? pixKeys[0]?.connection;
    if (pixConnection) for (const [name, value] of Object.entries(pixConnectionEnvironment(this, pixConnection, fn))) fn.addEnvironment(name, value);
    // Records (read), cursors and the shared query rate (write), the pending-payments index (query).
    fn.allow(new iam.PolicyStatement({ actions: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'], resources: [processor.idempotencyTable.tableArn] }));
    fn.allow(new iam.PolicyStatement({ actions: ['dynamodb:Query'], resources: [`${processor.idempotencyTable.tableArn}/index/${PendingPaymentIndex.NAME}`] }));
    // Look requests go to the look queue only: the sweep cannot put anything before a notification.
    QueueSenders.allowFunction(fn, [processor.lookQueue]);
    processor.lookQueue.encryptionMasterKey?.grant(fn, 'kms:GenerateDataKey', 'kms:Decrypt');
    if (registrations.length) {
      for (const secret of new Set([payment?.token, ...contracts.map((c) => c.token)])) secret?.grantRead(fn);
      // What each registration's last deploy learned (the token version it registered), and the stack's status (a repair waits for a completed one).
      fn.allow(new iam.PolicyStatement({
        actions: ['ssm:GetParameter'],
        resources: registrations.map((r) => appliedRecordArn(this, r.appliedRecordName)),
      }));
      fn.allow(new iam.PolicyStatement({ actions: ['cloudformation:DescribeStacks'], resources: [Aws.STACK_ID] }));
    }

    this.schedule = new events.Rule(this, 'Schedule', {
      ruleName: scheduleRuleName,
      description: 'Runs the bank reconciliation sweep and the registration watch',
      schedule: events.Schedule.rate(options.interval),
    });
    // Deleted before the registrations on destroy (a watch repairs nothing then anyway: the stack is DELETE_IN_PROGRESS).
    for (const registration of registrations) this.schedule.node.addDependency(registration);
    // A failed sweep is not retried: the next one reads from the same cursors.
    this.schedule.addTarget(new targets.LambdaFunction(this.sweepFunction, { retryAttempts: 0, maxEventAge: Duration.minutes(5) }));
    acknowledgeInherent(this.schedule, 'EventBusDLQ', 'A schedule event carries nothing: a run that was not delivered is made up by the next, which reads from the same cursors and look-back, so a dead-letter queue would only collect empty events.');

    // The company's own code asks for a payment it started to be followed (see cdk-bank-webhooks/docs/reconciliation.md).
    if (props.trackPaymentSources?.length) {
      this.trackPaymentRule = new events.Rule(this, 'TrackPaymentRule', {
        eventBus: processor.eventBus,
        description: `${TRACK_PAYMENT_DETAIL_TYPE} events: follow a payment the company started until it is final`,
        eventPattern: {
          detailType: [TRACK_PAYMENT_DETAIL_TYPE],
          source: props.trackPaymentSources,
          detail: { account: { cooperativa: [processor.account.cooperativa], conta: [processor.account.conta] } },
        },
      });
      // Into the look queue; a delivery the queue refused goes to the look dead-letter queue (whose
      // alarm fires), from where a redrive hands it to the processor like any look request.
      this.trackPaymentRule.addTarget(new targets.SqsQueue(processor.lookQueue, {
        deadLetterQueue: processor.lookDeadLetterQueue, retryAttempts: 185, maxEventAge: Duration.hours(24),
      }));
      // EventBridge delivers for this rule into the look queue, and into its dead-letter queue what the queue refused.
      for (const queue of [processor.lookQueue, processor.lookDeadLetterQueue]) QueueSenders.of(queue)?.addRule(this.trackPaymentRule);
      // Only the named producers may put Track Payment events of a source on the bus.
      onlyNamedTrackPaymentProducers(this, processor.eventBus, props.trackPaymentSources, new Map((props.trackPaymentProducers ?? []).map((p) => [p.source, p.roles])));
    }

    const period = { period: options.interval };
    this.recoveredAlarm = thresholdAlarm(this, 'RecoveredAlarm', {
      runbook: Runbook.RECOVERED,
      description: 'The reconciliation sweep published changes the bank never notified (NotificationsRecovered): webhooks are being lost. Check the registrations at the bank, the API\'s 4xx/5xx and the receiver\'s errors.',
      metric: processor.metricNotificationsRecovered(period),
    });
    this.sweepErrorsAlarm = thresholdAlarm(this, 'SweepErrorsAlarm', {
      runbook: Runbook.SWEEP_ERRORS,
      description: `Two sweeps in a row failed: lost notifications are not being looked for. See the ${RECONCILIATION_SERVICE_NAME} log.`,
      metric: fn.metricErrors({ period: options.interval, statistic: cloudwatch.Stats.SUM }),
      evaluationPeriods: 2,
    });
    if (registrations.length) {
      this.registrationDriftAlarm = thresholdAlarm(this, 'RegistrationDriftAlarm', {
        runbook: Runbook.REGISTRATION_DRIFT,
        description: `A registration at the bank is not what the stack deployed (missing, another URL or token, a status changed, or a token the receiver no longer accepts): notifications are being lost or a pause was undone. See the ${RECONCILIATION_SERVICE_NAME} log for which and how; set reconciliation.repairRegistrations to have it put back, or redeploy.`,
        metric: this.metric(SweepMetric.REGISTRATION_DRIFT, period),
      });
      this.registrationContestedAlarm = thresholdAlarm(this, 'RegistrationContestedAlarm', {
        runbook: Runbook.REGISTRATION_CONTESTED,
        description: `A registration the watch repaired was changed back within a day (another stack of the same bank account, or a person): the watch no longer repairs it. Find who else registers this account (staging and production share the bank), then deploy the stack that should hold it. See the ${RECONCILIATION_SERVICE_NAME} log.`,
        metric: this.metric(SweepMetric.REGISTRATION_CONTESTED, period),
      });
      this.registrationRecordAlarm = thresholdAlarm(this, 'RegistrationRecordAlarm', {
        runbook: Runbook.REGISTRATION_RECORD,
        description: `A registration's deploy record (an SSM parameter under /cdk-bank-webhooks/applied/) is missing, unreadable or not what the stack deployed: someone deleted or wrote it. The watch still compares the bank with what the stack deployed but repairs nothing. See the ${RECONCILIATION_SERVICE_NAME} log for which field differs, find who wrote the parameter (CloudTrail PutParameter), then deploy a registration change (tokenVersion) to record it again.`,
        metric: this.metric(SweepMetric.REGISTRATION_RECORD_UNTRUSTED, period),
      });
    }
    notifyOn(props.alarmTopic, [this.recoveredAlarm, this.sweepErrorsAlarm, this.registrationDriftAlarm, this.registrationContestedAlarm, this.registrationRecordAlarm]);
    warnWithoutAlarmTopic(this, props.alarmTopic);
  }

  /** A metric the sweep emits (`SweepMetric`, such as `RegistrationDrift`): a 5-minute sum unless `props` says otherwise. */
  public metric(metricName: string, props: cloudwatch.MetricOptions = {}): cloudwatch.Metric {
    return libraryMetric(metricName, RECONCILIATION_SERVICE_NAME, this.receiverName, {}, props);
  }
}
