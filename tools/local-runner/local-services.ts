/**
 * The local stand-ins of the AWS services a receiver stack uses, and the bank, on 127.0.0.1: the
 * bank simulator (trusting the front door's CA), fauxqs behind a TCP gate, dynalite, and local
 * Secrets Manager, EventBridge, SSM, CloudFormation, S3 and CloudWatch Logs endpoints. The runner provisions a stack's resources in them.
 */
import { CreateQueueCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { createCertificateAuthority, issueCertificate, type PemPair } from '../../simulator/certificates';
import { BankSimulator, type BankSimulatorOptions } from '../../simulator/simulator';
import { type Dynalite, startDynalite } from '../local-aws/dynalite';
import { LocalEventBridge } from '../local-aws/eventbridge-server';
import { type Fauxqs, startFauxqs } from '../local-aws/fauxqs';
import { LOCAL_AWS, localAwsEnvironment, resolveLocalhostSubdomains } from '../local-aws/local-env';
import { LocalSecretsManager } from '../local-aws/secrets-manager-server';
import { LocalSsm } from '../local-aws/ssm-server';
import { LocalCloudFormation } from '../local-aws/cloudformation-server';
import { LocalS3 } from '../local-aws/s3-server';
import { type LocalAlarm, LocalCloudWatch } from '../local-aws/cloudwatch-server';
import { LocalLambda } from '../local-aws/lambda-server';
import { LocalLogs } from '../local-aws/logs-server';
import { matchesEventPattern } from '../local-aws/event-pattern';
import { localBucketName } from './local-resolver';
import type { CloudFormationTemplate, ReceiverDeployment } from './template';
import type { AwsOptions } from '../../cli/operate/aws';
import { TcpGate } from '../local-aws/tcp-gate';
import type { RunnerBank } from './bank-credentials';
import { startLocalSandbox } from './local-sandbox';

export interface LocalServicesOptions {
  /** Options of the bank simulator. @default a simulator with the sample account */
  readonly simulator?: Omit<BankSimulatorOptions, 'trustedCas'>;
  /** An EventBridge stand-in already started and shared; neither started nor stopped here. @default one of its own */
  readonly eventBridge?: LocalEventBridge;
  /** The bank is a BankSandbox run locally (local-sandbox.ts) instead of the in-process simulator. @default false */
  readonly sandbox?: boolean;
}

export class LocalServices {
  /** Starts every stand-in; stops what started when one fails. */
  static async start(options: LocalServicesOptions = {}): Promise<LocalServices> {
    const services = new LocalServices(options);
    try {
      await services.init(options);
    } catch (error) {
      await services.stop();
      throw error;
    }
    return services;
  }

  /** The in-process simulator (not started when the bank is a sandbox). */
  simulator?: BankSimulator;
  /** The bank the receiver talks to: the simulator, or the local sandbox. */
  bank!: RunnerBank;
  readonly events: LocalEventBridge;
  readonly secrets = new LocalSecretsManager(LOCAL_AWS.region, LOCAL_AWS.accountId);
  /** Where the registration provider records what each registration applied. */
  readonly ssm = new LocalSsm(LOCAL_AWS.region, LOCAL_AWS.accountId);
  /** The stack's status, as DescribeStacks answers it (the registration watch reads it). */
  readonly cloudFormation = new LocalCloudFormation();
  /** The raw journal's bucket (S3, path style). */
  readonly s3 = new LocalS3();
  /** The audit log's group (a rule with a log group target writes it): `audit` reads it. */
  readonly logs = new LocalLogs();
  /** Queues `standUp` made beside the runner's own (the audit log's dead-letter queue), by logical id. */
  readonly standingQueues = new Map<string, string>();
  /** The alarms the local CloudWatch answers (the runner sets it to its own evaluation of the template's). */
  cloudWatchAlarms: () => readonly LocalAlarm[] = () => [];
  /** DescribeAlarms and GetMetricData for the operator CLI. */
  readonly cloudWatch = new LocalCloudWatch(() => this.cloudWatchAlarms());
  /** Lambda's Invoke for the operator CLI's `sweep` (the runner serves its functions by logical id). */
  readonly lambda = new LocalLambda();
  fauxqs!: Fauxqs;
  dynamo!: Dynalite;
  /** An SQS client that reaches the queues through the gate. */
  sqs!: SQSClient;
  /** Closes and reopens the way to the queue (SQS unreachable for a while). */
  sqsGate!: TcpGate;
  /** The front door's certificate, and the CA (PEM) that issued it, which the simulator trusts. */
  apiTls!: PemPair;
  apiCaPem!: string;
  private readonly ownsEvents: boolean;
  private sqsEndpoint?: string;
  private eventsEndpoint?: string;
  private secretsEndpoint?: string;
  private ssmEndpoint?: string;
  private cloudFormationEndpoint?: string;
  private s3Endpoint?: string;
  private cloudWatchEndpoint?: string;
  private lambdaEndpoint?: string;
  private logsEndpoint?: string;
  private restoreDns?: () => void;

  private constructor(options: LocalServicesOptions) {
    this.events = options.eventBridge ?? new LocalEventBridge();
    this.ownsEvents = !options.eventBridge;
  }

  private async init(options: LocalServicesOptions): Promise<void> {
    this.restoreDns = resolveLocalhostSubdomains();
    // The front door's certificate comes from a local CA the simulated bank is told to trust.
    const ca = createCertificateAuthority('cdk-bank-webhooks local API CA');
    this.apiTls = issueCertificate(ca, { commonName: '127.0.0.1', hosts: ['127.0.0.1', 'localhost'] });
    this.apiCaPem = ca.certPem;
    if (options.sandbox) {
      this.bank = await startLocalSandbox({ trustedCaPems: [ca.certPem], accounts: options.simulator?.accounts });
    } else {
      this.simulator = await BankSimulator.start({ ...options.simulator, trustedCas: [ca.certPem] });
      this.bank = this.simulator;
    }
    [this.fauxqs, this.dynamo] = await Promise.all([startFauxqs(), startDynalite()]);
    [
      this.eventsEndpoint,
      this.secretsEndpoint,
      this.ssmEndpoint,
      this.cloudFormationEndpoint,
      this.s3Endpoint,
      this.cloudWatchEndpoint,
      this.lambdaEndpoint,
      this.logsEndpoint,
    ] = await Promise.all([
      this.ownsEvents ? this.events.start() : this.events.endpoint,
      this.secrets.start(),
      this.ssm.start(),
      this.cloudFormation.start(),
      this.s3.start(),
      this.cloudWatch.start(),
      this.lambda.start(),
      this.logs.start(),
    ]);
    this.sqsGate = new TcpGate(this.fauxqs.port);
    const gatePort = await this.sqsGate.start();
    // Queue URLs carry the port they were created through: everyone reaches the queue via the gate.
    this.sqsEndpoint = `http://sqs.${LOCAL_AWS.region}.localhost:${gatePort}`;
    this.sqs = this.fauxqs.client({ endpoint: this.sqsEndpoint });
  }

  /** The `AWS_ENDPOINT_URL_*` variables (and local credentials) that point a function at the stand-ins. */
  endpoints(): Record<string, string> {
    return localAwsEnvironment({
      SQS: this.sqsEndpoint!,
      DYNAMODB: this.dynamo.endpoint,
      SECRETS_MANAGER: this.secretsEndpoint!,
      EVENTBRIDGE: this.eventsEndpoint!,
      SSM: this.ssmEndpoint!,
      CLOUDFORMATION: this.cloudFormationEndpoint!,
      S3: this.s3Endpoint!,
    });
  }

  /** Where the operator CLI (`cdk-bank-webhooks status|trace|dlq`) finds the stand-ins, as its `aws` option. */
  operatorAws(): AwsOptions {
    return {
      region: LOCAL_AWS.region,
      credentials: LOCAL_AWS.credentials,
      endpoints: {
        CLOUDFORMATION: this.cloudFormationEndpoint!,
        CLOUDWATCH: this.cloudWatchEndpoint!,
        CLOUDWATCH_LOGS: this.logsEndpoint!,
        DYNAMODB: this.dynamo.endpoint,
        EVENTBRIDGE: this.eventsEndpoint!,
        LAMBDA: this.lambdaEndpoint!,
        S3: this.s3Endpoint!,
        SQS: this.sqsEndpoint!,
      },
    };
  }

  /**
   * The template's buckets and log groups, and its audit log: the events its rule's pattern matches, written to
   * the group as EventBridge writes an event to a log group target (the event's JSON).
   */
  async standUp(template: CloudFormationTemplate, deployment: ReceiverDeployment): Promise<void> {
    for (const [logicalId, resource] of Object.entries(template.Resources)) {
      if (resource.Type === 'AWS::S3::Bucket') this.s3.createBucket(localBucketName(logicalId));
      // Every log group, as a deploy makes them (a function's holds nothing until it runs).
      if (resource.Type === 'AWS::Logs::LogGroup') this.logs.createGroup(logicalId);
    }
    const audit = deployment.auditLog;
    if (!audit) return;
    this.logs.createGroup(audit.logGroup);
    // Its rule's dead-letter queue (empty locally: the local log takes every event).
    if (audit.deadLetterQueue)
      this.standingQueues.set(
        audit.deadLetterQueue,
        (await this.sqs.send(new CreateQueueCommand({ QueueName: audit.deadLetterQueue }))).QueueUrl!,
      );
    this.events.subscribe((event) => {
      if (
        !matchesEventPattern(audit.pattern, {
          source: event.source,
          'detail-type': event.detailType,
          detail: event.detail,
        })
      )
        return;
      const time = event.time ?? new Date(event.receivedAt ?? Date.now()).toISOString();
      this.logs.append(
        audit.logGroup,
        JSON.stringify({
          version: '0',
          id: event.id,
          'detail-type': event.detailType,
          source: event.source,
          account: LOCAL_AWS.accountId,
          time,
          region: LOCAL_AWS.region,
          resources: [],
          detail: event.detail,
        }),
        event.receivedAt ?? Date.now(),
      );
    });
  }

  async stop(): Promise<void> {
    this.sqs?.destroy();
    await Promise.all([
      this.bank?.stop(),
      this.fauxqs?.stop(),
      this.dynamo?.stop(),
      this.ownsEvents ? this.events.stop() : undefined,
      this.secrets.stop(),
      this.ssm.stop(),
      this.cloudFormation.stop(),
      this.s3.stop(),
      this.cloudWatch.stop(),
      this.lambda.stop(),
      this.logs.stop(),
      this.sqsGate?.stop(),
    ]);
    this.restoreDns?.();
  }
}
