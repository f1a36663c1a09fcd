/**
 * The stack the local runner synthesizes unless given another: one BankWebhookReceiver as a
 * platform team deploys it (both registrations, the reconciliation sweep, alarms, a rule on Boleto
 * Settled), its bank settings read from the context keys the runner sets. The tools build it
 * themselves: the example apps are documentation, and nothing of the tools' rests on them.
 */
import { Duration, Stack, type StackProps } from 'aws-cdk-lib';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { BankEventDetailType, BankStage, BankWebhookReceiver, type BankWebhookReceiverProps } from '../../lib';

/**
 * Context keys the runner sets on the app, pointing the bank settings at the simulator. This stack
 * reads them; a team's own stack reads the same keys to run under the runner.
 */
export const RUNNER_CONTEXT_KEYS = [
  'bankBaseUrl',
  'bankRegistrationBaseUrl',
  'bankCooperativa',
  'bankPosto',
  'bankConta',
  'bankDocumento',
  'bankCodigoBeneficiario',
] as const;

/** Optional context: the bank's query rate for these credentials (the bench's front-door section sets it). */
export const QUERIES_PER_SECOND_CONTEXT_KEY = 'bankQueriesPerSecond';

/** The name of the bank credentials secret the stack imports (the runner creates it with the simulator's credentials). */
export const LOCAL_CREDENTIALS_SECRET_NAME = 'cdk-bank-webhooks/bank-credentials';

/** The name of the Pix credentials secret a stack with Pix imports (the runner creates it with the simulator's Pix client). */
export const LOCAL_PIX_CREDENTIALS_SECRET_NAME = 'cdk-bank-webhooks/pix-credentials';

/** Context key holding the simulator's Pix keys (a JSON array), which the runner sets. */
export const PIX_KEYS_CONTEXT_KEY = 'pixKeys';

export interface LocalReceiverStackProps extends StackProps {
  /** Receiver props over the stack's (tests use shorter timings). @default none */
  readonly receiver?: Partial<BankWebhookReceiverProps>;
  /**
   * Receive Pix too (the simulator's Pix API, its keys). Pix needs mutual TLS in PRODUCTION, so
   * the receiver is then NON_PRODUCTION against a simulated bank: it still registers, sweeps and
   * watches, as a staging stack against a BankSandbox does. @default false
   */
  readonly pix?: boolean;
  /**
   * With `pix`: this receiver is its account's receiver for keyless Pix and takes its Pix
   * Automático (`keylessPix`, `recurring`): `/rec` and `/cobr` served, the account's webhooks
   * registered. @default false
   */
  readonly pixRecurring?: boolean;
}

export class LocalReceiverStack extends Stack {
  public readonly receiver: BankWebhookReceiver;

  constructor(scope: Construct, id: string, props: LocalReceiverStackProps = {}) {
    super(scope, id, props);
    const context = (key: (typeof RUNNER_CONTEXT_KEYS)[number]): string => {
      const value: unknown = this.node.tryGetContext(key);
      if (typeof value !== 'string' || !value)
        throw new Error(
          `The local stack reads its bank settings from the context key ${key}, which is not set: start it through LocalRunner`,
        );
      return value;
    };
    const queriesPerSecond: unknown = this.node.tryGetContext(QUERIES_PER_SECOND_CONTEXT_KEY);
    this.receiver = new BankWebhookReceiver(this, 'BankWebhooks', {
      bank: {
        baseUrl: context('bankBaseUrl'),
        registrationBaseUrl: context('bankRegistrationBaseUrl'),
        credentials: secretsmanager.Secret.fromSecretNameV2(this, 'BankCredentials', LOCAL_CREDENTIALS_SECRET_NAME),
        account: {
          cooperativa: context('bankCooperativa'),
          posto: context('bankPosto'),
          conta: context('bankConta'),
          documento: context('bankDocumento'),
          codigoBeneficiario: context('bankCodigoBeneficiario'),
        },
        queriesPerSecond: queriesPerSecond === undefined ? undefined : Number(queriesPerSecond),
        ...(props.pix ? { simulated: true } : {}),
      },
      ...(props.pix
        ? {
            stage: BankStage.NON_PRODUCTION,
            pix: {
              // Simulated: a local BankSandbox's Pix application has no client certificate (the in-process simulator's has one, and it is sent).
              connection: {
                baseUrl: context('bankBaseUrl'),
                credentials: secretsmanager.Secret.fromSecretNameV2(
                  this,
                  'PixCredentials',
                  LOCAL_PIX_CREDENTIALS_SECRET_NAME,
                ),
                simulated: true,
              },
              keys: JSON.parse(String(this.node.tryGetContext(PIX_KEYS_CONTEXT_KEY) ?? '[]')) as string[],
              ...(props.pixRecurring ? { keylessPix: true, recurring: true } : {}),
            },
          }
        : {}),
      createApiGatewayCloudWatchRole: true,
      alarmTopic: new sns.Topic(this, 'Alarms', { enforceSSL: true }),
      paymentRegistration: {},
      boletoContracts: [{ nomeResponsavel: 'Finance Operations', email: 'finance@example.com' }],
      // The local bank delivers in milliseconds: a grace of seconds tells a lost webhook from a late one here.
      recoveredGracePeriod: Duration.seconds(3),
      // What `cdk-bank-webhooks audit` reads of the bus.
      auditLog: { enabled: true },
      ...props.receiver,
    });
    // A consumer's rule: the runner's `consumerRule: 'BankWebhooksBoletoSettledRule'` stands for its target.
    const inbox = new sqs.Queue(this, 'SettlementsInbox', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    this.receiver.onVerifiedEvent('BoletoSettledRule', BankEventDetailType.BOLETO_SETTLED, {
      target: new targets.SqsQueue(inbox),
    });
  }
}
