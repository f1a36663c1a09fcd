/**
 * The sandbox's bank credentials: made once, when CloudFormation creates the credentials resource,
 * and written to the sandbox's secret (the receiver reads the same secret). The template, the
 * resource's properties and its response carry the secret's ARN only.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { GetSecretValueCommand, PutSecretValueCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { BankCredentials } from '../../contracts/bank-connection';
import { SANDBOX_CREDENTIALS_PROPERTY, type SandboxAccount } from '../../contracts/sandbox';
import type { BankCredentials as SimulatorCredentials } from '../../simulator/tokens';
import { errorMessage, type Log } from '../shared/runtime';

/** The collection username the receiver's client sends by default: beneficiary code, then cooperative. */
const defaultUsername = (account: SandboxAccount) => account.beneficiario + account.cooperativa;

/** New credentials for the sandbox's bank, in the secret's format (docs/usage.md). */
export function newSandboxCredentials(account: SandboxAccount): BankCredentials {
  return {
    apiKey: randomUUID(),
    username: defaultUsername(account),
    password: randomBytes(18).toString('base64url'),
    clientId: `sandbox-client-${randomBytes(4).toString('hex')}`,
    clientSecret: randomBytes(24).toString('base64url'),
  };
}

/** The simulator's view of the secret's credentials; throws naming the fields missing (never a value). */
export function simulatorCredentials(credentials: BankCredentials, account: SandboxAccount, secretArn: string): SimulatorCredentials {
  const missing = (['apiKey', 'password', 'clientId', 'clientSecret'] as const).filter((field) => !credentials[field]);
  if (missing.length) {
    throw new Error(`The sandbox's credentials secret ${secretArn} lacks ${missing.join(', ')}: the BankSandbox's Credentials resource fills it at create; redeploy, or put all of apiKey, password, clientId and clientSecret in it.`);
  }
  return {
    collection: { apiKey: credentials.apiKey!, username: credentials.username ?? defaultUsername(account), password: credentials.password! },
    payments: { clientId: credentials.clientId!, clientSecret: credentials.clientSecret! },
  };
}

/** A CloudFormation custom resource event, as CloudFormation sends it to a function. */
export interface CloudFormationEvent {
  readonly RequestType: 'Create' | 'Update' | 'Delete';
  readonly ResponseURL: string;
  readonly StackId: string;
  readonly RequestId: string;
  readonly LogicalResourceId: string;
  readonly PhysicalResourceId?: string;
  readonly ResourceProperties: Record<string, unknown>;
}

export function isCloudFormationEvent(event: unknown): event is CloudFormationEvent {
  const e = event as Partial<CloudFormationEvent> | null;
  return !!e && typeof e.RequestType === 'string' && typeof e.ResponseURL === 'string';
}

export interface CredentialsResourceDeps {
  readonly secrets: SecretsManagerClient;
  readonly account: SandboxAccount;
  readonly log: Log;
  /** Sends CloudFormation's answer (a PUT of JSON to the pre-signed ResponseURL). */
  readonly respond: (url: string, body: string) => Promise<void>;
}

/**
 * Create fills the secret with new credentials unless it already holds a full set (a retried
 * create keeps what the receiver may have read); update keeps them; delete leaves the secret to
 * its own removal. Answers CloudFormation itself: a failure is answered FAILED with the reason.
 */
export async function credentialsResource(event: CloudFormationEvent, deps: CredentialsResourceDeps): Promise<void> {
  const given = event.ResourceProperties[SANDBOX_CREDENTIALS_PROPERTY];
  const secretArn = typeof given === 'string' ? given : '';
  let status: 'SUCCESS' | 'FAILED' = 'SUCCESS';
  let reason: string | undefined;
  try {
    if (!secretArn) throw new Error(`The credentials resource needs the property ${SANDBOX_CREDENTIALS_PROPERTY}.`);
    if (event.RequestType !== 'Delete') {
      const current = await deps.secrets.send(new GetSecretValueCommand({ SecretId: secretArn }));
      let held: BankCredentials = {};
      try {
        held = JSON.parse(current.SecretString ?? '{}') as BankCredentials;
      } catch {
        held = {};
      }
      const complete = !!(held.apiKey && held.password && held.clientId && held.clientSecret);
      if (!complete) {
        await deps.secrets.send(new PutSecretValueCommand({ SecretId: secretArn, SecretString: JSON.stringify(newSandboxCredentials(deps.account)) }));
        deps.log.info('Filled the sandbox credentials secret', { secretArn });
      }
    }
  } catch (error) {
    status = 'FAILED';
    reason = `The sandbox's credentials resource failed: ${errorMessage(error)}`;
    deps.log.error(reason, { secretArn });
  }
  await deps.respond(event.ResponseURL, JSON.stringify({
    Status: status,
    Reason: reason ?? 'OK',
    PhysicalResourceId: event.PhysicalResourceId ?? `${event.LogicalResourceId}-${secretArn.split(':').pop() ?? 'credentials'}`,
    StackId: event.StackId,
    RequestId: event.RequestId,
    LogicalResourceId: event.LogicalResourceId,
    Data: { SecretArn: secretArn },
  }));
}
