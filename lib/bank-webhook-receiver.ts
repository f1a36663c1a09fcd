import { Annotations, Duration, RemovalPolicies, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type * as apigateway from 'aws-cdk-lib/aws-apigateway';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as events from 'aws-cdk-lib/aws-events';
import type * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { BankAccount } from '../contracts/bank-connection';
import type { BankEventDetailType } from '../contracts/events';
import {
  actsAgainstBank,
  type BankWebhookReceiverProps,
  silenceOf,
  stageOf,
  validateReceiverProps,
} from './bank-webhook-receiver-props';
import { checkedBy } from './core/props-validation';
import { defaultReceiverName } from './core/metrics';
import { BankStage } from './core/bank-stage';
import { VerifiedEventRule, type VerifiedEventRuleOptions } from './core/verified-event-rule';
import { BankWebhookEndpoint } from './endpoint/bank-webhook-endpoint';
import { minimumVisibilitySeconds } from './core/timing';
import { allowOnlySourceQueue } from './core/redrive-allow-policy';
import { SettlementProcessor } from './processor/settlement-processor';
import { ReconciliationSweep } from './reconciliation/reconciliation-sweep';
import type { BoletoWebhookContract } from './registration/boleto-webhook-contract';
import type { PaymentWebhookRegistration } from './registration/payment-webhook-registration';
import type { PixKeyWebhook } from './registration/pix-key-webhook';
import type { PixAccountWebhook } from './registration/pix-account-webhook';
import { RegistrationProvider } from './core/registration-provider';
import { ReceiverDashboard } from './receiver-dashboard';
import { receiverManifest, receiverRegistrations } from './bank-webhook-receiver-parts';

export type { BankWebhookReceiverProps } from './bank-webhook-receiver-props';

/**
 * Everything needed to receive the bank's webhooks, composed of the library's parts: the
 * receiving endpoint (BankWebhookEndpoint: API, tokens, receiver, queue), the SettlementProcessor
 * on its queue, the registrations with the bank, and the ReconciliationSweep. Each part is public
 * and usable alone; this facade checks every prop once and wires them together.
 */
export class BankWebhookReceiver extends Construct {
  /** The receiving endpoint: API, token secrets, receiver function, queue and dead-letter queue. */
  public readonly endpoint: BankWebhookEndpoint;
  /** The settlement processor on the endpoint's queue. */
  public readonly processor: SettlementProcessor;
  /** The reconciliation sweep (none when `reconciliation.enabled` is false). */
  public readonly reconciliation?: ReconciliationSweep;
  /** The REST API the bank calls. */
  public readonly api: apigateway.RestApi;
  /** Base URL of the API: the custom domain (with base path) when set, else the stage URL. Ends with `/`. */
  public readonly url: string;
  /** URL to register as the payment callback (`urlCallback`). */
  public readonly paymentsUrl: string;
  /** URL to register in the boleto webhook contract (`url`). */
  public readonly boletoUrl: string;
  /** The URL to register for each Pix key (`webhookUrl`; the provider appends `/pix`), when `pix` is set. */
  public readonly pixUrl?: string;
  /** The queue holding every authenticated notification, as received. */
  public readonly queue: sqs.Queue;
  /** Where notifications go after `maxReceiveCount` failed receives. */
  public readonly deadLetterQueue: sqs.Queue;
  /** Secret holding the payment callback token (`authorizationCallback`). */
  public readonly paymentCallbackToken: secretsmanager.ISecret;
  /** Secret holding the boleto contract's token. */
  public readonly boletoToken: secretsmanager.ISecret;
  /** Name of the header the boleto token travels in. */
  public readonly boletoTokenHeader: string;
  /** The function that verifies stored notifications with the bank and publishes verified events. */
  public readonly processorFunction: lambda.Function;
  /** One record per boleto and per payment: its last published state and sequence number (TTL, point-in-time recovery). */
  public readonly idempotencyTable: dynamodb.Table;
  /** The bus verified events are published to. */
  public readonly eventBus: events.IEventBus;
  /** The raw journal's bucket: every authenticated notification as received (none when `journal.enabled` is false). */
  public readonly journalBucket?: s3.Bucket;
  /** The account this receiver acts for: every event it publishes carries it, and its rules match it. */
  public readonly account: BankAccount;
  /** `source` of the published events. */
  public readonly eventSource: string;
  /** The payment callback registration, when `paymentRegistration` is set. */
  public readonly paymentRegistration?: PaymentWebhookRegistration;
  /** The boleto webhook contracts of `boletoContracts`. */
  public readonly boletoContracts: BoletoWebhookContract[];
  /** Each Pix key's webhook (`pix.keys`), when the receiver acts against its bank. */
  public readonly pixKeyWebhooks: PixKeyWebhook[];
  /** The account's Pix Automático webhooks (`pix.recurring`), when the receiver acts against its bank. */
  public readonly pixAccountWebhooks: PixAccountWebhook[];
  /** The `receiver` dimension of every metric its parts emit (`receiverName`). */
  public readonly receiverName: string;
  /** What this stack is to the bank (`stage`). */
  public readonly stage: BankStage;
  /** The topic its alarms notify (`alarmTopic`); the dead-letter queue alarms of `onVerifiedEvent` too. */
  public readonly alarmTopic?: sns.ITopic;
  /** Its dashboard (none when `dashboard` is false). */
  public readonly dashboard?: ReceiverDashboard;

  constructor(scope: Construct, id: string, props: BankWebhookReceiverProps) {
    super(scope, id);
    validateReceiverProps(this, props);
    // One name for the metrics of every part: the facade's.
    const receiverName = props.receiverName ?? defaultReceiverName(this);
    this.receiverName = receiverName;
    this.stage = stageOf(props);
    if (props.stage === undefined && this.stage === BankStage.NON_PRODUCTION && !props.bank?.simulated) {
      Annotations.of(this).addWarningV2(
        'cdk-bank-webhooks:nonProduction',
        'This receiver registers nothing with the bank, so it is NON_PRODUCTION: no reconciliation sweep, no registration watch, no Track Payment rule (the bank has only production). If this stack is production and you register its URLs yourself, set stage: BankStage.PRODUCTION to keep the sweep. Set stage explicitly to silence this warning.',
      );
    }
    if (
      !actsAgainstBank(props) &&
      ((props.reconciliation && props.reconciliation.enabled !== false) || props.pix?.sweep)
    ) {
      Annotations.of(this).addWarningV2(
        'cdk-bank-webhooks:reconciliationIgnored',
        "reconciliation or pix.sweep is set, but a NON_PRODUCTION receiver against the real bank runs no reconciliation sweep (it would read the bank's real settlements and Pix): these options do nothing. Remove reconciliation, set stage: BankStage.PRODUCTION if this stack is production, or give it a BankSandbox (bank: sandbox.connection).",
      );
    }
    // The endpoint is this construct's default child: its resources keep the logical IDs they had
    // when they were made here directly (CDK leaves "Default" out of logical IDs).
    this.endpoint = new BankWebhookEndpoint(
      this,
      'Default',
      checkedBy({
        ...props,
        receiverName,
        silenceAlarms: silenceOf(props, this.stage),
        queueVisibilityTimeout:
          props.queueVisibilityTimeout ??
          Duration.seconds(minimumVisibilitySeconds(props.processorTimeout, props.maxBatchingWindow)),
      }),
    );
    const { endpoint } = this;
    if (props.pix) {
      endpoint.addPixApi(props.pix.domain);
      if (props.pix.recurring) endpoint.addPixRecurringRoutes();
      if (!props.pix.domain) {
        Annotations.of(this).addWarningV2(
          'cdk-bank-webhooks:pixWithoutMutualTls',
          "The Pix route checks no client certificate (no pix.domain, so no mutual TLS): anyone who finds its URL can post callbacks. Each Pix is still confirmed with the provider under this receiver's credentials, so a forged callback costs queries, never an event (cdk-bank-webhooks/docs/pix.md).",
        );
      }
    }
    // The processor and the sweep share the endpoint's security groups.
    const network = { vpc: props.vpc, vpcSubnets: props.vpcSubnets, securityGroups: endpoint.securityGroups };
    this.processor = new SettlementProcessor(
      this,
      'Processor',
      checkedBy({
        ...props,
        ...network,
        receiverName,
        stage: this.stage,
        queue: endpoint.queue,
        deadLetterQueue: endpoint.deadLetterQueue,
      }),
    );
    const { processor } = this;
    // The stack's provider, as the endpoint made it (the same settings, or it refuses).
    const provider = {
      logEncryptionKey: props.logEncryptionKey,
      vpc: props.vpc,
      vpcSubnets: props.vpcSubnets,
      securityGroups: props.securityGroups,
    };
    // Only the look queue may dead-letter into the look dead-letter queue, as for the notification queue's.
    allowOnlySourceQueue(this, 'LookDeadLetterQueueRedriveAllowPolicy', {
      deadLetterQueue: processor.lookDeadLetterQueue,
      sourceQueue: processor.lookQueue,
      deadLetterQueueKey: props.queueEncryptionKey,
      provider,
    });

    const registrations = receiverRegistrations(this, props, endpoint, provider);
    this.paymentRegistration = registrations.paymentRegistration;
    this.boletoContracts = registrations.boletoContracts;
    this.pixKeyWebhooks = registrations.pixKeyWebhooks;
    this.pixAccountWebhooks = registrations.pixAccountWebhooks;

    // The sweep and the registration watch, after the registrations (its schedule goes before them on destroy).
    if (actsAgainstBank(props) && (props.reconciliation?.enabled ?? true)) {
      this.reconciliation = new ReconciliationSweep(
        this,
        'Reconciliation',
        checkedBy({
          ...props.reconciliation,
          ...network,
          processor,
          paymentRegistration: this.paymentRegistration,
          boletoContracts: this.boletoContracts,
          pixKeyWebhooks: this.pixKeyWebhooks,
          pixAccountWebhooks: this.pixAccountWebhooks,
          logRetention: props.logRetention,
          logEncryptionKey: props.logEncryptionKey,
          tracing: props.tracing,
          openTelemetry: props.openTelemetry,
          tracingEnabled: props.tracingEnabled,
          alarmTopic: props.alarmTopic,
        }),
      );
    }

    if (props.dashboard ?? true)
      this.dashboard = new ReceiverDashboard(this, 'Dashboard', {
        endpoint,
        processor,
        reconciliation: this.reconciliation,
      });
    receiverManifest(this, props, {
      receiverName,
      stage: this.stage,
      endpoint,
      processor,
      reconciliation: this.reconciliation,
      ...registrations,
    });

    this.api = endpoint.api;
    this.url = endpoint.url;
    this.paymentsUrl = endpoint.paymentsUrl;
    this.boletoUrl = endpoint.boletoUrl;
    this.pixUrl = endpoint.pixUrl;
    // Every part's log groups and the table go with the receiver when asked (the journal is the processor's to empty).
    if (props.removalPolicy === RemovalPolicy.DESTROY) {
      RemovalPolicies.of(this).apply(RemovalPolicy.DESTROY, {
        applyToResourceTypes: ['AWS::Logs::LogGroup', 'AWS::DynamoDB::Table'],
      });
      // The stack's registration provider, which this receiver's registrations use, logs there too.
      const provider = Stack.of(this).node.tryFindChild(RegistrationProvider.ID);
      if (provider)
        RemovalPolicies.of(provider).apply(RemovalPolicy.DESTROY, { applyToResourceTypes: ['AWS::Logs::LogGroup'] });
    }
    this.queue = endpoint.queue;
    this.deadLetterQueue = endpoint.deadLetterQueue;
    this.paymentCallbackToken = endpoint.paymentCallbackToken;
    this.boletoToken = endpoint.boletoToken;
    this.boletoTokenHeader = endpoint.boletoTokenHeader;
    this.processorFunction = processor.processorFunction;
    this.idempotencyTable = processor.idempotencyTable;
    this.eventBus = processor.eventBus;
    this.journalBucket = processor.journalBucket;
    this.account = processor.account;
    this.eventSource = processor.eventSource;
    this.alarmTopic = props.alarmTopic;
  }

  /**
   * A rule on the event bus matching this receiver's verified events of one detail type, so a
   * consumer is wired in one line:
   * `receiver.onVerifiedEvent('Settled', BankEventDetailType.BOLETO_SETTLED, { consumer: fn })` (the function reads a
   * queue of its own; an event it fails ends in an alarmed dead-letter queue) or `{ target }` for any other target.
   * It matches this receiver's account (`detail.account`), so receivers sharing a bus never
   * receive each other's events; `options.eventPattern` narrows it further (for example on
   * `detail.state.statusClass`). Its target gets a dead-letter queue and a retry policy unless it
   * brings its own. Pass `options.scope` to create the rule in a consumer's stack.
   */
  public onVerifiedEvent(
    id: string,
    detailType: BankEventDetailType,
    options: VerifiedEventRuleOptions = {},
  ): VerifiedEventRule {
    const rule = new VerifiedEventRule(
      options.scope ?? this,
      id,
      {
        eventBus: this.eventBus,
        eventSource: this.eventSource,
        account: this.account,
        alarmTopic: this.alarmTopic,
        receiverName: this.receiverName,
      },
      detailType,
      options,
    );
    // A rule made in a consumer's stack keeps its alarm there (the dashboard would tie the stacks both ways).
    if (rule.deadLetterQueueAlarm && Stack.of(rule.deadLetterQueueAlarm) === Stack.of(this))
      this.dashboard?.addAlarm(rule.deadLetterQueueAlarm);
    return rule;
  }

  /**
   * A metric the receiver function emits for one route (`ReceiverMetric`, such as
   * `UnauthorizedRequests`; `route` is `payments`, `boleto` or, with Pix, `pix`): a 5-minute sum unless `props` says otherwise.
   */
  public metricReceiver(metricName: string, route: string, props: cloudwatch.MetricOptions = {}): cloudwatch.Metric {
    return this.endpoint.metricReceiver(metricName, route, props);
  }

  /** Allows `grantee` to read both token secrets (to register them with the bank, for example). */
  public grantReadTokens(grantee: iam.IGrantable): iam.Grant {
    return this.endpoint.grantReadTokens(grantee);
  }
}
