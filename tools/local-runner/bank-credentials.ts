import {
  BANK_CONNECTION_ENV,
  type BankConnectionSettings,
  type BankCredentials,
  BankConnectionDefaults,
  scopeSettings,
} from '../../contracts/bank-connection';
import { PIX_CONNECTION_ENV, type PixConnectionSettings, type PixCredentials } from '../../contracts/pix-connection';
import type { BankSimulatorClient } from '../../simulator/control-client';
import { type BankSimulator, SimulatorPaths } from '../../simulator/simulator';
import type { LocalSecretsManager } from '../local-aws/secrets-manager-server';
import { settingsIn } from './template';

/**
 * The bank a runner's receiver talks to: the in-process simulator, or a BankSandbox run locally
 * (local-sandbox.ts), which has no client certificate (its function URL asks for none).
 */
export type RunnerBank = Pick<BankSimulator, 'baseUrl' | 'caPem' | 'credentials' | 'accounts'> &
  Partial<Pick<BankSimulator, 'clientCertPem' | 'clientKeyPem' | 'pixClientCertPem' | 'pixClientKeyPem'>> & {
    readonly control: BankSimulatorClient;
    stop(): Promise<void>;
  };

/** The bank credentials secret's JSON for a simulator: its passwords, client certificate (when it asks for one) and CA. */
export function simulatorCredentials(s: Omit<RunnerBank, 'control' | 'stop'>): BankCredentials {
  return {
    apiKey: s.credentials.collection.apiKey,
    password: s.credentials.collection.password,
    clientId: s.credentials.payments.clientId,
    clientSecret: s.credentials.payments.clientSecret,
    ...(s.clientCertPem && s.clientKeyPem ? { clientCertificate: s.clientCertPem, clientKey: s.clientKeyPem } : {}),
    caCertificates: s.caPem,
  };
}

/** The Pix credentials secret's JSON for a simulator: its Pix application, client certificate and CA. */
export function simulatorPixCredentials(s: Omit<RunnerBank, 'control' | 'stop'>): PixCredentials {
  const pix = s.credentials.pix;
  if (!pix) throw new Error("This runner's bank has no Pix application: its Pix token endpoint refuses every client");
  // A BankSandbox's Pix application has no client certificate (its function URL asks for none; the connection is `simulated`).
  return {
    clientId: pix.clientId,
    clientSecret: pix.clientSecret,
    caCertificates: s.caPem,
    ...(s.pixClientCertPem && s.pixClientKeyPem
      ? { clientCertificate: s.pixClientCertPem, clientKey: s.pixClientKeyPem }
      : {}),
  };
}

/** The secret's name in an ARN of Secrets Manager. */
const secretName = (arn: string) => arn.replace(/^arn:[^:]+:secretsmanager:[^:]*:[^:]*:secret:/, '');

/**
 * The secrets the stack imports, made under the names its processor's environment points at: the
 * bank credentials (the simulator's) and, for a stack with Pix, the Pix credentials (the simulator's
 * Pix application).
 */
export function importConnectionSecrets(
  secrets: LocalSecretsManager,
  processorEnv: Record<string, string>,
  bank: RunnerBank,
): void {
  secrets.createSecret(
    secretName(settingsIn<BankConnectionSettings>(processorEnv, BANK_CONNECTION_ENV).credentialsSecretArn),
    JSON.stringify(simulatorCredentials(bank)),
  );
  if (!processorEnv[PIX_CONNECTION_ENV]) return;
  secrets.createSecret(
    secretName(settingsIn<PixConnectionSettings>(processorEnv, PIX_CONNECTION_ENV).credentialsSecretArn),
    JSON.stringify(simulatorPixCredentials(bank)),
  );
}

/** Connection settings pointing at a simulator, for its first account. */
export function simulatorConnection(
  s: Pick<RunnerBank, 'baseUrl' | 'accounts'>,
  credentialsSecretArn: string,
  overrides: Partial<BankConnectionSettings> = {},
): BankConnectionSettings {
  const account = s.accounts[0];
  return {
    baseUrl: s.baseUrl,
    registrationBaseUrl: s.baseUrl + SimulatorPaths.registrationBase,
    collectionTokenUrl: s.baseUrl + SimulatorPaths.collectionToken,
    paymentsTokenUrl: s.baseUrl + SimulatorPaths.paymentsToken,
    collectionScope: BankConnectionDefaults.collectionScope,
    paymentsScope: BankConnectionDefaults.paymentsScopes.join(' '),
    paymentQueryScopes: scopeSettings(),
    zuluTimestamps: BankConnectionDefaults.zuluTimestamps,
    paymentsClientAuth: BankConnectionDefaults.paymentsClientAuth,
    account: {
      cooperativa: account.cooperativa,
      posto: account.posto,
      conta: account.conta,
      documento: account.documento,
      codigoBeneficiario: account.beneficiario,
    },
    credentialsSecretArn,
    boletoQueryPath: BankConnectionDefaults.boletoQueryPath,
    settledBoletosPath: BankConnectionDefaults.settledBoletosPath,
    listingPageSize: BankConnectionDefaults.listingPageSize,
    paymentQueryPaths: BankConnectionDefaults.paymentQueryPaths,
    callTimeoutMs: 1_500,
    queriesPerSecond: BankConnectionDefaults.queriesPerSecond,
    registrationCallsPerSecond: BankConnectionDefaults.registrationCallsPerSecond,
    ...overrides,
  };
}
