import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { ProcessorDefaults } from '../../contracts/processor';
import {
  PIX_RECURRING_ROUTES,
  PIX_ROUTE,
  RECEIVER_SERVICE_NAME,
  RECEIVER_SETTINGS_ENV,
  ReceiverDefaults,
  ReceiverMetric,
  type ReceiverSettings,
  ROUTES,
  SQS_MAX_MESSAGE_BYTES,
} from '../../contracts/receiver';
import { notifyOn, warnWithoutAlarmTopic } from '../core/alarms';
import { acknowledgeInherent } from '../core/compliance';
import { functionNetwork } from '../core/function-network';
import { defaultReceiverName, libraryMetric } from '../core/metrics';
import { validateProps } from '../core/props-validation';
import { minimumVisibilitySeconds } from '../core/timing';
import { QueueSenders } from '../core/queue-senders';
import { allowOnlySourceQueue } from '../core/redrive-allow-policy';
import { type BankWebhookEndpointProps, checkBankWebhookEndpoint } from './bank-webhook-endpoint-props';
import type { PixDomainProps } from '../families/pix/receiver';
import { receiverSettings } from './receiver-settings';
import { type ReceiverMetricOf, silenceAlarm, unauthorizedRequestsAlarm } from './endpoint-alarms';
import { pixMutualTlsDomain } from './pix-api';
import { endpointRestApi } from './rest-api';
import { ReceiverFunction } from './receiver-function';
import { openTelemetryLayer, xrayTracing } from '../core/tracing';

/** Timeout of the receiver function: well under the bank's 10 s deadline. */
const RECEIVER_TIMEOUT = Duration.seconds(6);
const RETENTION = Duration.seconds(ProcessorDefaults.queueRetentionSeconds);

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
  /** The `receiver` dimension of its metrics (`receiverName`). */
  public readonly receiverName: string;
  /** The operators who may send to its queue besides the receiver and the processor (`operatorRoles`). */
  public readonly operatorRoles: iam.IRole[];
  /** Alarm: no notification stored on `/boleto` for its window (none when its window is 0). */
  public readonly boletoSilenceAlarm?: cloudwatch.Alarm;
  /** Alarm: no notification stored on `/payments` for its window (none when its window is 0). */
  public readonly paymentsSilenceAlarm?: cloudwatch.Alarm;

  private readonly props: BankWebhookEndpointProps;
  private pixRestApi?: apigateway.RestApi;
  private pixIntegration?: apigateway.LambdaIntegration;
  private pixRecurring = false;
  private pixDomainName?: string;
  /** Alarm: the Pix provider's client certificate expires within a month (with a Pix domain). */
  public pixCertificateExpiryAlarm?: cloudwatch.Alarm;

  constructor(scope: Construct, id: string, props: BankWebhookEndpointProps = {}) {
    super(scope, id);
    this.props = props;
    validateProps(this.node.path, 'BankWebhookEndpoint', props, checkBankWebhookEndpoint, Stack.of(this).region);
    this.receiverName = props.receiverName ?? defaultReceiverName(this);
    const retention = props.logRetention ?? logs.RetentionDays.ONE_YEAR;
    this.boletoTokenHeader = props.boletoTokenHeader ?? ReceiverDefaults.boletoTokenHeader;
    // One security group (outbound HTTPS only) for the functions here, unless given.
    const network = functionNetwork(this, 'FunctionsSecurityGroup', props);
    this.securityGroups = network.securityGroups;

    this.paymentCallbackToken =
      props.paymentCallbackToken ??
      this.generatedToken(
        'PaymentCallbackToken',
        'Payment callback token (authorizationCallback) the bank sends to /payments',
        props.tokenEncryptionKey,
      );
    this.boletoToken =
      props.boletoToken ??
      this.generatedToken(
        'BoletoToken',
        'Boleto webhook contract token the bank sends to /boleto',
        props.tokenEncryptionKey,
      );

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
      visibilityTimeout:
        props.queueVisibilityTimeout ?? Duration.seconds(minimumVisibilitySeconds(undefined, undefined)),
      deadLetterQueue: {
        queue: this.deadLetterQueue,
        maxReceiveCount: props.maxReceiveCount ?? ProcessorDefaults.maxReceiveCount,
      },
    });
    // Only the receiver, the processor (leftovers; quarantine into the DLQ) and the named operators send to them.
    QueueSenders.guard(this.deadLetterQueue);
    this.operatorRoles = [...(props.operatorRoles ?? [])];
    QueueSenders.guard(this.queue, this.operatorRoles);
    acknowledgeInherent(
      this.deadLetterQueue,
      'SQSRedrivePolicy',
      'This queue is the dead-letter queue: what lands here is quarantined or undeliverable, alarmed, and redriven to the queue by an operator, never dead-lettered further.',
    );
    // Only our queue may dead-letter into the DLQ (what lands there is redriven to it).
    allowOnlySourceQueue(this, 'DeadLetterQueueRedriveAllowPolicy', {
      deadLetterQueue: this.deadLetterQueue,
      sourceQueue: this.queue,
      deadLetterQueueKey: props.queueEncryptionKey,
      provider: {
        logEncryptionKey: props.logEncryptionKey,
        vpc: props.vpc,
        vpcSubnets: props.vpcSubnets,
        securityGroups: props.securityGroups,
      },
    });

    // Receiver function, with a role that holds only what it needs (no managed policies).
    const receiver = new ReceiverFunction(this, 'ReceiverFunction', {
      description: 'Checks the bank webhook token and stores the raw notification in SQS before answering 200',
      timeout: RECEIVER_TIMEOUT,
      memorySize: props.receiverMemorySize ?? ReceiverDefaults.memorySizeMb,
      logGroupId: 'ReceiverLogGroup',
      roleId: 'ReceiverRole',
      roleDescription:
        'Bank webhook receiver: write its logs, read the two token secrets, send to the notification queue',
      logRetention: retention,
      logEncryptionKey: props.logEncryptionKey,
      tracing: xrayTracing(props),
      openTelemetry: openTelemetryLayer(this, props),
      network,
      environment: { [RECEIVER_SETTINGS_ENV]: Stack.of(this).toJsonString(this.receiverSettings(props)) },
    });
    this.receiverFunction = receiver;
    // Exactly what SendMessage needs (grantSendMessages would add kms:ReEncrypt* and wildcards).
    QueueSenders.allowFunction(receiver, [this.queue]);
    props.queueEncryptionKey?.grant(this.receiverFunction, 'kms:GenerateDataKey', 'kms:Decrypt');
    this.grantReadTokens(this.receiverFunction);

    // The API.
    this.accessLogGroup = new logs.LogGroup(this, 'AccessLogGroup', {
      retention,
      removalPolicy: RemovalPolicy.RETAIN,
      encryptionKey: props.logEncryptionKey,
    });
    this.api = endpointRestApi(
      this,
      'Api',
      "Receives the bank's webhook notifications (payments and boleto collection)",
      this.accessLogGroup,
      props,
    );
    const integration = new apigateway.LambdaIntegration(this.receiverFunction, { proxy: true });
    for (const route of ROUTES) {
      this.api.root.addResource(route).addMethod('POST', integration);
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
    this.paymentsUrl = `${this.url}${ROUTES[0]}`;
    this.boletoUrl = `${this.url}${ROUTES[1]}`;
    const metricOf: ReceiverMetricOf = (name, route, options) => this.metricReceiver(name, route, options);
    this.unauthorizedRequestsAlarm = unauthorizedRequestsAlarm(this, metricOf);
    this.boletoSilenceAlarm = silenceAlarm(
      this,
      'BoletoSilenceAlarm',
      'boleto',
      props.silenceAlarms?.boletoWindow,
      metricOf,
    );
    this.paymentsSilenceAlarm = silenceAlarm(
      this,
      'PaymentsSilenceAlarm',
      'payments',
      props.silenceAlarms?.paymentsWindow,
      metricOf,
    );
    notifyOn(props.alarmTopic, [this.unauthorizedRequestsAlarm, this.boletoSilenceAlarm, this.paymentsSilenceAlarm]);
    warnWithoutAlarmTopic(this, props.alarmTopic);
  }

  /**
   * A metric the receiver function emits for one route (`ReceiverMetric`, such as
   * `UnauthorizedRequests`; `route` is `payments`, `boleto` or, with Pix, `pix`): a 5-minute sum unless `props` says otherwise.
   */
  public metricReceiver(metricName: string, route: string, props: cloudwatch.MetricOptions = {}): cloudwatch.Metric {
    return libraryMetric(metricName, RECEIVER_SERVICE_NAME, this.receiverName, { Route: route }, props);
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

  /**
   * Serves the standard Pix API's callback (cdk-bank-webhooks/docs/pix.md) on a REST API of its own, to the same
   * receiver and queue: `POST /pix` (the provider appends `/pix` to the URL registered for a key)
   * and `POST /` (its validation call). A REST API of its own, because mutual TLS covers a whole
   * domain and the bank's other callbacks carry no client certificate. With `domain`, on its own
   * regional domain with mutual TLS, the default endpoint disabled and the provider's certificate
   * pinned. Once per endpoint; `BankWebhookReceiver` calls it when given `pix`.
   */
  public addPixApi(domain?: PixDomainProps): apigateway.RestApi {
    if (this.pixRestApi)
      throw new Error(`${this.node.path}: addPixApi() was called already; an endpoint serves one Pix API`);
    const { props } = this;
    const accessLogGroup = new logs.LogGroup(this, 'PixAccessLogGroup', {
      retention: props.logRetention ?? logs.RetentionDays.ONE_YEAR,
      removalPolicy: RemovalPolicy.RETAIN,
      encryptionKey: props.logEncryptionKey,
    });
    const api = endpointRestApi(
      this,
      'PixApi',
      "Receives the Pix provider's callbacks (the standard Pix API)",
      accessLogGroup,
      props,
      false,
      !!domain,
    );
    const integration = new apigateway.LambdaIntegration(this.receiverFunction, { proxy: true });
    api.root.addMethod('POST', integration);
    api.root.addResource(PIX_ROUTE).addMethod('POST', integration);
    this.pixIntegration = integration;
    this.pixRestApi = api;
    if (domain) {
      const { pins, expiryAlarm } = pixMutualTlsDomain(this, api, domain, (name, route, options) =>
        this.metricReceiver(name, route, options),
      );
      this.receiverFunction.addEnvironment(
        RECEIVER_SETTINGS_ENV,
        Stack.of(this).toJsonString({ ...this.receiverSettings(this.props), pixClientCertificates: pins }),
      );
      this.pixCertificateExpiryAlarm = expiryAlarm;
      notifyOn(this.props.alarmTopic, [expiryAlarm]);
      this.pixDomainName = domain.domainName;
    }
    return api;
  }

  /**
   * Serves Pix Automático's callbacks on the Pix API (after `addPixApi()`): `POST /rec` and
   * `POST /cobr` (the provider appends them to the account's registered URL), behind the same
   * domain, mutual TLS and pins as `/pix`. `BankWebhookReceiver` calls it when given `pix.recurring`.
   */
  public addPixRecurringRoutes(): void {
    const api = this.pixRestApi;
    if (!api || !this.pixIntegration)
      throw new Error(
        `${this.node.path}: call addPixApi() before addPixRecurringRoutes(): the routes are on the Pix API`,
      );
    if (this.pixRecurring) throw new Error(`${this.node.path}: addPixRecurringRoutes() was called already`);
    for (const route of PIX_RECURRING_ROUTES) api.root.addResource(route).addMethod('POST', this.pixIntegration);
    this.pixRecurring = true;
  }

  /** The receiver function's settings (the Pix pins added by addPixApi). */
  private receiverSettings(props: BankWebhookEndpointProps): ReceiverSettings {
    return receiverSettings(
      {
        queueUrl: this.queue.queueUrl,
        paymentsTokenSecretArn: this.paymentCallbackToken.secretArn,
        boletoTokenSecretArn: this.boletoToken.secretArn,
      },
      {
        boletoTokenHeader: this.boletoTokenHeader,
        maxBodyBytes: props.maxBodySize?.toBytes(),
        tokenCacheTtlMs: props.tokenCacheTtl?.toMilliseconds(),
        receiverName: this.receiverName,
      },
    );
  }

  /** Whether the Pix API serves Pix Automático's routes (`addPixRecurringRoutes()`). */
  public get servesPixRecurring(): boolean {
    return this.pixRecurring;
  }

  /** The Pix API, once `addPixApi()` made it. */
  public get pixApi(): apigateway.RestApi | undefined {
    return this.pixRestApi;
  }

  /**
   * The URL to register for each Pix key (`webhookUrl`), once `addPixApi()` made the API: its
   * stage URL without a trailing slash, so the provider's `{webhookUrl}/pix` is the Pix route.
   */
  public get pixUrl(): string | undefined {
    const api = this.pixRestApi;
    if (!api) return undefined;
    if (this.pixDomainName) return `https://${this.pixDomainName}`;
    const stack = Stack.of(this);
    return `https://${api.restApiId}.execute-api.${stack.region}.${stack.urlSuffix}/${api.deploymentStage.stageName}`;
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
