import { checkReceiverName, type ReceiverNameProps } from '../core/metrics';
import { isIPv4, isIPv6 } from 'node:net';
import { type Duration, type Size, Token } from 'aws-cdk-lib';
import type * as acm from 'aws-cdk-lib/aws-certificatemanager';
import type * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { MAX_BODY_BYTES_LIMIT } from '../../contracts/receiver';
import { checkFunctionNetwork, type FunctionNetworkProps } from '../core/function-network';
import { checkSecretNamed, checkTokenHeader, isWholeNumberIn, type PropsValidation } from '../core/props-validation';
import { checkTracing } from '../core/tracing';
import type { ObservabilityProps } from '../core/observability-props';

/** Properties of `BankWebhookEndpoint`. */
export interface BankWebhookEndpointProps extends FunctionNetworkProps, ReceiverNameProps, ObservabilityProps {
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
   * to put in front of the stage (and the Pix API's, when there is one: keep its rules open to the
   * Pix provider too). Keep its rate rules above the bank's peak: a request WAF blocks
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
   * Name of the API Gateway stage.
   * @default 'prod'
   */
  readonly stageName?: string;

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
   * Must be greater than the processor's maxVerificationAttempts.
   * @default 5
   */
  readonly maxReceiveCount?: number;

  /**
   * Visibility timeout of the queue: how long a failed notification waits before it is retried.
   * At least 6 times the processor's timeout plus its maxBatchingWindow (the AWS rule for SQS
   * event sources); at most 12 hours.
   * @default - 6 × the processor's timeout + maxBatchingWindow (180 seconds for a SettlementProcessor's defaults)
   */
  readonly queueVisibilityTimeout?: Duration;

  /**
   * Silence as an alarm: how long each route may go without a stored notification before its
   * alarm goes off (the bank stopped sending: an outage, a registration it deactivated).
   * @default - both routes, 96 hours each (BankWebhookReceiver: only in PRODUCTION, on the routes it registers)
   */
  readonly silenceAlarms?: RouteSilenceOptions;

  /**
   * Roles of the operators who move dead-lettered messages back (a redrive sends them to the
   * queue) and reverify (it sends look requests): the only principals besides the library's own
   * functions and rules that may send to the notification and look queues, each of which denies
   * `sqs:SendMessage` to everyone else in the account (cdk-bank-webhooks/docs/security.md). Not a
   * consumer's queue (`onVerifiedEvent`): its bodies are read as verified events, so a rule names
   * its own.
   * @default - none: nobody else can send to the queues, and a redrive is refused
   */
  readonly operatorRoles?: iam.IRole[];
}

/**
 * How long each route may be silent. Whole hours up to 168 (CloudWatch evaluates at most
 * 7 days); `Duration.hours(0)` turns a route's alarm off. The default of 96 hours spans a weekend
 * and a holiday beside it, so a company settling on business days is not woken by them
 * (cdk-bank-webhooks/docs/operations.md, "SilenceAlarm").
 */
export interface RouteSilenceOptions {
  /**
   * The boleto route's window.
   * @default Duration.hours(96)
   */
  readonly boletoWindow?: Duration;

  /**
   * The payments route's window.
   * @default Duration.hours(96)
   */
  readonly paymentsWindow?: Duration;
}

/** Longest silence window: CloudWatch evaluates an alarm of 1-hour periods over 7 days at most. */
export const MAX_SILENCE_HOURS = 168;
/** Default silence window of a route, in hours. */
export const DEFAULT_SILENCE_HOURS = 96;

/** Checks RouteSilenceOptions under `prefix`. */
export function checkSilenceOptions(
  v: PropsValidation,
  options: RouteSilenceOptions | undefined,
  prefix = 'silenceAlarms.',
): void {
  for (const [name, window] of [
    ['boletoWindow', options?.boletoWindow],
    ['paymentsWindow', options?.paymentsWindow],
  ] as const) {
    if (window)
      v.checkNumber(
        window.toHours({ integral: false }),
        `${prefix}${name}`,
        isWholeNumberIn(0, MAX_SILENCE_HOURS),
        `must be whole hours from 0 (no alarm) to ${MAX_SILENCE_HOURS} (CloudWatch evaluates at most 7 days)`,
      );
  }
}

function isCidr(value: string): boolean {
  const [address, bits, extra] = value.split('/');
  if (extra !== undefined || bits === undefined || !/^\d{1,3}$/.test(bits)) return false;
  if (isIPv4(address)) return Number(bits) <= 32;
  return isIPv6(address) && Number(bits) <= 128;
}

/** Checks BankWebhookEndpointProps. */
export function checkBankWebhookEndpoint(v: PropsValidation, props: BankWebhookEndpointProps): void {
  checkReceiverName(v, props.receiverName, 'receiverName');
  checkTracing(v, props);
  v.check(
    !(props.domainName && !props.certificate),
    'certificate',
    "is required when domainName is set (an ACM certificate for that name, in the stack's region)",
  );
  v.check(!(props.certificate && !props.domainName), 'domainName', 'is required when certificate is set');
  v.check(
    !(props.basePath !== undefined && !props.domainName),
    'basePath',
    'only applies to a custom domain: set domainName and certificate, or remove basePath',
  );
  if (props.domainName && !Token.isUnresolved(props.domainName)) {
    v.check(
      /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i.test(props.domainName),
      'domainName',
      `must be a DNS name such as webhooks.example.com, got "${props.domainName}"`,
    );
  }
  if (props.basePath !== undefined && !Token.isUnresolved(props.basePath)) {
    v.check(
      /^[a-zA-Z0-9$_.+!*'()-]+(\/[a-zA-Z0-9$_.+!*'()-]+)*$/.test(props.basePath),
      'basePath',
      `must be path segments without leading or trailing slashes, such as "bank", got "${props.basePath}"`,
    );
  }
  if (props.allowedSourceCidrs) {
    v.check(
      props.allowedSourceCidrs.length > 0,
      'allowedSourceCidrs',
      'must hold at least one CIDR block when set (an empty list would deny the bank too); omit it to allow any source',
    );
    const bad = props.allowedSourceCidrs.filter((cidr) => !Token.isUnresolved(cidr) && !isCidr(cidr));
    v.check(
      bad.length === 0,
      'allowedSourceCidrs',
      `must be CIDR blocks such as 203.0.113.0/24 or 2001:db8::/32; not valid: ${bad.map((cidr) => `"${cidr}"`).join(', ')}`,
    );
  }
  v.checkNumber(
    props.throttlingRateLimit,
    'throttlingRateLimit',
    (n) => Number.isFinite(n) && n > 0,
    'must be a number of requests per second greater than 0',
  );
  v.checkNumber(
    props.throttlingBurstLimit,
    'throttlingBurstLimit',
    isWholeNumberIn(1, 5000),
    'must be a whole number from 1 to 5000',
  );
  v.checkNumber(
    props.receiverMemorySize,
    'receiverMemorySize',
    isWholeNumberIn(128, 10240),
    'must be a whole number of MiB from 128 to 10240',
  );
  v.checkNumber(
    props.maxReceiveCount,
    'maxReceiveCount',
    isWholeNumberIn(1, 1000),
    'must be a whole number from 1 to 1000',
  );
  if (props.maxBodySize) {
    v.checkNumber(
      props.maxBodySize.toBytes(),
      'maxBodySize',
      isWholeNumberIn(1, MAX_BODY_BYTES_LIMIT),
      `must be from 1 byte to ${MAX_BODY_BYTES_LIMIT / 1024} KiB (bytes)`,
    );
  }
  if (props.tokenCacheTtl) {
    v.checkNumber(
      props.tokenCacheTtl.toSeconds(),
      'tokenCacheTtl',
      isWholeNumberIn(1, 3600),
      'must be from 1 second to 1 hour (seconds)',
    );
  }
  if (props.queueVisibilityTimeout) {
    v.checkNumber(
      props.queueVisibilityTimeout.toSeconds(),
      'queueVisibilityTimeout',
      isWholeNumberIn(0, 43_200),
      'must be at most 12 hours (seconds)',
    );
  }
  checkTokenHeader(v, props.boletoTokenHeader, 'boletoTokenHeader');
  checkSecretNamed(v, props.paymentCallbackToken, 'paymentCallbackToken');
  checkSecretNamed(v, props.boletoToken, 'boletoToken');
  checkSilenceOptions(v, props.silenceAlarms);
  checkFunctionNetwork(v, props);
  v.check(
    !(props.tokenEncryptionKey && props.paymentCallbackToken && props.boletoToken),
    'tokenEncryptionKey',
    'only encrypts the token secrets the construct generates, and both paymentCallbackToken and boletoToken are given: encrypt those secrets with the key yourself, or remove tokenEncryptionKey',
  );
  if (props.webAclArn !== undefined && !Token.isUnresolved(props.webAclArn)) {
    v.check(
      /^arn:aws[a-z-]*:wafv2:[a-z0-9-]+:\d{12}:regional\/webacl\/[\w-]+\/[\w-]+$/.test(props.webAclArn),
      'webAclArn',
      `must be the ARN of a regional WAF web ACL (arn:aws:wafv2:<region>:<account>:regional/webacl/<name>/<id>; API Gateway takes no CloudFront-scope ACL), got "${props.webAclArn}"`,
    );
  }
  if (props.stageName !== undefined && !Token.isUnresolved(props.stageName)) {
    v.check(
      /^[a-zA-Z0-9_]{1,128}$/.test(props.stageName),
      'stageName',
      `must be 1 to 128 letters, digits or underscores, got "${props.stageName}"`,
    );
  }
}
