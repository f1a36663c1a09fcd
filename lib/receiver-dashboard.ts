import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { Construct } from 'constructs';
import { BankEventDetailType } from '../contracts/events';

/** Shown only for a receiver with a Pix API. */
const PIX_DETAIL_TYPES: readonly BankEventDetailType[] = [
  BankEventDetailType.PIX_RECEIVED,
  BankEventDetailType.PIX_REFUND,
];
/** Shown only for a receiver taking its account's Pix Automático. */
const RECURRING_DETAIL_TYPES: readonly BankEventDetailType[] = [
  BankEventDetailType.PIX_RECURRENCE_CHANGED,
  BankEventDetailType.PIX_RECURRING_CHARGE_CHANGED,
];
import { ProcessorMetric } from '../contracts/processor';
import { PIX_RECURRING_ROUTES, PIX_ROUTE, ReceiverMetric, ROUTES } from '../contracts/receiver';
import { SweepMetric } from '../contracts/reconciliation';
import type { BankWebhookEndpoint } from './endpoint/bank-webhook-endpoint';
import type { SettlementProcessor } from './processor/settlement-processor';
import type { ReconciliationSweep } from './reconciliation/reconciliation-sweep';

/** Properties of {@link ReceiverDashboard}: the parts of one receiver. */
export interface ReceiverDashboardProps {
  /** The receiving endpoint. */
  readonly endpoint: BankWebhookEndpoint;
  /** The processor on its queue. */
  readonly processor: SettlementProcessor;
  /**
   * The reconciliation sweep and registration watch.
   * @default - none: the dashboard has no sweep row
   */
  readonly reconciliation?: ReconciliationSweep;
  /**
   * The dashboard's name.
   * @default - CloudFormation names it
   */
  readonly dashboardName?: string;
}

const WIDTH = 24;
const FIVE_MINUTES = Duration.minutes(5);

/**
 * One CloudWatch dashboard per receiver (CDK's own CloudWatch constructs), every widget on that
 * receiver's metrics only (`receiverName`): the flow from stored to published, quarantines and
 * recoveries, the bank's 429s and deferrals, queue ages and dead-letter depths, the sweep and the
 * registration watch, and every alarm's state. `BankWebhookReceiver` makes one unless `dashboard`
 * is false.
 */
export class ReceiverDashboard extends Construct {
  /** The dashboard. */
  public readonly dashboard: cloudwatch.Dashboard;
  /** The alarms its status widget shows (consumer rules' dead-letter alarms are added as rules are made). */
  private readonly alarms: cloudwatch.IAlarm[];

  constructor(scope: Construct, id: string, props: ReceiverDashboardProps) {
    super(scope, id);
    const { endpoint, processor, reconciliation } = props;
    // The parts' metric methods give 5-minute sums: a widget line only needs its label.
    const sum = (metric: cloudwatch.Metric, label: string) => metric.with({ label });
    const graph = (
      title: string,
      left: cloudwatch.IMetric[],
      width = 12,
      options: Partial<cloudwatch.GraphWidgetProps> = {},
    ) => new cloudwatch.GraphWidget({ title, left, width, height: 6, ...options });
    this.alarms = [
      endpoint.unauthorizedRequestsAlarm,
      endpoint.boletoSilenceAlarm,
      endpoint.paymentsSilenceAlarm,
      endpoint.pixCertificateExpiryAlarm,
      processor.deadLetterQueueAlarm,
      processor.lookDeadLetterQueueAlarm,
      processor.oldestMessageAlarm,
      processor.lookAgeAlarm,
      processor.processorErrorsAlarm,
      processor.journalAlarm,
      reconciliation?.recoveredAlarm,
      reconciliation?.sweepErrorsAlarm,
      reconciliation?.registrationDriftAlarm,
      reconciliation?.registrationContestedAlarm,
      reconciliation?.registrationRecordAlarm,
      reconciliation?.configurationDriftAlarm,
    ].filter((alarm): alarm is cloudwatch.Alarm => !!alarm);

    this.dashboard = new cloudwatch.Dashboard(this, 'Resource', {
      dashboardName: props.dashboardName,
      defaultInterval: Duration.days(1),
    });
    this.dashboard.addWidgets(
      new cloudwatch.TextWidget({
        width: WIDTH,
        height: 2,
        markdown: `# Bank webhooks: ${processor.receiverName}\nEvery alarm names its runbook in cdk-bank-webhooks/docs/operations.md ("Runbooks"). A boleto's or payment's trail: \`cdk-bank-webhooks trace\`.`,
      }),
    );
    this.dashboard.addWidgets(
      new cloudwatch.AlarmStatusWidget({ title: 'Alarms', alarms: this.alarms, width: WIDTH, height: 3 }),
    );
    this.dashboard.addWidgets(
      graph('Flow: stored → published', [
        ...ROUTES.map((route) => sum(endpoint.metricNotificationsStored(route), `stored /${route}`)),
        ...(endpoint.pixApi ? [sum(endpoint.metricNotificationsStored(PIX_ROUTE), `stored /${PIX_ROUTE}`)] : []),
        ...(endpoint.servesPixRecurring
          ? PIX_RECURRING_ROUTES.map((route) => sum(endpoint.metricNotificationsStored(route), `stored /${route}`))
          : []),
        ...Object.values(BankEventDetailType)
          .filter((type) => endpoint.pixApi || !PIX_DETAIL_TYPES.includes(type))
          .filter((type) => endpoint.servesPixRecurring || !RECURRING_DETAIL_TYPES.includes(type))
          .map((type) => sum(processor.metricVerifiedEventsPublished(type), type)),
      ]),
      graph('Quarantined, not confirmed, recovered, duplicates', [
        sum(processor.metricNotificationsQuarantined(), 'quarantined'),
        sum(processor.metricNotificationsNotConfirmed(), 'not confirmed'),
        sum(processor.metricNotificationsRecovered(), 'recovered (lost by the bank)'),
        sum(processor.metricDuplicatesSuppressed(), 'duplicates suppressed'),
      ]),
    );
    this.dashboard.addWidgets(
      graph('The bank: 429s, failures, deferrals', [
        sum(processor.metricBankCallsThrottled(), '429 answers'),
        sum(processor.metricBankCallFailures(), 'calls failed after retries'),
        sum(processor.metric(ProcessorMetric.BANK_RETRIES), 'retries'),
        sum(processor.metric(ProcessorMetric.DEFERRED_FOR_RATE), 'deferred for the rate'),
        sum(processor.metric(ProcessorMetric.LOOKS_WAITING_FOR_SHARE), 'looks waiting for their share'),
      ]),
      graph('The front door: refused and failed', [
        ...ROUTES.flatMap((route) =>
          [ReceiverMetric.UNAUTHORIZED, ReceiverMetric.TOO_LARGE, ReceiverMetric.ENQUEUE_FAILED].map((name) =>
            sum(endpoint.metricReceiver(name, route), `${name} /${route}`),
          ),
        ),
        sum(processor.metric(ProcessorMetric.JOURNAL_FAILURES), 'journal writes failed'),
      ]),
    );
    const maximum = { period: Duration.minutes(1), statistic: cloudwatch.Stats.MAXIMUM };
    this.dashboard.addWidgets(
      graph(
        'Queue ages (seconds)',
        [
          processor.queue.metricApproximateAgeOfOldestMessage({ ...maximum, label: 'notifications: oldest' }),
          processor.lookQueue.metricApproximateAgeOfOldestMessage({ ...maximum, label: 'looks: oldest' }),
        ],
        8,
        {
          right: [
            processor.metric(ProcessorMetric.LOOK_AGE, {
              statistic: cloudwatch.Stats.MAXIMUM,
              label: 'look age when done (ms)',
            }),
          ],
        },
      ),
      graph(
        'Dead-letter queues (messages)',
        [
          processor.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ ...maximum, label: 'notifications' }),
          processor.lookDeadLetterQueue.metricApproximateNumberOfMessagesVisible({ ...maximum, label: 'looks' }),
        ],
        8,
      ),
      graph(
        'Processor invocations',
        [
          processor.processorFunction.metricInvocations({ period: FIVE_MINUTES, label: 'invocations' }),
          processor.processorFunction.metricErrors({ period: FIVE_MINUTES, label: 'errors' }),
          processor.processorFunction.metricThrottles({ period: FIVE_MINUTES, label: 'throttles' }),
        ],
        8,
      ),
    );
    if (reconciliation) {
      const sweep = (name: SweepMetric, label: string) => sum(reconciliation.metric(name), label);
      this.dashboard.addWidgets(
        graph(
          'Reconciliation sweep',
          [
            sweep(SweepMetric.LOOKS_REQUESTED, 'looks requested'),
            sweep(SweepMetric.BANK_CALLS, 'listing calls'),
            sweep(SweepMetric.INCOMPLETE, 'sweeps incomplete'),
            sweep(SweepMetric.PAYMENTS_GIVEN_UP, 'pending payments given up'),
          ],
          12,
          { right: [reconciliation.sweepFunction.metricErrors({ period: FIVE_MINUTES, label: 'sweep errors' })] },
        ),
        graph('Registration watch', [
          sweep(SweepMetric.REGISTRATION_DRIFT, 'drift'),
          sweep(SweepMetric.REGISTRATIONS_REPAIRED, 'repaired'),
          sweep(SweepMetric.REGISTRATION_CONTESTED, 'contested'),
          sweep(SweepMetric.REGISTRATION_RECORD_UNTRUSTED, "record missing or not the stack's"),
        ]),
      );
    }
  }

  /** Shows `alarm` in the alarm status widget too (a consumer rule's dead-letter alarm). */
  public addAlarm(alarm: cloudwatch.IAlarm): void {
    this.alarms.push(alarm);
  }
}
