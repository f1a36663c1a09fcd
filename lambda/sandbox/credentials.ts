/**
 * The sandbox's bank credentials: made once, when CloudFormation creates the credentials resource,
 * and written to the sandbox's secret (the receiver reads the same secret). The template, the
 * resource's properties and its response carry the secret's ARN only.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import {
  GetSecretValueCommand,
  PutSecretValueCommand,
  type SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import type { BankCredentials } from '../../contracts/bank-connection';
import type { PixCredentials } from '../../contracts/pix-connection';
import {
  SANDBOX_CREDENTIALS_PROPERTY,
  SANDBOX_PIX_CREDENTIALS_PROPERTY,
  type SandboxAccount,
} from '../../contracts/sandbox';
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

/**
 * New credentials of the sandbox's Pix application, in the Pix credentials secret's format
 * (docs/pix.md): a client id and secret, no client certificate (a function URL asks for none).
 */
export function newSandboxPixCredentials(): PixCredentials {
  return {
    clientId: `sandbox-pix-${randomBytes(4).toString('hex')}`,
    clientSecret: randomBytes(24).toString('base64url'),
  };
}

/**
 * The simulator's view of the secrets' credentials; throws naming the fields missing (never a
 * value). Without Pix credentials (a sandbox deployed before it had a Pix application) its Pix
 * token endpoint refuses every client.
 */
export function simulatorCredentials(
  credentials: BankCredentials,
  account: SandboxAccount,
  secretArn: string,
  pix?: PixCredentials,
): SimulatorCredentials {
  const missing = (['apiKey', 'password', 'clientId', 'clientSecret'] as const).filter((field) => !credentials[field]);
  if (missing.length) {
    throw new Error(
      `The sandbox's credentials secret ${secretArn} lacks ${missing.join(', ')}: the BankSandbox's Credentials resource fills it at create; redeploy, or put all of apiKey, password, clientId and clientSecret in it.`,
    );
  }
  return {
    collection: {
      apiKey: credentials.apiKey!,
      username: credentials.username ?? defaultUsername(account),
      password: credentials.password!,
    },
    payments: { clientId: credentials.clientId!, clientSecret: credentials.clientSecret! },
    ...(pix?.clientId && pix.clientSecret ? { pix: { clientId: pix.clientId, clientSecret: pix.clientSecret } } : {}),
  };
}

/** A secret's JSON value, or an empty object when it holds none (what Secrets Manager generated at create). */
async function heldJson(secrets: SecretsManagerClient, secretArn: string): Promise<Record<string, string | undefined>> {
  const current = await secrets.send(new GetSecretValueCommand({ SecretId: secretArn }));
  try {
    const value = JSON.parse(current.SecretString ?? '{}') as unknown;
    return value && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, string | undefined>)
      : {};
  } catch {
    return {};
  }
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
 * Create and update fill each secret (the bank's credentials; the Pix application's, when the
 * resource names its secret) with new credentials unless it already holds a full set (a retried
 * create, or an update, keeps what the receiver may have read); delete leaves the secrets to
 * their own removal. Answers CloudFormation itself: a failure is answered FAILED with the reason.
 */
export async function credentialsResource(event: CloudFormationEvent, deps: CredentialsResourceDeps): Promise<void> {
  const given = event.ResourceProperties[SANDBOX_CREDENTIALS_PROPERTY];
  const secretArn = typeof given === 'string' ? given : '';
  const pixGiven = event.ResourceProperties[SANDBOX_PIX_CREDENTIALS_PROPERTY];
  const pixSecretArn = typeof pixGiven === 'string' && pixGiven ? pixGiven : undefined;
  let status: 'SUCCESS' | 'FAILED' = 'SUCCESS';
  let reason: string | undefined;
  try {
    if (!secretArn) throw new Error(`The credentials resource needs the property ${SANDBOX_CREDENTIALS_PROPERTY}.`);
    if (event.RequestType !== 'Delete') {
      const held: BankCredentials = await heldJson(deps.secrets, secretArn);
      const complete = !!(held.apiKey && held.password && held.clientId && held.clientSecret);
      if (!complete) {
        await deps.secrets.send(
          new PutSecretValueCommand({
            SecretId: secretArn,
            SecretString: JSON.stringify(newSandboxCredentials(deps.account)),
          }),
        );
        deps.log.info('Filled the sandbox credentials secret', { secretArn });
      }
      if (pixSecretArn) {
        const pix: PixCredentials = await heldJson(deps.secrets, pixSecretArn);
        if (!(pix.clientId && pix.clientSecret)) {
          await deps.secrets.send(
            new PutSecretValueCommand({
              SecretId: pixSecretArn,
              SecretString: JSON.stringify(newSandboxPixCredentials()),
            }),
          );
          deps.log.info('Filled the sandbox Pix credentials secret', { secretArn: pixSecretArn });
        }
      }
    }
  } catch (error) {
    status = 'FAILED';
    reason = `The sandbox's credentials resource failed: ${errorMessage(error)}`;
    deps.log.error(reason, { secretArn });
  }
  await deps.respond(
    event.ResponseURL,
    JSON.stringify({
      Status: status,
      Reason: reason ?? 'OK',
      PhysicalResourceId:
        event.PhysicalResourceId ?? `${event.LogicalResourceId}-${secretArn.split(':').pop() ?? 'credentials'}`,
      StackId: event.StackId,
      RequestId: event.RequestId,
      LogicalResourceId: event.LogicalResourceId,
      Data: { SecretArn: secretArn, ...(pixSecretArn ? { PixSecretArn: pixSecretArn } : {}) },
    }),
  );
}
