/**
 * The deployed bank simulator (BankSandbox): the bank's API through the function URL, the control
 * API by Lambda Invoke, and the credentials custom resource. Wiring only.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { Context, LambdaFunctionURLEvent, LambdaFunctionURLResult } from 'aws-lambda';
import {
  SANDBOX_ENV,
  type SandboxAccount,
  type SandboxControlEvent,
  type SandboxControlResult,
  SandboxDefaults,
} from '../../contracts/sandbox';
import { deliverNotification } from '../../simulator/notifier';
import { replyBody } from '../../simulator/reply';
import { credentialsFromSecret } from '../bank/cooperative';
import { pixCredentialsFromSecret } from '../bank/pix';
import { createLogger } from '../shared/logger';
import { credentialsResource, isCloudFormationEvent, simulatorCredentials } from './credentials';
import { SandboxHost } from './host';
import { SandboxStateStore } from './state-store';

const log = createLogger('bank-sandbox');
const required = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: the BankSandbox construct sets it; redeploy the stack.`);
  return value;
};
const tableName = required(SANDBOX_ENV.TABLE_NAME);
const secretArn = required(SANDBOX_ENV.CREDENTIALS_SECRET_ARN);
const accounts = JSON.parse(required(SANDBOX_ENV.ACCOUNTS)) as SandboxAccount[];
const secrets = new SecretsManagerClient({});
const readCredentials = credentialsFromSecret(secrets, secretArn, 60_000);
// The Pix application's secret (a sandbox deployed before it had one has none: its Pix token endpoint then refuses every client).
const pixSecretArn = process.env[SANDBOX_ENV.PIX_CREDENTIALS_SECRET_ARN] || undefined;
const readPixCredentials = pixSecretArn ? pixCredentialsFromSecret(secrets, pixSecretArn, 60_000) : undefined;

const host = new SandboxHost({
  store: new SandboxStateStore(new DynamoDBClient({}), tableName),
  credentials: async () =>
    simulatorCredentials(await readCredentials(), accounts[0], secretArn, await readPixCredentials?.()),
  credentialsSecretArn: secretArn,
  ...(pixSecretArn ? { pixCredentialsSecretArn: pixSecretArn } : {}),
  accounts,
  tokenLifetimeSeconds: Number(process.env[SANDBOX_ENV.TOKEN_LIFETIME_SECONDS] ?? SandboxDefaults.tokenLifetimeSeconds),
  deliver: deliverNotification,
  log,
});

const isControl = (event: unknown): event is SandboxControlEvent =>
  !!(event as Partial<SandboxControlEvent> | null)?.sandboxControl;
const isFunctionUrl = (event: unknown): event is LambdaFunctionURLEvent =>
  !!(event as Partial<LambdaFunctionURLEvent> | null)?.requestContext?.http;

export async function handler(
  event: unknown,
  context: Context,
): Promise<LambdaFunctionURLResult | SandboxControlResult | void> {
  if (isCloudFormationEvent(event)) {
    return credentialsResource(event, {
      secrets,
      account: accounts[0],
      log,
      respond: async (url, body) => {
        const answer = await fetch(url, { method: 'PUT', body, headers: { 'content-type': '' } });
        if (!answer.ok) throw new Error(`CloudFormation refused the answer: HTTP ${answer.status}`);
      },
    });
  }
  if (isControl(event)) {
    const { method, path, body } = event.sandboxControl;
    return host.control(String(method ?? ''), String(path ?? ''), body, context.getRemainingTimeInMillis());
  }
  if (isFunctionUrl(event)) {
    const raw =
      event.body === undefined ? Buffer.alloc(0) : Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8');
    const reply = await host.request(
      {
        method: event.requestContext.http.method,
        url: event.rawPath + (event.rawQueryString ? `?${event.rawQueryString}` : ''),
        headers: Object.fromEntries(
          Object.entries(event.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]),
        ),
        body: raw,
        certificate: { presented: false, trusted: false },
      },
      `https://${event.requestContext.domainName}`,
    );
    const { body, contentType } = replyBody(reply);
    return {
      statusCode: reply.status,
      headers: { ...(contentType ? { 'content-type': contentType } : {}), ...reply.headers },
      body,
      isBase64Encoded: false,
    };
  }
  throw new Error(
    'The sandbox function takes a function URL request, a control call ({"sandboxControl": {"method", "path", "body"}}) or its credentials custom resource event.',
  );
}
