import { isIPv4, isIPv6 } from 'node:net';
import { Annotations, Duration, RemovalPolicy, type Size, Stack, Token, Validations } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import type * as acm from 'aws-cdk-lib/aws-certificatemanager';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { ProcessorDefaults } from '../../contracts/processor';
import {
  MAX_BODY_BYTES_LIMIT, RECEIVER_SERVICE_NAME, RECEIVER_SETTINGS_ENV, ReceiverDefaults, ReceiverMetric, ROUTES, SQS_MAX_MESSAGE_BYTES,
} from '../../contracts/receiver';
import { notifyOn, thresholdAlarm, warnWithoutAlarmTopic } from '../core/alarms';
import { acknowledgeInherent } from '../core/compliance';
import { checkFunctionNetwork, functionNetwork, type FunctionNetworkProps } from '../core/function-network';
import { libraryMetric } from '../core/metrics';
import { checkTokenHeader, isWholeNumberIn, type PropsValidation, validateProps } from '../core/props-validation';
import { minimumVisibilitySeconds } from '../core/timing';
import { allowOnlySourceQueue } from '../core/redrive-allow-policy';
import { receiverSettings } from './receiver-settings';
import { ReceiverFunction } from './receiver-function';

/** Properties of {@link BankWebhookEndpoint}. */
export interface BankWebhookEndpointProps extends FunctionNetworkProps {
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
   * Enables X-Ray tracing on the stage and the receiver function (in a BankWebhookReceiver, on
   * every function).
   * @default false
   */
  readonly tracingEnabled?: boolean;

  /**
   * Name of the API Gateway stage.
   * @default 'prod'
   */
  readonly stageName?: string;

  /**
   * Retention of the access log and of the receiver's log group (in a BankWebhookReceiver, of
   * every log group).
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
   * SNS topic notified when an alarm goes off and when it clears.
   * @default - alarms without actions
   */
  readonly alarmTopic?: sns.ITopic;
}

/** Timeout of the receiver function: well under the bank's 10 s deadline. */
const RECEIVER_TIMEOUT = Duration.seconds(6);
const RETENTION = Duration.seconds(ProcessorDefaults.queueRetentionSeconds);

function isCidr(value: string): boolean {
  const [address, bits, extra] = value.split('/');
  if (extra !== undefined || bits === undefined || !/^\d{1,3}$/.test(bits)) return false;
  if (isIPv4(address)) return Number(bits) <= 32;
  return isIPv6(address) && Number(bits) <= 128;
}

/** Checks BankWebhookEndpointProps. */
export function checkBankWebhookEndpoint(v: PropsValidation, props: BankWebhookEndpointProps): void {
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
  if (props.queueVisibilityTimeout) {
    v.checkNumber(props.queueVisibilityTimeout.toSeconds(), 'queueVisibilityTimeout', isWholeNumberIn(0, 43_200), 'must be at most 12 hours (seconds)');
  }
  checkTokenHeader(v, props.boletoTokenHeader, 'boletoTokenHeader');
  checkFunctionNetwork(v, props);
  v.check(!(props.tokenEncryptionKey && props.paymentCallbackToken && props.boletoToken), 'tokenEncryptionKey', 'only encrypts the token secrets the construct generates, and both paymentCallbackToken and boletoToken are given: encrypt those secrets with the key yourself, or remove tokenEncryptionKey');
  if (props.webAclArn !== undefined && !Token.isUnresolved(props.webAclArn)) {
    v.check(/^arn:aws[a-z-]*:wafv2:[a-z0-9-]+:\d{12}:regional\/webacl\/[\w-]+\/[\w-]+$/.test(props.webAclArn), 'webAclArn', `must be the ARN of a regional WAF web ACL (arn:aws:wafv2:<region>:<account>:regional/webacl/<name>/<id>; API Gateway takes no CloudFront-scope ACL), got "${props.webAclArn}"`);
  }
  if (props.stageName !== undefined && !Token.isUnresolved(props.stageName)) {
    v.check(/^[a-zA-Z0-9_]{1,128}$/.test(props.stageName), 'stageName', `must be 1 to 128 letters, digits or underscores, got "${props.stageName}"`);
  }
}

/**
 * The receiving side of the bank's webhooks: a regional REST API with `POST /payments` and
 * `POST /boleto`, a receiver function that checks the bank's token in constant time and stores
 * the raw request in an encrypted SQS queue (with a dead-letter queue) before answering 200, the
 * two token secrets, the access log, and an alarm on refused tokens. Pair it with a
 * SettlementProcessor on `queue` (BankWebhookReceiver does), or consume the queue yourself.
 */
export class BankWebhookEndpoint extends Construct {
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
  /** The security groups of the functions, when in a VPC (the given ones, or the one made for them). */
  public readonly securityGroups?: ec2.ISecurityGroup[];
  /**
   * Alarm: most requests of 5 minutes (at least 5) were refused with 401. After a bad token
   * rotation or a wrong secret every notification is refused and lost (NÃO ENTREGUE).
   */
  public readonly unauthorizedRequestsAlarm: cloudwatch.Alarm;

  constructor(scope: Construct, id: string, props: BankWebhookEndpointProps = {}) {
    super(scope, id);
    validateProps('BankWebhookEndpoint', props, checkBankWebhookEndpoint);
    const retention = props.logRetention ?? logs.RetentionDays.ONE_YEAR;
    this.boletoTokenHeader = props.boletoTokenHeader ?? ReceiverDefaults.boletoTokenHeader;
    // One security group (outbound HTTPS only) for the functions here, unless given.
    const network = functionNetwork(this, 'FunctionsSecurityGroup', props);
    this.securityGroups = network.securityGroups;

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
      visibilityTimeout: props.queueVisibilityTimeout ?? Duration.seconds(minimumVisibilitySeconds(undefined, undefined)),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: props.maxReceiveCount ?? ProcessorDefaults.maxReceiveCount },
    });
    acknowledgeInherent(this.deadLetterQueue, 'SQSRedrivePolicy', 'This queue is the dead-letter queue: what lands here is quarantined or undeliverable, alarmed, and redriven to the queue by an operator, never dead-lettered further.');
    // Only our queue may dead-letter into the DLQ (what lands there is redriven to it).
    allowOnlySourceQueue(this, 'DeadLetterQueueRedriveAllowPolicy', {
      deadLetterQueue: this.deadLetterQueue,
      sourceQueue: this.queue,
      deadLetterQueueKey: props.queueEncryptionKey,
      provider: { logEncryptionKey: props.logEncryptionKey, vpc: props.vpc, vpcSubnets: props.vpcSubnets, securityGroups: props.securityGroups },
    });

    // Receiver function, with a role that holds only what it needs (no managed policies).
    const receiver = new ReceiverFunction(this, 'ReceiverFunction', {
      description: 'Checks the bank webhook token and stores the raw notification in SQS before answering 200',
      timeout: RECEIVER_TIMEOUT,
      memorySize: props.receiverMemorySize ?? 512,
      logGroupId: 'ReceiverLogGroup',
      roleId: 'ReceiverRole',
      roleDescription: 'Bank webhook receiver: write its logs, read the two token secrets, send to the notification queue',
      logRetention: retention,
      logEncryptionKey: props.logEncryptionKey,
      tracing: props.tracingEnabled ?? false,
      network,
      environment: {
        [RECEIVER_SETTINGS_ENV]: Stack.of(this).toJsonString(receiverSettings(
          { queueUrl: this.queue.queueUrl, paymentsTokenSecretArn: this.paymentCallbackToken.secretArn, boletoTokenSecretArn: this.boletoToken.secretArn },
          { boletoTokenHeader: this.boletoTokenHeader, maxBodyBytes: props.maxBodySize?.toBytes(), tokenCacheTtlMs: props.tokenCacheTtl?.toMilliseconds() },
        )),
      },
    });
    this.receiverFunction = receiver;
    // Exactly what SendMessage needs (grantSendMessages would add kms:ReEncrypt* and wildcards).
    receiver.allow(new iam.PolicyStatement({ actions: ['sqs:SendMessage'], resources: [this.queue.queueArn] }));
    props.queueEncryptionKey?.grant(this.receiverFunction, 'kms:GenerateDataKey', 'kms:Decrypt');
    this.grantReadTokens(this.receiverFunction);

    // The API.
    this.accessLogGroup = new logs.LogGroup(this, 'AccessLogGroup', { retention, removalPolicy: RemovalPolicy.RETAIN, encryptionKey: props.logEncryptionKey });
    this.api = this.restApi(props);
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
    this.paymentsUrl = `${this.url}${ROUTES[0]}`;
    this.boletoUrl = `${this.url}${ROUTES[1]}`;
    this.unauthorizedRequestsAlarm = this.unauthorizedAlarm();
    notifyOn(props.alarmTopic, [this.unauthorizedRequestsAlarm]);
    warnWithoutAlarmTopic(this, props.alarmTopic);
  }

  /**
   * A metric the receiver function emits for one route (`ReceiverMetric`, such as
   * `UnauthorizedRequests`; `route` is `payments` or `boleto`): a 5-minute sum unless `props` says otherwise.
   */
  public metricReceiver(metricName: string, route: string, props: cloudwatch.MetricOptions = {}): cloudwatch.Metric {
    return libraryMetric(metricName, RECEIVER_SERVICE_NAME, { Route: route }, props);
  }

  /** Authenticated notifications stored in the queue, on one route. */
  public metricNotificationsStored(route: string, props: cloudwatch.MetricOptions = {}): cloudwatch.Metric {
    return this.metricReceiver(ReceiverMetric.STORED, route, props);
  }

  /** Requests refused with 401 (wrong or missing token), on one route. */
  public metricUnauthorizedRequests(route: string, props: cloudwatch.MetricOptions = {}): cloudwatch.Metric {
    return this.metricReceiver(ReceiverMetric.UNAUTHORIZED, route, props);
  }

  /** Allows `grantee` to read both token secrets (to register them with the bank, for example). */
  public grantReadTokens(grantee: iam.IGrantable): iam.Grant {
    return this.paymentCallbackToken.grantRead(grantee).combine(this.boletoToken.grantRead(grantee));
  }

  private restApi(props: BankWebhookEndpointProps): apigateway.RestApi {
    // One account setting per stack: a second endpoint asking for it shares the first's.
    const existingAccount = Stack.of(this).node.findAll().find((c): c is apigateway.CfnAccount => c instanceof apigateway.CfnAccount);
    const cloudWatchRole = (props.createApiGatewayCloudWatchRole ?? false) && !existingAccount;
    const api = new apigateway.RestApi(this, 'Api', {
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
      api.root.addResource(route).addMethod('POST', integration);
    }
    acknowledgeApiFindings(api);
    if (props.webAclArn) {
      new wafv2.CfnWebACLAssociation(this, 'WebAclAssociation', { resourceArn: api.deploymentStage.stageArn, webAclArn: props.webAclArn });
    }
    if (existingAccount) {
      api.deploymentStage.node.addDependency(existingAccount);
    } else if (!cloudWatchRole) {
      Annotations.of(this).addWarningV2('cdk-bank-webhooks:apiGatewayCloudWatchRole',
        'The API stage logs errors (execution logging), which needs API Gateway\'s CloudWatch role set for the account and region. This stack does not set it (createApiGatewayCloudWatchRole is not true): if the account and region have none, the deploy fails at the stage. Set createApiGatewayCloudWatchRole: true in one stack of the account and region (the setting is shared by every REST API there), or set the role once by hand.');
    }
    const cloudWatchRoleConstruct = api.node.tryFindChild('CloudWatchRole');
    if (cloudWatchRoleConstruct) {
      Validations.of(cloudWatchRoleConstruct).acknowledge({
        id: 'AwsSolutions::AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
        reason: 'AWS\'s managed policy for API Gateway\'s account-level logging role; it only allows writing to CloudWatch Logs, which API Gateway needs for ERROR-level execution logs.',
      });
    }
    return api;
  }

  private unauthorizedAlarm(): cloudwatch.Alarm {
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
    return alarm;
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
