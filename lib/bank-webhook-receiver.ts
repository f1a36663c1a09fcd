import { isIPv4, isIPv6 } from 'node:net';
import { Annotations, Duration, RemovalPolicy, type Size, Stack, Token, Validations } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import type * as acm from 'aws-cdk-lib/aws-certificatemanager';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import { addToDeadLetterQueueResourcePolicy } from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { MAX_BODY_BYTES_LIMIT, METRICS_NAMESPACE, RECEIVER_SERVICE_NAME, ReceiverDefaults, ReceiverEnv, ReceiverMetric, ROUTES, SQS_MAX_MESSAGE_BYTES } from '../contracts/receiver';
import type { BankEventDetailType } from '../contracts/events';
import { minIdempotencyTtlSeconds } from './processor/settlement-processor';
import { ProcessorDefaults } from '../contracts/processor';
import type { BankAccount } from '../contracts/bank-connection';
import { type BankConnectionProps, validateBankConnection } from './bank-connection';
import { notifyOn, thresholdAlarm } from './core/alarms';
import { checkFunctionNetwork, functionNetwork, type FunctionNetworkProps } from './core/function-network';
import { acknowledgeInherent } from './core/compliance';
import { bundledFunction } from './core/bundled-function';
import { allowOnlySourceQueue } from './registration/redrive-allow-policy';
import { allowLogsToUse } from './core/log-encryption';
import { BoletoWebhookContract, type BoletoWebhookContractOptions, checkContractOptions } from './registration/boleto-webhook-contract';
import { PaymentWebhookRegistration, type PaymentWebhookRegistrationOptions } from './registration/payment-webhook-registration';
import { checkTokenHeader, isWholeNumberIn, PropsValidation } from './core/props-validation';
import { checkRegistrationOptions } from './registration/registration-provider';
import { checkReconciliation, ReconciliationSweep, type ReconciliationOptions, resolveReconciliation } from './reconciliation/reconciliation-sweep';
import { type BoletoMovementMappingProps, type BoletoStatusMappingProps, type PaymentStatusMappingProps, SettlementProcessor } from './processor/settlement-processor';

/** Properties of {@link BankWebhookReceiver}. */
export interface BankWebhookReceiverProps extends FunctionNetworkProps {
  /**
   * How to reach the bank: every notification is verified with its query API before anything
   * is published.
   */
  readonly bank: BankConnectionProps;

  /**
   * Custom domain name for the API, such as `webhooks.example.com`. Needs `certificate`.
   * The default execute-api domain already meets the bank's rules (HTTPS, a publicly trusted
   * certificate, TLS 1.2), so a custom domain is a choice, not a requirement.
   * @default - the API's execute-api domain
   */
  readonly domainName?: string;

  /**
   * ACM certificate for `domainName`, in the stack's region (the API is regional).
   * @default - none; required when `domainName` is set
   */
  readonly certificate?: acm.ICertificate;

  /**
   * Base path under the custom domain, such as `bank`, giving `https://<domain>/bank/payments`.
   * @default - the API is mapped at the root of the custom domain
   */
  readonly basePath?: string;

  /**
   * Source addresses (CIDR blocks) allowed to call the API. When set, a resource policy denies
   * every other source. Use the bank's published egress ranges.
   * @default - any source may call; the token check still applies
   */
  readonly allowedSourceCidrs?: string[];

  /**
   * ARN of a regional AWS WAF web ACL (`arn:aws:wafv2:<region>:<account>:regional/webacl/...`)
   * to put in front of the stage. Keep its rate rules above the bank's peak: a request WAF blocks
   * is a notification the bank marks NÃO ENTREGUE (the reconciliation finds settlements again).
   * @default - no web ACL
   */
  readonly webAclArn?: string;

  /**
   * Steady-state requests per second the stage accepts. A throttled call is answered 429 and
   * the bank marks it "NÃO ENTREGUE", so keep this above your peak settlement batch.
   * @default 500
   */
  readonly throttlingRateLimit?: number;

  /**
   * Burst of requests the stage accepts above the rate limit.
   * @default 1000
   */
  readonly throttlingBurstLimit?: number;

  /**
   * Enables X-Ray tracing on the stage and the receiver function.
   * @default false
   */
  readonly tracingEnabled?: boolean;

  /**
   * Name of the API Gateway stage.
   * @default 'prod'
   */
  readonly stageName?: string;

  /**
   * Retention of the access log and of the receiver's log group.
   * @default logs.RetentionDays.ONE_YEAR
   */
  readonly logRetention?: logs.RetentionDays;

  /**
   * KMS key for every log group the library creates (the receiver's, the access log, the
   * processor's, the sweep's and the registration provider's). A key made in the same stack is
   * given the statement CloudWatch Logs needs; an imported key's policy must already allow
   * `logs.<region>.amazonaws.com`.
   * @default - CloudWatch Logs' own encryption
   */
  readonly logEncryptionKey?: kms.IKey;

  /**
   * Creates the role API Gateway needs to write the stage's execution logs, and sets it for the
   * account and region (`AWS::ApiGateway::Account`). The setting is one per account and region,
   * whichever stack sets it: set this in one stack only, and only when no other stack (or person)
   * manages it. At most one is created per stack, however many receivers it holds. Without it,
   * the account and region must already have the role, or the stage's deployment fails; synth
   * warns.
   * @default false
   */
  readonly createApiGatewayCloudWatchRole?: boolean;

  /**
   * Secret whose plain-text value is the payment callback token: the `authorizationCallback`
   * registered with the bank, which it sends as the whole `Authorization` header to `/payments`.
   * @default - a secret with a random 64-character alphanumeric value is generated
   */
  readonly paymentCallbackToken?: secretsmanager.ISecret;

  /**
   * Secret whose plain-text value is the boleto contract's `token`, which the bank sends in the
   * header named by `boletoTokenHeader` to `/boleto`.
   * @default - a secret with a random 64-character alphanumeric value is generated
   */
  readonly boletoToken?: secretsmanager.ISecret;

  /**
   * KMS key that encrypts the token secrets the construct generates (not the ones you pass).
   * The functions that read them are allowed to decrypt with it.
   * @default - the account's AWS-managed Secrets Manager key
   */
  readonly tokenEncryptionKey?: kms.IKey;

  /**
   * Name of the header carrying the boleto token: the boleto contract's `header` field.
   * Compared case-insensitively.
   * @default 'Authorization'
   */
  readonly boletoTokenHeader?: string;

  /**
   * Largest body stored. A larger authenticated request gets 413 and is not stored.
   * At most 512 KiB.
   * @default Size.kibibytes(256)
   */
  readonly maxBodySize?: Size;

  /**
   * How long the receiver caches token values in memory. After a mismatch it also reloads them
   * (at most once a second), so a rotated token is picked up at once.
   * @default Duration.minutes(1)
   */
  readonly tokenCacheTtl?: Duration;

  /**
   * Memory of the receiver function, in MiB.
   * @default 512
   */
  readonly receiverMemorySize?: number;

  /**
   * KMS key that encrypts the queue and the dead-letter queue.
   * @default - SQS-managed server-side encryption (SSE-SQS)
   */
  readonly queueEncryptionKey?: kms.IKey;

  /**
   * How many times a stored notification is received before it moves to the dead-letter queue.
   * Must be greater than maxVerificationAttempts.
   * @default 5
   */
  readonly maxReceiveCount?: number;

  /**
   * Event bus the verified events are published to.
   * @default - a bus is created for them (exposed as `eventBus`), which keeps their rules, archive and permissions apart from the account's default bus
   */
  readonly eventBus?: events.IEventBus;

  /**
   * `source` of the published events.
   * @default 'cdk-bank-webhooks'
   */
  readonly eventSource?: string;

  /**
   * Timeout of the processor function. Bank calls and their retries stay inside it.
   * @default Duration.seconds(30)
   */
  readonly processorTimeout?: Duration;

  /**
   * Memory of the processor function, in MiB.
   * @default 512
   */
  readonly processorMemorySize?: number;

  /**
   * Notifications per processor invocation (1 to 10000; above 10 needs maxBatchingWindow).
   * @default 10
   */
  readonly batchSize?: number;

  /**
   * How long the event source gathers notifications before invoking the processor.
   * @default - no batching window
   */
  readonly maxBatchingWindow?: Duration;

  /**
   * Most concurrent processor invocations the queue drives (2 to 1000): a cap on the load put on
   * the bank's rate-limited query API.
   * @default - no limit besides the account's
   */
  readonly maxConcurrency?: number;

  /**
   * Visibility timeout of the queue: how long a failed notification waits before it is retried.
   * At least 6 times processorTimeout plus maxBatchingWindow (the AWS rule for SQS event sources).
   * @default - 6 × processorTimeout + maxBatchingWindow
   */
  readonly queueVisibilityTimeout?: Duration;

  /**
   * Receives of a notification during which a claim the bank does not show yet is looked at
   * again (query lag). Whatever the bank shows is published at once either way; after the last
   * attempt a claim the bank never showed is recorded as a Notification Not Confirmed event.
   * Must be less than maxReceiveCount.
   * @default - 3, or maxReceiveCount − 1 when that is smaller
   */
  readonly maxVerificationAttempts?: number;

  /**
   * How long a boleto's or payment's record (its last published state) is kept after its last
   * change: a change is published once while its record lives. At least the queues' 14-day
   * retention plus the reconciliation look-back (3 days): 17 days.
   * @default Duration.days(30)
   */
  readonly idempotencyTtl?: Duration;

  /**
   * Retention of the archive of the event bus the construct creates, from which a consumer that
   * was down can replay what it missed. `Duration.days(0)` keeps events forever. Not used with
   * `eventBus` (archive your own bus).
   * @default Duration.days(30)
   */
  readonly eventArchiveRetention?: Duration;

  /**
   * Which boleto query `situacao` values count as settled, written off, rejected or open.
   * @default - see BoletoStatusMappingProps
   */
  readonly boletoStatuses?: BoletoStatusMappingProps;

  /**
   * Which boleto event `movimento` values are settlements, reversals, write-offs or rejections.
   * @default - see BoletoMovementMappingProps
   */
  readonly boletoMovements?: BoletoMovementMappingProps;

  /**
   * Which payment `status` values count as settled, pending, rejected, cancelled or reversed.
   * @default - see PaymentStatusMappingProps
   */
  readonly paymentStatuses?: PaymentStatusMappingProps;

  /**
   * SNS topic notified when an alarm goes off and when it clears.
   * @default - alarms without actions
   */
  readonly alarmTopic?: sns.ITopic;

  /**
   * Age of the oldest queued notification that raises the oldest-message alarm.
   * @default Duration.minutes(30)
   */
  readonly oldestMessageAgeAlarmThreshold?: Duration;

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
   * @default - on: every 15 minutes, today and the last 3 days, pending payments for 7 days
   */
  readonly reconciliation?: ReconciliationOptions;
}

/** Timeout of the receiver function: well under the bank's 10 s deadline. */
const RECEIVER_TIMEOUT = Duration.seconds(6);
const RETENTION = Duration.days(14);
const DEFAULT_PROCESSOR_TIMEOUT = Duration.seconds(30);
const DEFAULT_MAX_RECEIVE_COUNT = ProcessorDefaults.maxReceiveCount;

/** 3, or fewer when maxReceiveCount leaves less room (the last verification must come before the DLQ). */
function defaultVerificationAttempts(maxReceiveCount: number): number {
  if (Token.isUnresolved(maxReceiveCount)) return ProcessorDefaults.maxVerificationAttempts;
  return Math.max(1, Math.min(ProcessorDefaults.maxVerificationAttempts, maxReceiveCount - 1));
}

/** The AWS rule for SQS event sources: visibility timeout at least 6 × function timeout + batching window. */
function minimumVisibilitySeconds(props: BankWebhookReceiverProps): number {
  return 6 * (props.processorTimeout ?? DEFAULT_PROCESSOR_TIMEOUT).toSeconds() + (props.maxBatchingWindow?.toSeconds() ?? 0);
}

function isCidr(value: string): boolean {
  const [address, bits, extra] = value.split('/');
  if (extra !== undefined || bits === undefined || !/^\d{1,3}$/.test(bits)) return false;
  if (isIPv4(address)) return Number(bits) <= 32;
  return isIPv6(address) && Number(bits) <= 128;
}

/** cooperativa/posto/beneficiário of a contract, or undefined when one is a deploy-time value. */
function contractKey(props: BankWebhookReceiverProps, contract: BoletoWebhookContractOptions): string | undefined {
  const account = props.bank?.account;
  const parts = [contract.cooperativa ?? account?.cooperativa, contract.posto ?? account?.posto, contract.codBeneficiario ?? account?.codigoBeneficiario];
  return parts.every((part) => typeof part === 'string' && !Token.isUnresolved(part)) ? parts.join('-') : undefined;
}

function validate(props: BankWebhookReceiverProps): void {
  const v = new PropsValidation('BankWebhookReceiver');
  validateBankConnection(v, props.bank, 'bank');
  validateProcessorProps(v, props);
  v.check(!(props.domainName && !props.certificate), 'certificate', 'is required when domainName is set (an ACM certificate for that name, in the stack\'s region)');
  v.check(!(props.certificate && !props.domainName), 'domainName', 'is required when certificate is set');
  v.check(!(props.basePath !== undefined && !props.domainName), 'basePath', 'only applies to a custom domain: set domainName and certificate, or remove basePath');
  if (props.domainName && !Token.isUnresolved(props.domainName)) {
    v.check(/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i.test(props.domainName), 'domainName', `must be a DNS name such as webhooks.example.com, got "${props.domainName}"`);
  }
  if (props.basePath !== undefined && !Token.isUnresolved(props.basePath)) {
    v.check(/^[a-zA-Z0-9$_.+!*'()-]+(\/[a-zA-Z0-9$_.+!*'()-]+)*$/.test(props.basePath), 'basePath', `must be path segments without leading or trailing slashes, such as "bank", got "${props.basePath}"`);
  }
  if (props.allowedSourceCidrs) {
    v.check(props.allowedSourceCidrs.length > 0, 'allowedSourceCidrs', 'must hold at least one CIDR block when set (an empty list would deny the bank too); omit it to allow any source');
    const bad = props.allowedSourceCidrs.filter((cidr) => !Token.isUnresolved(cidr) && !isCidr(cidr));
    v.check(bad.length === 0, 'allowedSourceCidrs', `must be CIDR blocks such as 203.0.113.0/24 or 2001:db8::/32; not valid: ${bad.map((cidr) => `"${cidr}"`).join(', ')}`);
  }
  v.checkNumber(props.throttlingRateLimit, 'throttlingRateLimit', (n) => Number.isFinite(n) && n > 0, 'must be a number of requests per second greater than 0');
  v.checkNumber(props.throttlingBurstLimit, 'throttlingBurstLimit', isWholeNumberIn(1, 5000), 'must be a whole number from 1 to 5000');
  v.checkNumber(props.receiverMemorySize, 'receiverMemorySize', isWholeNumberIn(128, 10240), 'must be a whole number of MiB from 128 to 10240');
  v.checkNumber(props.maxReceiveCount, 'maxReceiveCount', isWholeNumberIn(1, 1000), 'must be a whole number from 1 to 1000');
  if (props.maxBodySize) {
    v.checkNumber(props.maxBodySize.toBytes(), 'maxBodySize', isWholeNumberIn(1, MAX_BODY_BYTES_LIMIT), `must be from 1 byte to ${MAX_BODY_BYTES_LIMIT / 1024} KiB (bytes)`);
  }
  if (props.tokenCacheTtl) {
    v.checkNumber(props.tokenCacheTtl.toSeconds(), 'tokenCacheTtl', isWholeNumberIn(1, 3600), 'must be from 1 second to 1 hour (seconds)');
  }
  checkTokenHeader(v, props.boletoTokenHeader, 'boletoTokenHeader');
  if (props.paymentRegistration) checkRegistrationOptions(v, props.paymentRegistration, 'paymentRegistration.');
  checkReconciliation(v, props.reconciliation, 'reconciliation');
  checkFunctionNetwork(v, props);
  v.check(!(props.tokenEncryptionKey && props.paymentCallbackToken && props.boletoToken), 'tokenEncryptionKey', 'only encrypts the token secrets the construct generates, and both paymentCallbackToken and boletoToken are given: encrypt those secrets with the key yourself, or remove tokenEncryptionKey');
  if (props.webAclArn !== undefined && !Token.isUnresolved(props.webAclArn)) {
    v.check(/^arn:aws[a-z-]*:wafv2:[a-z0-9-]+:\d{12}:regional\/webacl\/[\w-]+\/[\w-]+$/.test(props.webAclArn), 'webAclArn', `must be the ARN of a regional WAF web ACL (arn:aws:wafv2:<region>:<account>:regional/webacl/<name>/<id>; API Gateway takes no CloudFront-scope ACL), got "${props.webAclArn}"`);
  }
  const identities = new Map<string, number>();
  (props.boletoContracts ?? []).forEach((contract, i) => {
    checkContractOptions(v, contract, `boletoContracts[${i}].`, props.bank?.account);
    const key = contractKey(props, contract);
    if (key === undefined) return;
    const first = identities.get(key);
    v.check(first === undefined, `boletoContracts[${i}]`, `is for the same cooperativa/posto/beneficiário as boletoContracts[${first}] (${key}); the bank keeps one contract for each`);
    if (first === undefined) identities.set(key, i);
  });
  if (props.stageName !== undefined && !Token.isUnresolved(props.stageName)) {
    v.check(/^[a-zA-Z0-9_]{1,128}$/.test(props.stageName), 'stageName', `must be 1 to 128 letters, digits or underscores, got "${props.stageName}"`);
  }
  v.throwIfInvalid();
}

function validateProcessorProps(v: PropsValidation, props: BankWebhookReceiverProps): void {
  if (props.processorTimeout) {
    v.checkNumber(props.processorTimeout.toSeconds(), 'processorTimeout', isWholeNumberIn(10, 900), 'must be from 10 seconds to 15 minutes (seconds)');
  }
  v.checkNumber(props.processorMemorySize, 'processorMemorySize', isWholeNumberIn(128, 10240), 'must be a whole number of MiB from 128 to 10240');
  v.checkNumber(props.batchSize, 'batchSize', isWholeNumberIn(1, 10000), 'must be a whole number from 1 to 10000');
  if (props.maxBatchingWindow) {
    v.checkNumber(props.maxBatchingWindow.toSeconds(), 'maxBatchingWindow', isWholeNumberIn(0, 300), 'must be from 0 to 300 seconds');
  }
  if (props.batchSize !== undefined && !Token.isUnresolved(props.batchSize) && props.batchSize > 10) {
    v.check(!!props.maxBatchingWindow && props.maxBatchingWindow.toSeconds() > 0, 'maxBatchingWindow', `must be set (above 0) when batchSize is above 10 (got batchSize ${props.batchSize}); SQS event sources require it`);
  }
  v.checkNumber(props.maxConcurrency, 'maxConcurrency', isWholeNumberIn(2, 1000), 'must be a whole number from 2 to 1000');
  v.checkNumber(props.maxVerificationAttempts, 'maxVerificationAttempts', isWholeNumberIn(1, 100), 'must be a whole number from 1 to 100');
  const attempts = props.maxVerificationAttempts;
  const receives = props.maxReceiveCount ?? DEFAULT_MAX_RECEIVE_COUNT;
  if (attempts !== undefined && !Token.isUnresolved(attempts) && !Token.isUnresolved(receives) && receives >= 1) {
    v.check(attempts < receives, 'maxVerificationAttempts', `must be less than maxReceiveCount (${attempts} is not less than ${receives}), or a notification the bank does not confirm goes to the DLQ before its last verification`);
  }
  if (props.queueVisibilityTimeout) {
    const minimum = minimumVisibilitySeconds(props);
    const given = props.queueVisibilityTimeout.toSeconds();
    v.check(given >= minimum && given <= 43200, 'queueVisibilityTimeout', `must be at least 6 × processorTimeout + maxBatchingWindow = ${minimum} seconds (and at most 12 hours), got ${given} seconds; raise it or lower processorTimeout`);
  }
  if (props.idempotencyTtl) {
    const r = resolveReconciliation(props.reconciliation);
    const lookback = Token.isUnresolved(r.lookbackDays) ? 30 : r.lookbackDays;
    const maxAgeDays = Math.ceil(r.paymentMaxAge.toDays({ integral: false }));
    const minimum = minIdempotencyTtlSeconds(lookback, maxAgeDays);
    v.checkNumber(props.idempotencyTtl.toSeconds(), 'idempotencyTtl', isWholeNumberIn(minimum, 366 * 24 * 3600), `must be from ${minimum / 86_400} days (the queues' 14-day retention plus the reconciliation's ${lookback}-day look-back, and more than its ${maxAgeDays}-day payment age: a record gone sooner lets a redriven or re-read change be published twice) to 366 days (seconds)`);
  }
  if (props.eventArchiveRetention) {
    v.checkNumber(props.eventArchiveRetention.toDays(), 'eventArchiveRetention', isWholeNumberIn(0, 3650), 'must be a whole number of days from 0 (forever) to 3650');
    v.check(!props.eventBus, 'eventArchiveRetention', 'applies only to the bus the construct creates: archive the eventBus you pass yourself, or remove eventArchiveRetention');
  }
  if (props.oldestMessageAgeAlarmThreshold) {
    v.checkNumber(props.oldestMessageAgeAlarmThreshold.toSeconds(), 'oldestMessageAgeAlarmThreshold', isWholeNumberIn(60, RETENTION.toSeconds()), 'must be from 1 minute to 14 days (seconds)');
  }
  if (props.eventSource !== undefined && !Token.isUnresolved(props.eventSource)) {
    v.check(/^[A-Za-z0-9._\-/]{1,256}$/.test(props.eventSource) && !props.eventSource.startsWith('aws.'), 'eventSource', `must be 1 to 256 letters, digits, dots, hyphens, underscores or slashes, not starting with "aws.", got "${props.eventSource}"`);
  }
}

/**
 * The receiving side of the bank's webhooks: a regional REST API with `POST /payments` and
 * `POST /boleto`, a receiver function that checks the bank's token in constant time and stores
 * the raw request in an encrypted SQS queue (with a dead-letter queue) before answering 200,
 * and the two token secrets.
 */
export class BankWebhookReceiver extends Construct {
  /** The REST API the bank calls. */
  public readonly api: apigateway.RestApi;
  /** Base URL of the API: the custom domain (with base path) when set, else the stage URL. Ends with `/`. */
  public readonly url: string;
  /** URL to register as the payment callback (`urlCallback`). */
  public readonly paymentsUrl: string;
  /** URL to register in the boleto webhook contract (`url`). */
  public readonly boletoUrl: string;
  /** The custom domain, when `domainName` is set. */
  public readonly domain?: apigateway.DomainName;
  /** The function that checks tokens and stores notifications. */
  public readonly receiverFunction: lambda.Function;
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
  /** API Gateway access log group. */
  public readonly accessLogGroup: logs.LogGroup;
  /** The function that verifies stored notifications with the bank and publishes verified events. */
  public readonly processorFunction: lambda.Function;
  /** One record per boleto and per payment: its last published state and sequence number (TTL, point-in-time recovery). */
  public readonly idempotencyTable: dynamodb.Table;
  /** The bus verified events are published to. */
  public readonly eventBus: events.IEventBus;
  /** The archive of the bus the construct created (none when `eventBus` was passed). */
  public readonly eventArchive?: events.Archive;
  /** The account this receiver acts for: every event it publishes carries it, and its rules match it. */
  public readonly account: BankAccount;
  /** `source` of the published events. */
  public readonly eventSource: string;
  /** Alarm: notifications in the dead-letter queue. */
  public readonly deadLetterQueueAlarm: cloudwatch.Alarm;
  /** Alarm: the oldest queued notification is older than the threshold. */
  public readonly oldestMessageAlarm: cloudwatch.Alarm;
  /** Alarm: processor invocations failed. */
  public readonly processorErrorsAlarm: cloudwatch.Alarm;
  /**
   * Alarm: most requests of 5 minutes (at least 5) were refused with 401. After a bad token
   * rotation or a wrong secret every notification is refused and lost (NÃO ENTREGUE).
   */
  public readonly unauthorizedRequestsAlarm: cloudwatch.Alarm;
  /** The payment callback registration, when `paymentRegistration` is set. */
  public readonly paymentRegistration?: PaymentWebhookRegistration;
  /** The boleto webhook contracts of `boletoContracts`. */
  public readonly boletoContracts: BoletoWebhookContract[];
  /** The reconciliation sweep's function (none when `reconciliation.enabled` is false). */
  public readonly reconciliationFunction?: lambda.Function;
  /** Alarm: the sweep published changes the bank never notified (webhooks are being lost). */
  public readonly recoveredNotificationsAlarm?: cloudwatch.Alarm;
  /** Alarm: two sweeps in a row failed. */
  public readonly reconciliationErrorsAlarm?: cloudwatch.Alarm;
  /** Alarm: a registration at the bank is not this stack's (with the sweep on and registrations set). */
  public readonly registrationDriftAlarm?: cloudwatch.Alarm;

  constructor(scope: Construct, id: string, props: BankWebhookReceiverProps) {
    super(scope, id);
    validate(props);

    const retention = props.logRetention ?? logs.RetentionDays.ONE_YEAR;
    this.account = props.bank.account;
    this.boletoTokenHeader = props.boletoTokenHeader ?? ReceiverDefaults.boletoTokenHeader;

    // One security group (outbound HTTPS only) for the receiver, the processor and the sweep, unless given.
    const network = functionNetwork(this, 'FunctionsSecurityGroup', props);

    this.paymentCallbackToken = props.paymentCallbackToken ?? this.generatedToken('PaymentCallbackToken', 'Payment callback token (authorizationCallback) the bank sends to /payments', props.tokenEncryptionKey);
    this.boletoToken = props.boletoToken ?? this.generatedToken('BoletoToken', 'Boleto webhook contract token the bank sends to /boleto', props.tokenEncryptionKey);

    // Queue and dead-letter queue.
    const queueProps: sqs.QueueProps = {
      encryption: props.queueEncryptionKey ? sqs.QueueEncryption.KMS : sqs.QueueEncryption.SQS_MANAGED,
      encryptionMasterKey: props.queueEncryptionKey,
      enforceSSL: true,
      retentionPeriod: RETENTION,
      maxMessageSizeBytes: SQS_MAX_MESSAGE_BYTES,
    };
    this.deadLetterQueue = new sqs.Queue(this, 'DeadLetterQueue', queueProps);
    this.queue = new sqs.Queue(this, 'Queue', {
      ...queueProps,
      visibilityTimeout: props.queueVisibilityTimeout ?? Duration.seconds(minimumVisibilitySeconds(props)),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: props.maxReceiveCount ?? DEFAULT_MAX_RECEIVE_COUNT },
    });
    acknowledgeInherent(this.deadLetterQueue, 'SQSRedrivePolicy', 'This queue is the dead-letter queue: what lands here is quarantined or undeliverable, alarmed, and redriven to the queue by an operator, never dead-lettered further.');
    // Only our queue may dead-letter into the DLQ (what lands there is redriven to it).
    const providerSettings = { logEncryptionKey: props.logEncryptionKey, vpc: props.vpc, vpcSubnets: props.vpcSubnets, securityGroups: props.securityGroups };
    allowOnlySourceQueue(this, 'DeadLetterQueueRedriveAllowPolicy', {
      deadLetterQueue: this.deadLetterQueue, sourceQueue: this.queue, deadLetterQueueKey: props.queueEncryptionKey, provider: providerSettings,
    });

    // Receiver function, with a role that holds only what it needs (no managed policies).
    allowLogsToUse(this, props.logEncryptionKey);
    const receiverLogGroup = new logs.LogGroup(this, 'ReceiverLogGroup', { retention, removalPolicy: RemovalPolicy.RETAIN, encryptionKey: props.logEncryptionKey });
    const role = new iam.Role(this, 'ReceiverRole', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: 'Bank webhook receiver: write its logs, read the two token secrets, send to the notification queue',
    });
    receiverLogGroup.grantWrite(role);
    const maxBodyBytes = props.maxBodySize?.toBytes() ?? ReceiverDefaults.maxBodyBytes;
    const tokenCacheTtlMs = props.tokenCacheTtl?.toMilliseconds() ?? ReceiverDefaults.tokenCacheTtlMs;
    this.receiverFunction = bundledFunction(this, 'ReceiverFunction', {
      bundle: 'receiver',
      description: 'Checks the bank webhook token and stores the raw notification in SQS before answering 200',
      timeout: RECEIVER_TIMEOUT,
      memorySize: props.receiverMemorySize ?? 512,
      role,
      logGroup: receiverLogGroup,
      tracing: props.tracingEnabled ?? false,
      network,
      whyNoDeadLetterQueue: 'API Gateway invokes the receiver synchronously, and a dead-letter queue only catches asynchronous invocations: a failure is answered 5xx to the bank, and the reconciliation sweep finds the change the bank then never resends.',
      whyNoReservedConcurrency: 'The stage\'s throttling (throttlingRateLimit, throttlingBurstLimit) bounds the receiver; a reserved concurrency below the bank\'s peak would refuse notifications the bank never resends.',
      environment: {
        [ReceiverEnv.QUEUE_URL]: this.queue.queueUrl,
        [ReceiverEnv.PAYMENTS_TOKEN_SECRET_ARN]: this.paymentCallbackToken.secretArn,
        [ReceiverEnv.BOLETO_TOKEN_SECRET_ARN]: this.boletoToken.secretArn,
        [ReceiverEnv.BOLETO_TOKEN_HEADER]: this.boletoTokenHeader,
        [ReceiverEnv.MAX_BODY_BYTES]: String(maxBodyBytes),
        [ReceiverEnv.TOKEN_CACHE_TTL_MS]: String(tokenCacheTtlMs),
        [ReceiverEnv.ENQUEUE_BUDGET_MS]: String(ReceiverDefaults.enqueueBudgetMs),
      },
    });
    // Exactly what SendMessage needs (grantSendMessages would add kms:ReEncrypt* and wildcards).
    role.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['sqs:SendMessage'], resources: [this.queue.queueArn] }));
    props.queueEncryptionKey?.grant(role, 'kms:GenerateDataKey', 'kms:Decrypt');
    this.grantReadTokens(this.receiverFunction);
    if (props.tracingEnabled) {
      Validations.of(role).acknowledge({
        id: 'AwsSolutions::AwsSolutions-IAM5[Resource::*]',
        reason: 'X-Ray tracing (tracingEnabled) needs xray:PutTraceSegments and xray:PutTelemetryRecords, which support no resource-level permissions.',
      });
    }

    // The API.
    this.accessLogGroup = new logs.LogGroup(this, 'AccessLogGroup', { retention, removalPolicy: RemovalPolicy.RETAIN, encryptionKey: props.logEncryptionKey });
    // One account setting per stack: a second receiver asking for it shares the first's.
    const existingAccount = Stack.of(this).node.findAll().find((c): c is apigateway.CfnAccount => c instanceof apigateway.CfnAccount);
    const cloudWatchRole = (props.createApiGatewayCloudWatchRole ?? false) && !existingAccount;
    this.api = new apigateway.RestApi(this, 'Api', {
      description: 'Receives the bank\'s webhook notifications (payments and boleto collection)',
      endpointConfiguration: { types: [apigateway.EndpointType.REGIONAL] },
      cloudWatchRole,
      // The account-level role is shared by every REST API in the region: keep it on destroy.
      cloudWatchRoleRemovalPolicy: cloudWatchRole ? RemovalPolicy.RETAIN : undefined,
      policy: props.allowedSourceCidrs ? sourceAllowlistPolicy(props.allowedSourceCidrs) : undefined,
      // Every body reaches the receiver base64-encoded, byte for byte: as text, API Gateway would
      // replace bytes that are not UTF-8 before the receiver could store them.
      binaryMediaTypes: ['*/*'],
      deployOptions: {
        stageName: props.stageName ?? 'prod',
        accessLogDestination: new apigateway.LogGroupLogDestination(this.accessLogGroup),
        accessLogFormat: accessLogFormat(),
        loggingLevel: apigateway.MethodLoggingLevel.ERROR,
        // Data trace would write request headers, and so the bank's token, to the execution log.
        dataTraceEnabled: false,
        metricsEnabled: true,
        tracingEnabled: props.tracingEnabled ?? false,
        throttlingRateLimit: props.throttlingRateLimit ?? 500,
        throttlingBurstLimit: props.throttlingBurstLimit ?? 1000,
      },
    });
    const integration = new apigateway.LambdaIntegration(this.receiverFunction, { proxy: true });
    for (const route of ROUTES) {
      this.api.root.addResource(route).addMethod('POST', integration);
    }
    acknowledgeApiFindings(this.api);
    if (props.webAclArn) {
      new wafv2.CfnWebACLAssociation(this, 'WebAclAssociation', { resourceArn: this.api.deploymentStage.stageArn, webAclArn: props.webAclArn });
    }
    if (existingAccount) {
      this.api.deploymentStage.node.addDependency(existingAccount);
    } else if (!cloudWatchRole) {
      Annotations.of(this).addWarningV2('cdk-bank-webhooks:apiGatewayCloudWatchRole',
        'The API stage logs errors (execution logging), which needs API Gateway\'s CloudWatch role set for the account and region. This stack does not set it (createApiGatewayCloudWatchRole is not true): if the account and region have none, the deploy fails at the stage. Set createApiGatewayCloudWatchRole: true in one stack of the account and region (the setting is shared by every REST API there), or set the role once by hand.');
    }
    if (!props.alarmTopic) {
      Annotations.of(this).addWarningV2('cdk-bank-webhooks:noAlarmTopic',
        'No alarmTopic: the alarms (dead-letter queue, oldest message, processor errors, refused tokens, lost notifications recovered, registration drift) notify nobody. Pass an SNS topic someone reads as alarmTopic.');
    }
    const cloudWatchRoleConstruct = this.api.node.tryFindChild('CloudWatchRole');
    if (cloudWatchRoleConstruct) {
      Validations.of(cloudWatchRoleConstruct).acknowledge({
        id: 'AwsSolutions::AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
        reason: 'AWS\'s managed policy for API Gateway\'s account-level logging role; it only allows writing to CloudWatch Logs, which API Gateway needs for ERROR-level execution logs.',
      });
    }

    if (props.domainName && props.certificate) {
      this.domain = this.api.addDomainName('CustomDomain', {
        domainName: props.domainName,
        certificate: props.certificate,
        endpointType: apigateway.EndpointType.REGIONAL,
        securityPolicy: apigateway.SecurityPolicy.TLS_1_2,
        basePath: props.basePath,
      });
      this.url = `https://${props.domainName}/${props.basePath ? `${props.basePath}/` : ''}`;
    } else {
      this.url = this.api.url;
    }
    this.paymentsUrl = `${this.url}payments`;
    this.boletoUrl = `${this.url}boleto`;

    // The settlement processor.
    this.eventSource = props.eventSource ?? ProcessorDefaults.eventSource;
    const processor = new SettlementProcessor(this, 'Processor', {
      bank: props.bank,
      queue: this.queue,
      deadLetterQueue: this.deadLetterQueue,
      queueEncryptionKey: props.queueEncryptionKey,
      eventBus: props.eventBus,
      eventSource: this.eventSource,
      timeout: props.processorTimeout ?? DEFAULT_PROCESSOR_TIMEOUT,
      memorySize: props.processorMemorySize ?? 512,
      batchSize: props.batchSize ?? 10,
      maxBatchingWindow: props.maxBatchingWindow,
      maxConcurrency: props.maxConcurrency,
      maxVerificationAttempts: props.maxVerificationAttempts ?? defaultVerificationAttempts(props.maxReceiveCount ?? DEFAULT_MAX_RECEIVE_COUNT),
      maxReceiveCount: props.maxReceiveCount ?? DEFAULT_MAX_RECEIVE_COUNT,
      idempotencyTtl: props.idempotencyTtl ?? Duration.seconds(ProcessorDefaults.idempotencyTtlSeconds),
      eventArchiveRetention: props.eventArchiveRetention ?? Duration.days(30),
      boletoStatuses: props.boletoStatuses,
      boletoMovements: props.boletoMovements,
      paymentStatuses: props.paymentStatuses,
      logRetention: retention,
      logEncryptionKey: props.logEncryptionKey,
      network,
      tracingEnabled: props.tracingEnabled ?? false,
      alarmTopic: props.alarmTopic,
      oldestMessageAgeAlarmThreshold: props.oldestMessageAgeAlarmThreshold ?? Duration.minutes(30),
    });
    this.processorFunction = processor.processorFunction;
    this.idempotencyTable = processor.idempotencyTable;
    this.eventBus = processor.eventBus;
    this.eventArchive = processor.eventArchive;
    this.deadLetterQueueAlarm = processor.deadLetterQueueAlarm;
    this.oldestMessageAlarm = processor.oldestMessageAlarm;
    this.processorErrorsAlarm = processor.processorErrorsAlarm;
    this.unauthorizedRequestsAlarm = this.unauthorizedAlarm(props.alarmTopic);


    // Registrations with the bank, once the API serves the URLs (and removed before it goes).
    if (props.paymentRegistration) {
      this.paymentRegistration = new PaymentWebhookRegistration(this, 'PaymentRegistration', {
        ...providerSettings,
        ...props.paymentRegistration,
        bank: props.bank,
        url: this.paymentsUrl,
        token: this.paymentCallbackToken,
      });
      this.paymentRegistration.node.addDependency(this.api);
    }
    this.boletoContracts = (props.boletoContracts ?? []).map((options, i) => {
      // Named by what the bank keys the contract by, so reordering the list replaces nothing.
      const key = contractKey(props, options);
      const contract = new BoletoWebhookContract(this, key ? `BoletoContract-${key}` : `BoletoContract${i}`, {
        ...providerSettings,
        ...options,
        bank: props.bank,
        url: this.boletoUrl,
        token: this.boletoToken,
        header: this.boletoTokenHeader,
      });
      contract.node.addDependency(this.api);
      return contract;
    });

    // The sweep and the registration watch, after the registrations (its schedule goes before them on destroy).
    const reconciliation = resolveReconciliation(props.reconciliation);
    if (reconciliation.enabled) {
      const sweep = new ReconciliationSweep(this, 'Reconciliation', {
        options: reconciliation,
        bank: props.bank,
        table: this.idempotencyTable,
        queue: this.queue,
        deadLetterQueue: this.deadLetterQueue,
        queueEncryptionKey: props.queueEncryptionKey,
        eventBus: this.eventBus,
        eventSource: this.eventSource,
        account: this.account,
        logRetention: retention,
        logEncryptionKey: props.logEncryptionKey,
        network,
        tracingEnabled: props.tracingEnabled ?? false,
        alarmTopic: props.alarmTopic,
        registrations: [...(this.paymentRegistration ? [this.paymentRegistration] : []), ...this.boletoContracts],
        tokenSecrets: [...(this.paymentRegistration ? [this.paymentCallbackToken] : []), ...(this.boletoContracts.length ? [this.boletoToken] : [])],
      });
      this.reconciliationFunction = sweep.sweepFunction;
      this.recoveredNotificationsAlarm = sweep.recoveredAlarm;
      this.reconciliationErrorsAlarm = sweep.sweepErrorsAlarm;
      this.registrationDriftAlarm = sweep.registrationDriftAlarm;
    }
  }

  /**
   * A rule on the event bus matching this receiver's verified events of one detail type, so a
   * consumer is wired in one line:
   * `receiver.onVerifiedEvent('Settled', BankEventDetailType.BOLETO_SETTLED, { target: new targets.LambdaFunction(fn) })`.
   * It matches this receiver's account (`detail.account`), so receivers sharing a bus never
   * receive each other's events; `options.eventPattern` narrows it further (for example on
   * `detail.state.statusClass`). Its target gets a dead-letter queue and a retry policy unless it
   * brings its own. Pass `options.scope` to create the rule in a consumer's stack.
   */
  public onVerifiedEvent(id: string, detailType: BankEventDetailType, options: VerifiedEventRuleOptions = {}): events.Rule {
    const scope = options.scope ?? this;
    const detail = options.allAccounts ? options.eventPattern?.detail : { ...options.eventPattern?.detail, account: accountPattern(this.account) };
    const rule = new events.Rule(scope, id, {
      eventBus: this.eventBus,
      description: options.description ?? `Verified bank events: ${detailType}`,
      ruleName: options.ruleName,
      crossStackScope: options.crossStackScope,
      eventPattern: { ...options.eventPattern, source: [this.eventSource], detailType: [detailType], ...(detail ? { detail } : {}) },
    });
    if (options.target) {
      const deadLetterQueue = options.deadLetterQueue ?? targetDeadLetterQueue(scope, `${id}DeadLetterQueue`);
      rule.addTarget(new WithDeliveryGuarantees(options.target, deadLetterQueue, options.retryAttempts ?? 185, options.maxEventAge ?? Duration.hours(24)));
    }
    return rule;
  }

  /**
   * A metric the receiver function emits for one route (`ReceiverMetric`, such as
   * `UnauthorizedRequests`; `route` is `payments` or `boleto`): a 5-minute sum unless `props` says otherwise.
   */
  public metricReceiver(metricName: string, route: string, props: cloudwatch.MetricOptions = {}): cloudwatch.Metric {
    return new cloudwatch.Metric({
      namespace: METRICS_NAMESPACE, metricName, dimensionsMap: { service: RECEIVER_SERVICE_NAME, Route: route }, statistic: cloudwatch.Stats.SUM, period: Duration.minutes(5), ...props,
    });
  }

  private unauthorizedAlarm(alarmTopic?: sns.ITopic): cloudwatch.Alarm {
    const metrics: Record<string, cloudwatch.IMetric> = {};
    ROUTES.forEach((route, i) => {
      metrics[`u${i}`] = this.metricReceiver(ReceiverMetric.UNAUTHORIZED, route);
      metrics[`s${i}`] = this.metricReceiver(ReceiverMetric.STORED, route);
    });
    const sum = (prefix: string) => ROUTES.map((_, i) => `FILL(${prefix}${i}, 0)`).join(' + ');
    const alarm = thresholdAlarm(this, 'UnauthorizedRequestsAlarm', {
      description: 'Most requests to the bank webhook endpoint were refused with 401 (wrong or missing token). After a token rotation or a wrong secret, every notification is refused and the bank marks it NÃO ENTREGUE, never to resend: check the token secrets against what is registered at the bank (tokenVersion), and run the reconciliation.',
      metric: new cloudwatch.MathExpression({
        expression: `IF((${sum('u')}) >= 5, (${sum('u')}) / ((${sum('u')}) + (${sum('s')})), 0)`,
        usingMetrics: metrics,
        period: Duration.minutes(5),
        label: 'Share of requests refused with 401 (when at least 5 were)',
      }),
      threshold: 0.5,
    });
    notifyOn(alarmTopic, [alarm]);
    return alarm;
  }

  /** Allows `grantee` to read both token secrets (to register them with the bank, for example). */
  public grantReadTokens(grantee: iam.IGrantable): void {
    this.paymentCallbackToken.grantRead(grantee);
    this.boletoToken.grantRead(grantee);
  }

  private generatedToken(id: string, description: string, tokenEncryptionKey?: kms.IKey): secretsmanager.Secret {
    const secret = new secretsmanager.Secret(this, id, {
      description,
      encryptionKey: tokenEncryptionKey,
      // Alphanumeric only: the token travels in an HTTP header and in the bank's JSON as is.
      generateSecretString: { passwordLength: 64, excludePunctuation: true, includeSpace: false },
    });
    return secret;
  }
}

/** Options of {@link BankWebhookReceiver.onVerifiedEvent}. */
export interface VerifiedEventRuleOptions extends events.OnEventOptions {
  /**
   * Where the rule (and its target's dead-letter queue) is created, such as a construct in a
   * consumer's stack: the consumer's stack then depends on the receiver's, never the reverse.
   * @default - the receiver
   */
  readonly scope?: Construct;
  /**
   * Matches the events of every receiver publishing to the bus with the same source, not just
   * this receiver's account.
   * @default false
   */
  readonly allAccounts?: boolean;
  /**
   * Where events the target could not take after every retry go.
   * @default - an encrypted queue created beside the rule (`<id>DeadLetterQueue`), unless the target brings its own
   */
  readonly deadLetterQueue?: sqs.IQueue;
  /**
   * Retries of a delivery the target refused.
   * @default 185 (EventBridge's maximum), unless the target brings its own retry policy
   */
  readonly retryAttempts?: number;
  /**
   * How long EventBridge keeps retrying a delivery.
   * @default Duration.hours(24), unless the target brings its own retry policy
   */
  readonly maxEventAge?: Duration;
}

/** The event pattern that matches one account's events: boleto events by beneficiary, payment events by account number. */
function accountPattern(account: BankAccount): Record<string, unknown> {
  return { cooperativa: [account.cooperativa], $or: [{ codigoBeneficiario: [account.codigoBeneficiario] }, { conta: [account.conta] }] };
}

function targetDeadLetterQueue(scope: Construct, id: string): sqs.Queue {
  const queue = new sqs.Queue(scope, id, { encryption: sqs.QueueEncryption.SQS_MANAGED, enforceSSL: true, retentionPeriod: RETENTION });
  Validations.of(queue).acknowledge({
    id: 'AwsSolutions::AwsSolutions-SQS3',
    reason: 'This queue is the dead-letter queue of an EventBridge rule target: what lands here is read and redriven by an operator, not consumed again.',
  });
  acknowledgeInherent(queue, 'SQSRedrivePolicy', 'This queue is the dead-letter queue of an EventBridge rule target: it is the end of the line, read and redriven by an operator.');
  return queue;
}

/**
 * A rule target with a dead-letter queue and a retry policy: EventBridge otherwise drops an
 * event after 24 hours of failed deliveries, and a consumer of settlements must not lose one.
 */
class WithDeliveryGuarantees implements events.IRuleTarget {
  constructor(
    private readonly inner: events.IRuleTarget,
    private readonly deadLetterQueue: sqs.IQueue,
    private readonly retryAttempts: number,
    private readonly maxEventAge: Duration,
  ) {}

  public bind(rule: events.IRule, id?: string): events.RuleTargetConfig {
    const config = this.inner.bind(rule, id);
    if (!config.deadLetterConfig) addToDeadLetterQueueResourcePolicy(rule, this.deadLetterQueue);
    return {
      ...config,
      deadLetterConfig: config.deadLetterConfig ?? { arn: this.deadLetterQueue.queueArn },
      retryPolicy: config.retryPolicy ?? { maximumRetryAttempts: this.retryAttempts, maximumEventAgeInSeconds: this.maxEventAge.toSeconds() },
    };
  }
}

function sourceAllowlistPolicy(cidrs: string[]): iam.PolicyDocument {
  const invoke = { principals: [new iam.AnyPrincipal()], actions: ['execute-api:Invoke'], resources: ['execute-api:/*'] };
  return new iam.PolicyDocument({
    statements: [
      new iam.PolicyStatement({ effect: iam.Effect.ALLOW, ...invoke }),
      new iam.PolicyStatement({ effect: iam.Effect.DENY, ...invoke, conditions: { NotIpAddress: { 'aws:SourceIp': cidrs } } }),
    ],
  });
}

/** JSON access log: who called, what they got and how long it took. No headers, so no tokens. */
function accessLogFormat(): apigateway.AccessLogFormat {
  const f = apigateway.AccessLogField;
  return apigateway.AccessLogFormat.custom(JSON.stringify({
    requestId: f.contextRequestId(),
    requestTime: f.contextRequestTime(),
    sourceIp: f.contextIdentitySourceIp(),
    userAgent: f.contextIdentityUserAgent(),
    httpMethod: f.contextHttpMethod(),
    resourcePath: f.contextResourcePath(),
    protocol: f.contextProtocol(),
    status: f.contextStatus(),
    responseLength: f.contextResponseLength(),
    responseLatency: f.contextResponseLatency(),
    integrationLatency: f.contextIntegrationLatency(),
    integrationStatus: f.contextIntegrationStatus(),
    errorMessage: f.contextErrorMessage(),
  }));
}

function acknowledgeApiFindings(api: apigateway.RestApi): void {
  const tokenCheck = 'The bank authenticates with a static shared token (authorizationCallback, or the boleto contract\'s header and token), not IAM or Cognito; the receiver function checks it in constant time on every request.';
  Validations.of(api).acknowledge(
    {
      id: 'AwsSolutions::AwsSolutions-APIG2',
      reason: 'Bodies must reach the receiver even when malformed: the bank does not resend, so an authenticated request is stored and the processor quarantines what it cannot parse.',
    },
    { id: 'AwsSolutions::AwsSolutions-APIG4', reason: tokenCheck },
    { id: 'AwsSolutions::AwsSolutions-COG4', reason: tokenCheck },
  );
  const stage = api.deploymentStage;
  acknowledgeInherent(stage, 'APIGWCacheEnabledAndEncrypted', 'Every request is a notification to store: a cached answer would never reach the receiver, and the bank does not resend. The stage caches nothing, so no response is kept to encrypt.');
  acknowledgeInherent(stage, 'APIGWSSLEnabled', 'A stage client certificate authenticates API Gateway to an HTTP backend; the only backend here is the receiver function, invoked through Lambda\'s API with API Gateway\'s IAM permission, where a client certificate has no use.');
}
