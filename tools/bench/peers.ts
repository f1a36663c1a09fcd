import { randomBytes } from 'node:crypto';
import { PurgeQueueCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { BANK_CONNECTION_ENV } from '../../contracts/bank-connection';
import { type PixBulkSettings, PROCESSOR_SETTINGS_ENV, ProcessorDefaults } from '../../contracts/processor';
import { SWEEP_SETTINGS_ENV } from '../../contracts/reconciliation';
import { BankSimulator } from '../../simulator/simulator';
import { type Dynalite, startDynalite } from '../local-aws/dynalite';
import { LocalEventBridge } from '../local-aws/eventbridge-server';
import { createQueueWithDlq, type Fauxqs, startFauxqs } from '../local-aws/fauxqs';
import { LOCAL_AWS, localAwsEnvironment, resolveLocalhostSubdomains } from '../local-aws/local-env';
import { LocalS3 } from '../local-aws/s3-server';
import { LocalSecretsManager } from '../local-aws/secrets-manager-server';
import { simulatorConnection, simulatorCredentials, simulatorPixCredentials } from '../local-runner/bank-credentials';
import { PIX_CONNECTION_ENV } from '../../contracts/pix-connection';
import { normalizePixKey } from '../../contracts/pix';
import { pixKeysOf } from '../../simulator/model';
import { processorSettings } from '../../lib/processor/processor-settings';
import { receiverEnvironment } from '../../lib/endpoint/receiver-settings';
import { sweepSettings } from '../../lib/reconciliation/sweep-settings';

/** A query rate no run reaches (the most the construct accepts): the pacer never waits, and still takes its slots, as deployed. */
export const UNLIMITED_QUERIES_PER_SECOND = 1_000;

/** maxReceiveCount of the bench's queue. */
const MAX_RECEIVE_COUNT = 3;
const NAME = 'bench';
/** The raw journal's bucket (on by default in the construct, so in the bench). */
const JOURNAL_BUCKET = `${NAME}-journal`;

/** The local endpoints a function reaches, by the SDK's `AWS_ENDPOINT_URL_<SERVICE>` names. */
export type BenchEndpoints = Partial<Record<'DYNAMODB' | 'EVENTBRIDGE' | 'SECRETS_MANAGER' | 'S3', string>>;

/**
 * What the receiver and processor bundles talk to in the benchmarks, on loopback: fauxqs (its own
 * process), dynalite, a local Secrets Manager, EventBridge and S3 (the journal), and the bank simulator.
 */
export class BenchPeers {
  readonly secrets = new LocalSecretsManager();
  readonly events = new LocalEventBridge();
  readonly s3 = new LocalS3();
  /** The payments route's token (the value the bank sends). */
  readonly token = randomBytes(24).toString('base64url');
  simulator!: BankSimulator;
  sqs!: SQSClient;
  queueUrl!: string;
  dlqUrl!: string;
  /** The processor's look queue (the sweep's and Track Payment's look requests) and its dead-letter queue. */
  lookQueueUrl!: string;
  lookDlqUrl!: string;
  private fauxqs!: Fauxqs;
  dynamo!: Dynalite;
  secretsEndpoint!: string;
  eventsEndpoint!: string;
  s3Endpoint!: string;
  private tokenArn!: string;
  private credentialsArn!: string;
  private pixCredentialsArn!: string;
  private restoreDns!: () => void;

  static async start(): Promise<BenchPeers> {
    const peers = new BenchPeers();
    peers.restoreDns = resolveLocalhostSubdomains();
    [peers.simulator, peers.fauxqs, peers.dynamo, peers.secretsEndpoint, peers.eventsEndpoint, peers.s3Endpoint] = await Promise.all([
      BankSimulator.start(), startFauxqs(), startDynalite(), peers.secrets.start(), peers.events.start(), peers.s3.start(),
    ]);
    peers.s3.createBucket(JOURNAL_BUCKET);
    peers.sqs = peers.fauxqs.client();
    ({ queueUrl: peers.queueUrl, dlqUrl: peers.dlqUrl } = await createQueueWithDlq(peers.sqs, NAME, MAX_RECEIVE_COUNT, 180));
    ({ queueUrl: peers.lookQueueUrl, dlqUrl: peers.lookDlqUrl } = await createQueueWithDlq(peers.sqs, `${NAME}-looks`, MAX_RECEIVE_COUNT, 180));
    await peers.dynamo.createIdempotencyTable(`${NAME}-idempotency`);
    peers.tokenArn = peers.secrets.createSecret(`${NAME}-token`, peers.token);
    peers.credentialsArn = peers.secrets.createSecret(`${NAME}-bank-credentials`, JSON.stringify(simulatorCredentials(peers.simulator)));
    peers.pixCredentialsArn = peers.secrets.createSecret(`${NAME}-pix-credentials`, JSON.stringify(simulatorPixCredentials(peers.simulator)));
    return peers;
  }

  /** The receiver's environment as the construct sets it (both routes share one token here). */
  receiverEnvironment(): Record<string, string> {
    return {
      ...localAwsEnvironment({ SQS: this.fauxqs.endpoint, SECRETS_MANAGER: this.secretsEndpoint }),
      ...receiverEnvironment({ queueUrl: this.queueUrl, paymentsTokenSecretArn: this.tokenArn, boletoTokenSecretArn: this.tokenArn }),
    };
  }

  /**
   * The processor's environment as the construct sets it, with the example's defaults (the raw
   * journal on, unless `journal` is false). The query rate is unlimited (sections measuring
   * something else than pacing) unless given; `endpoints` puts other endpoints (counting
   * proxies) in front of the local services.
   */
  processorEnvironment(options: { queriesPerSecond?: number; endpoints?: BenchEndpoints; journal?: boolean; pix?: boolean; recurring?: boolean; pixAuthenticated?: boolean; pixBulk?: PixBulkSettings } = {}): Record<string, string> {
    const settings = processorSettings(
      {
        eventBusName: `${NAME}-bus`, idempotencyTableName: `${NAME}-idempotency`, quarantineQueueUrl: this.dlqUrl, queueUrl: this.queueUrl,
        lookQueueUrl: this.lookQueueUrl, lookQuarantineQueueUrl: this.lookDlqUrl, ownSenderId: LOCAL_AWS.accountId,
        ...(options.journal === false ? {} : { journalBucketName: JOURNAL_BUCKET }),
      },
      { maxReceiveCount: MAX_RECEIVE_COUNT, maxVerificationAttempts: ProcessorDefaults.maxVerificationAttempts },
    );
    return {
      ...localAwsEnvironment({ SQS: this.fauxqs.endpoint, SECRETS_MANAGER: this.secretsEndpoint, DYNAMODB: this.dynamo.endpoint, EVENTBRIDGE: this.eventsEndpoint, S3: this.s3Endpoint, ...options.endpoints }),
      [BANK_CONNECTION_ENV]: JSON.stringify(simulatorConnection(this.simulator, this.credentialsArn, { callTimeoutMs: 5_000, queriesPerSecond: options.queriesPerSecond ?? UNLIMITED_QUERIES_PER_SECOND })),
      [PROCESSOR_SETTINGS_ENV]: JSON.stringify(options.pix ? {
        ...settings,
        pixKeys: pixKeysOf(this.simulator.accounts).map((key) => normalizePixKey(key)!.key),
        // The account's receiver for keyless Pix, taking its Pix Automático.
        ...(options.recurring ? { pixKeyless: true, pixRecurring: true } : {}),
        // Behind mutual TLS and a pin (the Pix burst), verifying by listing at a peak when given.
        ...(options.pixAuthenticated ? { pixCallbacksAuthenticated: true } : {}),
        ...(options.pixBulk ? { pixBulk: options.pixBulk } : {}),
      } : settings),
      // The simulator's Pix API, under its Pix application's credentials (a token over mutual TLS).
      ...(options.pix ? { [PIX_CONNECTION_ENV]: JSON.stringify({ baseUrl: this.simulator.baseUrl, tokenUrl: this.simulator.info.pixTokenUrl, credentialsSecretArn: this.pixCredentialsArn }) } : {}),
    };
  }

  /** The reconciliation sweep's environment as the construct sets it (no registrations to watch). */
  sweepEnvironment(): Record<string, string> {
    const settings = sweepSettings({ idempotencyTableName: `${NAME}-idempotency`, queueUrl: this.lookQueueUrl });
    const { [PROCESSOR_SETTINGS_ENV]: _processor, ...environment } = this.processorEnvironment();
    return { ...environment, [SWEEP_SETTINGS_ENV]: JSON.stringify(settings) };
  }

  /** The processor's table (its records and the sweep's cursors). */
  get tableName(): string {
    return `${NAME}-idempotency`;
  }

  /** Empties the receiver's queue and the look queue, so that runs do not measure a growing queue. */
  async purgeQueue(): Promise<void> {
    for (const QueueUrl of [this.queueUrl, this.lookQueueUrl]) await this.sqs.send(new PurgeQueueCommand({ QueueUrl }));
  }

  async stop(): Promise<void> {
    this.sqs?.destroy();
    await Promise.all([this.simulator?.stop(), this.fauxqs?.stop(), this.dynamo?.stop(), this.events.stop(), this.secrets.stop(), this.s3.stop()]);
    this.restoreDns?.();
  }
}
