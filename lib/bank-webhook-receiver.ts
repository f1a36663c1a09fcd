import { Annotations, Duration, Stack, Token } from 'aws-cdk-lib';
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
import { type BankConnectionProps, checkRealBank } from './core/bank-connection';
import { checkedBy, PropsValidation } from './core/props-validation';
import { defaultReceiverName } from './core/metrics';
import { BankStage } from './core/bank-stage';
import { VerifiedEventRule, type VerifiedEventRuleOptions } from './core/verified-event-rule';
import { BankWebhookEndpoint } from './endpoint/bank-webhook-endpoint';
import { type BankWebhookEndpointProps, checkBankWebhookEndpoint, type RouteSilenceOptions } from './endpoint/bank-webhook-endpoint-props';
import { minimumVisibilitySeconds } from './core/timing';
import { writeOperatorManifest } from './core/operator-manifest';
import { allowOnlySourceQueue } from './core/redrive-allow-policy';
import { SettlementProcessor } from './processor/settlement-processor';
import { checkSettlementProcessor, type SettlementProcessorOptions } from './processor/settlement-processor-props';
import { checkReconciliationSweep, ReconciliationSweep, type ReconciliationOptions } from './reconciliation/reconciliation-sweep';
import { BoletoWebhookContract, type BoletoWebhookContractOptions, checkContractOptions } from './registration/boleto-webhook-contract';
import { PaymentWebhookRegistration, type PaymentWebhookRegistrationOptions } from './registration/payment-webhook-registration';
import { ReceiverDashboard } from './receiver-dashboard';
import { checkRegistrationOptions } from './registration/registration-resource';

/**
 * Properties of {@link BankWebhookReceiver}: those of the endpoint (BankWebhookEndpointProps) and
 * of the processor (SettlementProcessorOptions), the bank, the registrations and the sweep.
 */
export interface BankWebhookReceiverProps extends BankWebhookEndpointProps, SettlementProcessorOptions {
  /**
   * How to reach the bank: every notification is verified with its query API before anything
   * is published.
   */
  readonly bank: BankConnectionProps;

  /**
   * Registers `paymentsUrl` as the account's payment callback, with `paymentCallbackToken` as
   * `authorizationCallback`, at deploy time, and removes it at destroy (see PaymentWebhookRegistration).
   * @default - not registered: register paymentsUrl with the bank yourself
   */
  readonly paymentRegistration?: PaymentWebhookRegistrationOptions;

  /**
   * Boleto webhook contracts kept at the bank, each with `url` = `boletoUrl`, `token` = the
   * boleto token and `header` = `boletoTokenHeader` (see BoletoWebhookContract). One per
   * cooperativa/posto/beneficiário.
   * @default - none: make the contract with the bank yourself
   */
  readonly boletoContracts?: BoletoWebhookContractOptions[];

  /**
   * The reconciliation sweep: every `interval` it reads the bank's settled boletos of today and
   * the last days, and queries the payments still pending, so a settlement whose notification the
   * bank never delivered is still verified and published (once, with `trigger: reconciliation`).
   * See docs/reconciliation.md.
   * @default - on in PRODUCTION (see `stage`) and against a BankSandbox: every 15 minutes, today and the last 3 days, pending payments for 7 days; off in NON_PRODUCTION against the real bank
   */
  readonly reconciliation?: ReconciliationOptions;

  /**
   * What this stack is to the bank, which has only production. PRODUCTION registers (when given
   * registrations), sweeps and watches; NON_PRODUCTION (staging) does none of these against the
   * bank: it may not take registrations, and has no reconciliation sweep, registration watch or
   * Track Payment rule. Against a BankSandbox (`bank: sandbox.connection`) a NON_PRODUCTION
   * receiver does all of them, against the sandbox. See docs/usage.md, "Staging beside production".
   * @default - NON_PRODUCTION against a BankSandbox; otherwise PRODUCTION when the receiver registers (`paymentRegistration` or `boletoContracts`), NON_PRODUCTION (with a synth warning) when it does not
   */
  readonly stage?: BankStage;

  /**
   * One CloudWatch dashboard for this receiver (ReceiverDashboard): flow, quarantines,
   * recoveries, the bank's 429s, queue ages, the sweep and the watch, every alarm's state.
   * @default true
   */
  readonly dashboard?: boolean;
}

/** The stage a receiver's props ask for, the default filled. */
function stageOf(props: BankWebhookReceiverProps): BankStage {
  if (props.bank?.simulated) return props.stage ?? BankStage.NON_PRODUCTION;
  return props.stage ?? (props.paymentRegistration || props.boletoContracts?.length ? BankStage.PRODUCTION : BankStage.NON_PRODUCTION);
}

/**
 * Whether the receiver registers, sweeps and watches against its bank: production against the
 * real one, or any stage against a simulator deployed beside it (BankSandbox).
 */
function actsAgainstBank(props: BankWebhookReceiverProps): boolean {
  return stageOf(props) === BankStage.PRODUCTION || props.bank?.simulated === true;
}

/**
 * The silence windows a receiver's endpoint gets: none in NON_PRODUCTION; in PRODUCTION, the
 * routes it registers (both when it registers neither: its URLs are registered by hand). A window
 * given is kept.
 */
function silenceOf(props: BankWebhookReceiverProps, stage: BankStage): RouteSilenceOptions {
  const off = Duration.hours(0);
  const given = props.silenceAlarms ?? {};
  const registers = !!props.paymentRegistration || !!props.boletoContracts?.length;
  const on = (route: boolean) => (stage === BankStage.PRODUCTION && (!registers || route) ? undefined : off);
  return {
    boletoWindow: given.boletoWindow ?? on(!!props.boletoContracts?.length),
    paymentsWindow: given.paymentsWindow ?? on(!!props.paymentRegistration),
  };
}

/** cooperativa/posto/beneficiário of a contract, or undefined when one is a deploy-time value. */
function contractKey(props: BankWebhookReceiverProps, contract: BoletoWebhookContractOptions): string | undefined {
  const account = props.bank?.account;
  const parts = [contract.cooperativa ?? account?.cooperativa, contract.posto ?? account?.posto, contract.codBeneficiario ?? account?.codigoBeneficiario];
  return parts.every((part) => typeof part === 'string' && !Token.isUnresolved(part)) ? parts.join('-') : undefined;
}

/** Checks every prop of every part, and how the parts fit together, in one error naming the receiver's path. */
function validate(receiver: Construct, props: BankWebhookReceiverProps): void {
  const v = new PropsValidation('BankWebhookReceiver', receiver.node.path);
  checkBankWebhookEndpoint(v, props);
  const { vpc: _vpc, vpcSubnets: _subnets, securityGroups: _groups, ...processorProps } = props;
  checkSettlementProcessor(v, processorProps);
  if (props.queueVisibilityTimeout) {
    const minimum = minimumVisibilitySeconds(props.processorTimeout, props.maxBatchingWindow);
    const given = props.queueVisibilityTimeout.toSeconds();
    v.check(given >= minimum, 'queueVisibilityTimeout', `must be at least 6 × processorTimeout + maxBatchingWindow = ${minimum} seconds (and at most 12 hours), got ${given} seconds; raise it or lower processorTimeout`);
  }
  checkReconciliationSweep(v, props.reconciliation ?? {}, 'reconciliation.', props.idempotencyTtl, props.eventSource);
  if (props.stage !== undefined) v.check(Object.values(BankStage).includes(props.stage), 'stage', `must be BankStage.PRODUCTION or BankStage.NON_PRODUCTION, got "${props.stage}"`);
  if (props.bank?.simulated) {
    v.check(stageOf(props) !== BankStage.PRODUCTION, 'bank.simulated', 'is true (a BankSandbox\'s connection) on a PRODUCTION receiver: production verifies against the real bank. Use the sandbox from a NON_PRODUCTION stack, or give this receiver the real bank\'s settings');
  } else if (props.bank && stageOf(props) === BankStage.PRODUCTION) {
    checkRealBank(v, receiver, props.bank, 'bank');
  }
  if (!actsAgainstBank(props)) {
    const why = 'a NON_PRODUCTION stack does nothing against the bank, which has only production (its settlements would reach this stack\'s consumers, and its registrations replace production\'s); against a BankSandbox (bank: sandbox.connection) it may';
    v.check(!props.paymentRegistration, 'paymentRegistration', `must be left out: ${why}. Set stage: BankStage.PRODUCTION if this stack is production`);
    v.check(!props.boletoContracts?.length, 'boletoContracts', `must be left out: ${why}. Set stage: BankStage.PRODUCTION if this stack is production`);
    v.check(props.reconciliation?.enabled !== true, 'reconciliation.enabled', `must not be true: ${why}; the sweep would read the bank's real settlements. Set stage: BankStage.PRODUCTION if this stack is production`);
    v.check(!props.reconciliation?.trackPaymentSources, 'reconciliation.trackPaymentSources', `must be left out: ${why}; Track Payment looks ask the bank. Set stage: BankStage.PRODUCTION if this stack is production`);
  }
  if (props.paymentRegistration) checkRegistrationOptions(v, props.paymentRegistration, 'paymentRegistration.');
  const identities = new Map<string, number>();
  (props.boletoContracts ?? []).forEach((contract, i) => {
    checkContractOptions(v, contract, `boletoContracts[${i}].`, props.bank?.account);
    const key = contractKey(props, contract);
    if (key === undefined) return;
    const first = identities.get(key);
    v.check(first === undefined, `boletoContracts[${i}]`, `is for the same cooperativa/posto/beneficiário as boletoContracts[${first}] (${key}); the bank keeps one contract for each`);
    if (first === undefined) identities.set(key, i);
  });
  v.throwIfInvalid();
}

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
    validate(this, props);
    // One name for the metrics of every part: the facade's.
    const receiverName = props.receiverName ?? defaultReceiverName(this);
    this.receiverName = receiverName;
    this.stage = stageOf(props);
    if (props.stage === undefined && this.stage === BankStage.NON_PRODUCTION && !props.bank?.simulated) {
      Annotations.of(this).addWarningV2('cdk-bank-webhooks:nonProduction',
        'This receiver registers nothing with the bank, so it is NON_PRODUCTION: no reconciliation sweep, no registration watch, no Track Payment rule (the bank has only production). If this stack is production and you register its URLs yourself, set stage: BankStage.PRODUCTION to keep the sweep. Set stage explicitly to silence this warning.');
    }
    if (!actsAgainstBank(props) && props.reconciliation && props.reconciliation.enabled !== false) {
      Annotations.of(this).addWarningV2('cdk-bank-webhooks:reconciliationIgnored',
        'reconciliation is set, but a NON_PRODUCTION receiver against the real bank runs no reconciliation sweep (it would read the bank\'s real settlements): these options do nothing. Remove reconciliation, set stage: BankStage.PRODUCTION if this stack is production, or give it a BankSandbox (bank: sandbox.connection).');
    }
    // The endpoint is this construct's default child: its resources keep the logical IDs they had
    // when they were made here directly (CDK leaves "Default" out of logical IDs).
    this.endpoint = new BankWebhookEndpoint(this, 'Default', checkedBy({
      ...props,
      receiverName,
      silenceAlarms: silenceOf(props, this.stage),
      queueVisibilityTimeout: props.queueVisibilityTimeout ?? Duration.seconds(minimumVisibilitySeconds(props.processorTimeout, props.maxBatchingWindow)),
    }));
    const { endpoint } = this;
    // The processor and the sweep share the endpoint's security groups.
    const network = { vpc: props.vpc, vpcSubnets: props.vpcSubnets, securityGroups: endpoint.securityGroups };
    this.processor = new SettlementProcessor(this, 'Processor', checkedBy({ ...props, ...network, receiverName, queue: endpoint.queue, deadLetterQueue: endpoint.deadLetterQueue }));
    const { processor } = this;
    // The stack's provider, as the endpoint made it (the same settings, or it refuses).
    const provider = { logEncryptionKey: props.logEncryptionKey, vpc: props.vpc, vpcSubnets: props.vpcSubnets, securityGroups: props.securityGroups };
    // Only the look queue may dead-letter into the look dead-letter queue, as for the notification queue's.
    allowOnlySourceQueue(this, 'LookDeadLetterQueueRedriveAllowPolicy', {
      deadLetterQueue: processor.lookDeadLetterQueue, sourceQueue: processor.lookQueue, deadLetterQueueKey: props.queueEncryptionKey, provider,
    });

    // Registrations with the bank, once the API serves the URLs (and removed before it goes).
    if (props.paymentRegistration) {
      this.paymentRegistration = new PaymentWebhookRegistration(this, 'PaymentRegistration', checkedBy({
        ...provider, ...props.paymentRegistration, bank: props.bank, url: endpoint.paymentsUrl, token: endpoint.paymentCallbackToken,
      }));
      this.paymentRegistration.node.addDependency(endpoint.api);
    }
    this.boletoContracts = (props.boletoContracts ?? []).map((options, i) => {
      // Named by what the bank keys the contract by, so reordering the list replaces nothing.
      const key = contractKey(props, options);
      const contract = new BoletoWebhookContract(this, key ? `BoletoContract-${key}` : `BoletoContract${i}`, checkedBy({
        ...provider, ...options, bank: props.bank, url: endpoint.boletoUrl, token: endpoint.boletoToken, header: endpoint.boletoTokenHeader,
      }));
      contract.node.addDependency(endpoint.api);
      return contract;
    });

    // The sweep and the registration watch, after the registrations (its schedule goes before them on destroy).
    if (actsAgainstBank(props) && (props.reconciliation?.enabled ?? true)) {
      this.reconciliation = new ReconciliationSweep(this, 'Reconciliation', checkedBy({
        ...props.reconciliation, ...network, processor,
        paymentRegistration: this.paymentRegistration, boletoContracts: this.boletoContracts,
        logRetention: props.logRetention, logEncryptionKey: props.logEncryptionKey, tracingEnabled: props.tracingEnabled, alarmTopic: props.alarmTopic,
      }));
    }

    if (props.dashboard ?? true) this.dashboard = new ReceiverDashboard(this, 'Dashboard', { endpoint, processor, reconciliation: this.reconciliation });
    // What the operator CLI finds the receiver by (docs/operations.md, "The operator CLI").
    writeOperatorManifest(this, 'OperatorManifest', {
      receiverName, stage: this.stage, codigoBeneficiario: processor.account.codigoBeneficiario,
      queue: endpoint.queue, deadLetterQueue: endpoint.deadLetterQueue, lookQueue: processor.lookQueue, lookDeadLetterQueue: processor.lookDeadLetterQueue,
      tableName: processor.idempotencyTable.tableName, recordsLifetime: processor.idempotencyTtl, eventBus: processor.eventBus, archive: processor.eventArchive, journalBucket: processor.journalBucket,
      receiverFunction: endpoint.receiverFunction, processorFunction: processor.processorFunction, sweepFunction: this.reconciliation?.sweepFunction,
      registrations: this.reconciliation ? [...(this.paymentRegistration ? [this.paymentRegistration._watched] : []), ...this.boletoContracts.map((c) => c._watched)] : [],
    });

    this.api = endpoint.api;
    this.url = endpoint.url;
    this.paymentsUrl = endpoint.paymentsUrl;
    this.boletoUrl = endpoint.boletoUrl;
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
  public onVerifiedEvent(id: string, detailType: BankEventDetailType, options: VerifiedEventRuleOptions = {}): VerifiedEventRule {
    const rule = new VerifiedEventRule(options.scope ?? this, id, { eventBus: this.eventBus, eventSource: this.eventSource, account: this.account, alarmTopic: this.alarmTopic, operatorRoles: this.endpoint.operatorRoles }, detailType, options);
    // A rule made in a consumer's stack keeps its alarm there (the dashboard would tie the stacks both ways).
    if (rule.deadLetterQueueAlarm && Stack.of(rule.deadLetterQueueAlarm) === Stack.of(this)) this.dashboard?.addAlarm(rule.deadLetterQueueAlarm);
    return rule;
  }

  /**
   * A metric the receiver function emits for one route (`ReceiverMetric`, such as
   * `UnauthorizedRequests`; `route` is `payments` or `boleto`): a 5-minute sum unless `props` says otherwise.
   */
  public metricReceiver(metricName: string, route: string, props: cloudwatch.MetricOptions = {}): cloudwatch.Metric {
    return this.endpoint.metricReceiver(metricName, route, props);
  }

  /** Allows `grantee` to read both token secrets (to register them with the bank, for example). */
  public grantReadTokens(grantee: iam.IGrantable): iam.Grant {
    return this.endpoint.grantReadTokens(grantee);
  }
}
