import { Aws, CfnOutput, Duration, Names, Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import {
  PendingPaymentIndex,
  RECONCILIATION_SERVICE_NAME,
  SWEEP_SETTINGS_ENV,
  SweepDefaults,
  SweepMetric,
  TRACK_PAYMENT_DETAIL_TYPE,
} from '../../contracts/reconciliation';
import { bankConnectionEnvironment } from '../families/cooperative/connection';
import { notifyOn, Runbook, thresholdAlarm, warnWithoutAlarmTopic } from '../core/alarms';
import { QueueSenders } from '../core/queue-senders';
import { allowConfigurationWatch, configurationWatchSettings } from './configuration-watch';
import { guardRule } from '../core/configuration-guard';
import { acknowledgeInherent } from '../core/compliance';
import { checkFunctionNetwork, functionNetwork } from '../core/function-network';
import { appliedRecordArn } from '../core/registration-provider';
import { libraryMetric } from '../core/metrics';
import { onlyNamedTrackPaymentProducers } from '../core/track-payment-policy';
import { validateProps } from '../core/props-validation';
import type { BoletoWebhookContract } from '../registration/boleto-webhook-contract';
import type { PaymentWebhookRegistration } from '../registration/payment-webhook-registration';
import type { PixKeyWebhook } from '../registration/pix-key-webhook';
import type { PixAccountWebhook } from '../registration/pix-account-webhook';
import { pixConnectionEnvironment } from '../families/pix/connection';
import { checkPixSweep, pixSweepSettings } from '../families/pix/receiver';
import type { PixKeysWatched } from '../../contracts/reconciliation';
import { SweepFunction } from './sweep-function';
import { sweepSettings } from './sweep-settings';
import { checkTracing, openTelemetryLayer, xrayTracing } from '../core/tracing';

import {
  checkReconciliationSweep,
  type ReconciliationSweepProps,
  resolveReconciliation,
} from './reconciliation-sweep-props';
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
  /** Alarm: the stack's own security-relevant configuration drifted from its template (CloudFormation's drift detection). */
  public readonly configurationDriftAlarm: cloudwatch.Alarm;
  /** Alarm: a registration drifted again soon after a repair (another stack or a person changes it back); none without registrations. */
  public readonly registrationContestedAlarm?: cloudwatch.Alarm;
  /** Alarm: a registration's deploy record is missing, unreadable or not what the stack deployed (someone wrote or deleted it); none without registrations. */
  public readonly registrationRecordAlarm?: cloudwatch.Alarm;
  /** The `receiver` dimension of its metrics: its processor's. */
  public readonly receiverName: string;

  constructor(scope: Construct, id: string, props: ReconciliationSweepProps) {
    super(scope, id);
    validateProps(
      this.node.path,
      'ReconciliationSweep',
      props,
      (v, p) => {
        checkReconciliationSweep(v, p, '', p.processor.idempotencyTtl, p.processor.eventSource);
        checkTracing(v, p);
        checkPixSweep(v, p.processor.pix, 'pix', resolveReconciliation(p).lookbackDays, p.processor.idempotencyTtl);
        checkFunctionNetwork(v, p);
      },
      Stack.of(this).region,
    );
    const options = resolveReconciliation(props);
    const { processor } = props;
    this.receiverName = processor.receiverName;
    const payment = props.paymentRegistration;
    const contracts = props.boletoContracts ?? [];
    const pixKeys = props.pixKeyWebhooks ?? [];
    const pixAccounts = props.pixAccountWebhooks ?? [];
    // The keys the stack deployed, for the watch: an output (read with the stack's status), since
    // an entry per key would not fit the function's 4 KB of environment.
    const pixKeysOutput = pixKeys.length
      ? new CfnOutput(this, 'PixKeysWatched', {
          description:
            "The Pix keys whose webhooks the registration watch compares with the provider's (read by the sweep function)",
          value: Stack.of(this).toJsonString({
            url: pixKeys[0].url,
            ...(pixKeys[0].takeOverExisting ? { takeOverExisting: true } : {}),
            keys: pixKeys.map((k) => [k.chave, k.appliedRecordName]),
            ...(pixAccounts.length ? { accounts: pixAccounts.map((a) => [a.webhook, a.appliedRecordName]) } : {}),
          } satisfies PixKeysWatched),
        })
      : undefined;
    const registrations: Array<PaymentWebhookRegistration | BoletoWebhookContract | PixKeyWebhook | PixAccountWebhook> =
      [...(payment ? [payment] : []), ...contracts, ...pixKeys, ...pixAccounts];
    // Named at synth (not by CloudFormation), so the function can look its own schedule up without a circular reference.
    const scheduleRuleName = `${Names.uniqueResourceName(this, { maxLength: 50, separator: '-' })}-schedule`;
    const settings = sweepSettings(
      { idempotencyTableName: processor.idempotencyTable.tableName, queueUrl: processor.lookQueue.queueUrl },
      {
        lookbackDays: options.lookbackDays,
        paymentMaxAgeDays: options.paymentMaxAge.toDays(),
        maxPaymentLooksPerSweep: props.maxPaymentLooksPerSweep,
        receiverName: processor.receiverName,
        configuration: configurationWatchSettings(),
        ...(processor.pix
          ? {
              pix: pixSweepSettings(processor.pix, {
                lookbackDays: options.lookbackDays,
                intervalMinutes: options.interval.toMinutes(),
                idempotencyTtl: processor.idempotencyTtl,
              }),
            }
          : {}),
        ...(registrations.length
          ? {
              watch: {
                ...(payment ? { payment: payment._watched } : {}),
                contracts: contracts.map((c) => c._watched),
                ...(pixKeysOutput ? { pixKeysOutput: pixKeysOutput.logicalId } : {}),
                repair: options.repairRegistrations,
                stackId: Aws.STACK_ID,
              },
            }
          : {}),
      },
    );
    const fn = new SweepFunction(this, 'Function', {
      description:
        'Finds settlements and payment changes the bank never notified, and has the processor verify and publish them',
      timeout: Duration.seconds(SweepDefaults.timeoutSeconds),
      memorySize: 512,
      logGroupId: 'LogGroup',
      roleId: 'Role',
      roleDescription:
        "Bank reconciliation sweep: list settled boletos, read subject records and cursors, send look requests to the processor's look queue",
      logRetention: props.logRetention,
      logEncryptionKey: props.logEncryptionKey,
      tracing: xrayTracing(props),
      openTelemetry: openTelemetryLayer(this, props),
      network: functionNetwork(this, 'SecurityGroup', props),
      environment: { [SWEEP_SETTINGS_ENV]: Stack.of(this).toJsonString(settings) },
    });
    this.sweepFunction = fn;
    for (const [name, value] of Object.entries(bankConnectionEnvironment(this, processor.bank, fn)))
      fn.addEnvironment(name, value);
    // The Pix listing and the keys' webhooks are read at the Pix API, under the receiver's Pix credentials.
    const pixConnection = processor.pix?.connection ?? pixKeys[0]?.connection;
    if (pixConnection)
      for (const [name, value] of Object.entries(pixConnectionEnvironment(this, pixConnection, fn)))
        fn.addEnvironment(name, value);
    // Records (read), cursors and the shared query rate (write), the pending-payments index (query).
    fn.allow(
      new iam.PolicyStatement({
        actions: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
        resources: [processor.idempotencyTable.tableArn],
      }),
    );
    fn.allow(
      new iam.PolicyStatement({
        actions: ['dynamodb:Query'],
        resources: [`${processor.idempotencyTable.tableArn}/index/${PendingPaymentIndex.NAME}`],
      }),
    );
    // Look requests go to the look queue only: the sweep cannot put anything before a notification.
    QueueSenders.allowFunction(fn, [processor.lookQueue]);
    processor.lookQueue.encryptionMasterKey?.grant(fn, 'kms:GenerateDataKey', 'kms:Decrypt');
    if (registrations.length) {
      for (const secret of new Set([payment?.token, ...contracts.map((c) => c.token)])) secret?.grantRead(fn);
      // What each registration's last deploy learned (the token version it registered), and the stack's status (a repair waits for a completed one).
      fn.allow(
        new iam.PolicyStatement({
          actions: ['ssm:GetParameter'],
          resources: registrations.map((r) => appliedRecordArn(this, r.appliedRecordName)),
        }),
      );
    }
    // The stack's status for both watches, and drift detection of its own security-relevant resources.
    allowConfigurationWatch(this, fn.role!);

    this.schedule = new events.Rule(this, 'Schedule', {
      ruleName: scheduleRuleName,
      description: 'Runs the bank reconciliation sweep and the registration watch',
      schedule: events.Schedule.rate(options.interval),
    });
    // Deleted before the registrations on destroy (a watch repairs nothing then anyway: the stack is DELETE_IN_PROGRESS).
    for (const registration of registrations) this.schedule.node.addDependency(registration);
    // A failed sweep is not retried: the next one reads from the same cursors.
    this.schedule.addTarget(
      new targets.LambdaFunction(this.sweepFunction, { retryAttempts: 0, maxEventAge: Duration.minutes(5) }),
    );
    acknowledgeInherent(
      this.schedule,
      'EventBusDLQ',
      'A schedule event carries nothing: a run that was not delivered is made up by the next, which reads from the same cursors and look-back, so a dead-letter queue would only collect empty events.',
    );

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
      this.trackPaymentRule.addTarget(
        new targets.SqsQueue(processor.lookQueue, {
          deadLetterQueue: processor.lookDeadLetterQueue,
          retryAttempts: 185,
          maxEventAge: Duration.hours(24),
        }),
      );
      // EventBridge delivers for this rule into the look queue, and into its dead-letter queue what the queue refused.
      for (const queue of [processor.lookQueue, processor.lookDeadLetterQueue])
        QueueSenders.of(queue)?.addRule(this.trackPaymentRule);
      guardRule(this.trackPaymentRule, processor.eventBus);
      // Only the named producers may put Track Payment events of a source on the bus.
      onlyNamedTrackPaymentProducers(
        this,
        processor.eventBus,
        props.trackPaymentSources,
        new Map((props.trackPaymentProducers ?? []).map((p) => [p.source, p.roles])),
      );
    }

    const period = { period: options.interval };
    this.recoveredAlarm = thresholdAlarm(this, 'RecoveredAlarm', {
      runbook: Runbook.RECOVERED,
      description:
        "The reconciliation sweep published changes the bank never notified (NotificationsRecovered): webhooks are being lost. Check the registrations at the bank, the API's 4xx/5xx and the receiver's errors.",
      metric: processor.metricNotificationsRecovered(period),
    });
    this.sweepErrorsAlarm = thresholdAlarm(this, 'SweepErrorsAlarm', {
      runbook: Runbook.SWEEP_ERRORS,
      description: `Two sweeps in a row failed: lost notifications are not being looked for. See the ${RECONCILIATION_SERVICE_NAME} log.`,
      metric: fn.metricErrors({ period: options.interval, statistic: cloudwatch.Stats.SUM }),
      evaluationPeriods: 2,
    });
    this.configurationDriftAlarm = thresholdAlarm(this, 'ConfigurationDriftAlarm', {
      runbook: Runbook.CONFIGURATION_DRIFT,
      description: `The stack's own security-relevant configuration (a rule on the bus, a queue or its policy, the journal or its policy, a function, its permission or role) drifted from the template, was deleted, or was not checked, or the watch could not look: CloudFormation's drift detection, from the sweep. \`cdk-bank-webhooks status\` names each resource and property; find who changed it (CloudTrail), then redeploy the stack to put the template back. Nothing is repaired by the library.`,
      metric: this.metric(SweepMetric.CONFIGURATION_DRIFT, { ...period, statistic: cloudwatch.Stats.MAXIMUM }),
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
    notifyOn(props.alarmTopic, [
      this.recoveredAlarm,
      this.configurationDriftAlarm,
      this.sweepErrorsAlarm,
      this.registrationDriftAlarm,
      this.registrationContestedAlarm,
      this.registrationRecordAlarm,
    ]);
    warnWithoutAlarmTopic(this, props.alarmTopic);
  }

  /** A metric the sweep emits (`SweepMetric`, such as `RegistrationDrift`): a 5-minute sum unless `props` says otherwise. */
  public metric(metricName: string, props: cloudwatch.MetricOptions = {}): cloudwatch.Metric {
    return libraryMetric(metricName, RECONCILIATION_SERVICE_NAME, this.receiverName, {}, props);
  }
}
