import { Duration, Names, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { PROCESSOR_SERVICE_NAME, ProcessorMetric } from '../../contracts/processor';
import { METRICS_NAMESPACE } from '../../contracts/receiver';
import { PendingPaymentIndex, RECONCILIATION_SERVICE_NAME, SWEEP_SETTINGS_ENV, SweepDefaults, SweepMetric, type SweepSettings, TRACK_PAYMENT_DETAIL_TYPE } from '../../contracts/reconciliation';
import type { BankAccount } from '../../contracts/bank-connection';
import { type BankConnectionProps, bankConnectionEnvironment } from '../bank-connection';
import { BoletoWebhookContract } from '../registration/boleto-webhook-contract';
import { notifyOn, thresholdAlarm } from '../core/alarms';
import type { FunctionNetworkProps } from '../core/function-network';
import { acknowledgeInherent } from '../core/compliance';
import { bundledFunction } from '../core/bundled-function';
import { PaymentWebhookRegistration } from '../registration/payment-webhook-registration';
import { isWholeNumberIn, type PropsValidation } from '../core/props-validation';

/** The reconciliation sweep of a BankWebhookReceiver: it finds what the bank never delivered. */
export interface ReconciliationOptions {
  /**
   * Run the sweep. Without it, a notification the bank fails to deliver (it never resends one) is
   * a settlement nobody learns about.
   * @default true
   */
  readonly enabled?: boolean;
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
   * Put this stack's registrations back when the bank's differ (deactivated, blocked, lost, or a
   * token that is not ours). Never over another party's URL unless the registration's own
   * `takeOverExisting` is set (which also repairs), and never while the stack is being deleted or
   * updated. Off, a drift raises the alarm and nothing more.
   * @default false
   */
  readonly repairRegistrations?: boolean;
}

/** The options with every default filled. */
export interface ResolvedReconciliation {
  readonly enabled: boolean;
  readonly interval: Duration;
  readonly lookbackDays: number;
  readonly paymentMaxAge: Duration;
  readonly repairRegistrations: boolean;
}

export function resolveReconciliation(options: ReconciliationOptions = {}): ResolvedReconciliation {
  return {
    enabled: options.enabled ?? true,
    interval: options.interval ?? Duration.minutes(SweepDefaults.intervalMinutes),
    lookbackDays: options.lookbackDays ?? SweepDefaults.lookbackDays,
    paymentMaxAge: options.paymentMaxAge ?? Duration.days(SweepDefaults.paymentMaxAgeDays),
    repairRegistrations: options.repairRegistrations ?? false,
  };
}

/** Checks ReconciliationOptions under `prefix`. */
export function checkReconciliation(v: PropsValidation, options: ReconciliationOptions | undefined, prefix: string): void {
  if (!options) return;
  if (options.interval) {
    v.checkNumber(options.interval.toSeconds(), `${prefix}.interval`, (s) => s % 60 === 0 && s >= 600 && s <= 86_400, 'must be whole minutes from 10 minutes (longer than one sweep may run) to 24 hours (seconds)');
  }
  v.checkNumber(options.lookbackDays, `${prefix}.lookbackDays`, isWholeNumberIn(0, 30), 'must be a whole number of days from 0 to 30');
  if (options.paymentMaxAge) {
    v.checkNumber(options.paymentMaxAge.toSeconds(), `${prefix}.paymentMaxAge`, (s) => s % 86_400 === 0 && s >= 86_400 && s <= 60 * 86_400, 'must be whole days from 1 to 60 (seconds)');
  }
}

/** @internal */
export interface ReconciliationSweepProps {
  readonly options: ResolvedReconciliation;
  readonly bank: BankConnectionProps;
  readonly table: dynamodb.Table;
  readonly queue: sqs.IQueue;
  /** Where a Track Payment event the queue could not take goes (the queue's own DLQ: alarmed, and redriven to the queue). */
  readonly deadLetterQueue: sqs.IQueue;
  readonly queueEncryptionKey?: kms.IKey;
  readonly eventBus: events.IEventBus;
  /** `source` of the verified events: a Track Payment event from it is refused. */
  readonly eventSource: string;
  /** The account: a Track Payment event names it, so receivers sharing a bus follow only their own payments. */
  readonly account: BankAccount;
  readonly logRetention: logs.RetentionDays;
  readonly logEncryptionKey?: kms.IKey;
  /** VPC placement of the function. */
  readonly network: FunctionNetworkProps;
  readonly tracingEnabled: boolean;
  readonly alarmTopic?: sns.ITopic;
  /** The stack's registrations, for the watch (none: no watch). */
  readonly registrations: ReadonlyArray<PaymentWebhookRegistration | BoletoWebhookContract>;
  /** The registrations' token secrets (read to compare the bank's token with ours). */
  readonly tokenSecrets: readonly secretsmanager.ISecret[];
}

/**
 * The scheduled sweep (a function and its schedule), the rule that turns a Track Payment event
 * into a look, and the alarms: a recovered settlement means the bank lost a webhook.
 * @internal
 */
export class ReconciliationSweep extends Construct {
  readonly sweepFunction: lambda.Function;
  readonly schedule: events.Rule;
  readonly trackPaymentRule: events.Rule;
  readonly recoveredAlarm: cloudwatch.Alarm;
  readonly sweepErrorsAlarm: cloudwatch.Alarm;
  /** Alarm: a registration at the bank is not this stack's (none without registrations). */
  readonly registrationDriftAlarm?: cloudwatch.Alarm;

  constructor(scope: Construct, id: string, props: ReconciliationSweepProps) {
    super(scope, id);
    const { options } = props;
    const logGroup = new logs.LogGroup(this, 'LogGroup', { retention: props.logRetention, removalPolicy: RemovalPolicy.RETAIN, encryptionKey: props.logEncryptionKey });
    const role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: 'Bank reconciliation sweep: list settled boletos, read subject records and cursors, send look requests to the processor queue',
    });
    logGroup.grantWrite(role);
    // Named at synth (not by CloudFormation), so the function can look its own schedule up without a circular reference.
    const scheduleRuleName = `${Names.uniqueResourceName(this, { maxLength: 50, separator: '-' })}-schedule`;
    const payment = props.registrations.find((r): r is PaymentWebhookRegistration => r instanceof PaymentWebhookRegistration);
    const contracts = props.registrations.filter((r): r is BoletoWebhookContract => r instanceof BoletoWebhookContract);
    const settings: SweepSettings = {
      idempotencyTableName: props.table.tableName,
      queueUrl: props.queue.queueUrl,
      lookbackDays: options.lookbackDays,
      paymentMaxAgeDays: options.paymentMaxAge.toDays(),
      safetyMarginMs: SweepDefaults.safetyMarginMs,
      ...(props.registrations.length ? {
        watch: { ...(payment ? { payment: payment.spec } : {}), contracts: contracts.map((c) => c.spec), repair: options.repairRegistrations, scheduleRuleName },
      } : {}),
    };
    this.sweepFunction = bundledFunction(this, 'Function', {
      bundle: 'reconciliation',
      description: 'Finds settlements and payment changes the bank never notified, and has the processor verify and publish them',
      timeout: Duration.seconds(SweepDefaults.timeoutSeconds),
      memorySize: 512,
      role,
      logGroup,
      tracing: props.tracingEnabled,
      network: props.network,
      whyNoDeadLetterQueue: 'Its schedule invokes it with no retry: a failed run is made up by the next, which reads from the same cursors and look-back, and two failures in a row raise the sweep errors alarm; a dead-letter queue would only hold empty schedule events.',
      whyNoReservedConcurrency: 'Only its schedule invokes it, once per interval, and a run ends within its timeout; the bank\'s query rate is paced by the shared pacer, not by concurrency.',
      environment: {
        ...bankConnectionEnvironment(this, props.bank, role),
        [SWEEP_SETTINGS_ENV]: Stack.of(this).toJsonString(settings),
      },
    });
    // Records (read), cursors and the shared query rate (write), the pending-payments index (query).
    role.addToPrincipalPolicy(new iam.PolicyStatement({
      actions: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
      resources: [props.table.tableArn],
    }));
    role.addToPrincipalPolicy(new iam.PolicyStatement({
      actions: ['dynamodb:Query'],
      resources: [`${props.table.tableArn}/index/${PendingPaymentIndex.NAME}`],
    }));
    role.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['sqs:SendMessage'], resources: [props.queue.queueArn] }));
    props.queueEncryptionKey?.grant(role, 'kms:GenerateDataKey', 'kms:Decrypt');
    if (props.registrations.length) {
      for (const secret of props.tokenSecrets) secret.grantRead(role);
      role.addToPrincipalPolicy(new iam.PolicyStatement({
        actions: ['events:DescribeRule'],
        resources: [Stack.of(this).formatArn({ service: 'events', resource: 'rule', resourceName: scheduleRuleName })],
      }));
    }
    if (props.tracingEnabled) {
      Validations.of(role).acknowledge({
        id: 'AwsSolutions::AwsSolutions-IAM5[Resource::*]',
        reason: 'X-Ray tracing (tracingEnabled) needs xray:PutTraceSegments and xray:PutTelemetryRecords, which support no resource-level permissions.',
      });
    }

    this.schedule = new events.Rule(this, 'Schedule', {
      ruleName: scheduleRuleName,
      description: 'Runs the bank reconciliation sweep and the registration watch',
      schedule: events.Schedule.rate(options.interval),
    });
    // Deleted before the registrations on destroy: a watch then finds no schedule and repairs nothing.
    for (const registration of props.registrations) this.schedule.node.addDependency(registration);
    // A failed sweep is not retried: the next one reads from the same cursors.
    this.schedule.addTarget(new targets.LambdaFunction(this.sweepFunction, { retryAttempts: 0, maxEventAge: Duration.minutes(5) }));
    acknowledgeInherent(this.schedule, 'EventBusDLQ', 'A schedule event carries nothing: a run that was not delivered is made up by the next, which reads from the same cursors and look-back, so a dead-letter queue would only collect empty events.');

    // The company's own code asks for a payment it started to be followed (see docs/reconciliation.md).
    this.trackPaymentRule = new events.Rule(this, 'TrackPaymentRule', {
      eventBus: props.eventBus,
      description: `${TRACK_PAYMENT_DETAIL_TYPE} events: follow a payment the company started until it is final`,
      eventPattern: {
        detailType: [TRACK_PAYMENT_DETAIL_TYPE],
        source: events.Match.anythingBut(props.eventSource),
        detail: { account: { cooperativa: [props.account.cooperativa], conta: [props.account.conta] } },
      },
    });
    // A delivery the queue refused goes to its dead-letter queue (whose alarm fires), from where a
    // redrive hands it to the processor like any stored message.
    this.trackPaymentRule.addTarget(new targets.SqsQueue(props.queue, {
      deadLetterQueue: props.deadLetterQueue, retryAttempts: 185, maxEventAge: Duration.hours(24),
    }));

    const metric = (metricName: string, service: string) => new cloudwatch.Metric({
      namespace: METRICS_NAMESPACE, metricName, dimensionsMap: { service }, statistic: cloudwatch.Stats.SUM, period: options.interval,
    });
    this.recoveredAlarm = thresholdAlarm(this, 'RecoveredAlarm', {
      description: 'The reconciliation sweep published changes the bank never notified (NotificationsRecovered): webhooks are being lost. Check the registrations at the bank, the API\'s 4xx/5xx and the receiver\'s errors.',
      metric: metric(ProcessorMetric.RECOVERED, PROCESSOR_SERVICE_NAME),
    });
    this.sweepErrorsAlarm = thresholdAlarm(this, 'SweepErrorsAlarm', {
      description: `Two sweeps in a row failed: lost notifications are not being looked for. See the ${RECONCILIATION_SERVICE_NAME} log.`,
      metric: this.sweepFunction.metricErrors({ period: options.interval, statistic: cloudwatch.Stats.SUM }),
      evaluationPeriods: 2,
    });
    if (props.registrations.length) {
      this.registrationDriftAlarm = thresholdAlarm(this, 'RegistrationDriftAlarm', {
        description: `A registration at the bank is not this stack's (missing, another URL or token, INATIVO or BLOQUEADO): notifications are being lost. See the ${RECONCILIATION_SERVICE_NAME} log for which and how; set reconciliation.repairRegistrations to have it put back, or redeploy.`,
        metric: metric(SweepMetric.REGISTRATION_DRIFT, RECONCILIATION_SERVICE_NAME),
      });
    }
    notifyOn(props.alarmTopic, [this.recoveredAlarm, this.sweepErrorsAlarm, this.registrationDriftAlarm]);
  }
}
