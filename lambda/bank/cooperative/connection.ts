/**
 * Reads what the constructs hand the handlers about the bank (contracts/bank-connection.ts):
 * the connection settings and the credentials secret's value.
 */
import {
  ACCOUNT_FIELD_PATTERN,
  ACCOUNT_FIELDS,
  BANK_CONNECTION_ENV,
  type BankConnectionSettings,
  type BankCredentials,
  ClientCredentialsAuth,
  CREDENTIAL_FIELDS,
  expandBankConnection,
  PAYMENT_TYPES,
  ZuluTimestamps,
} from '../../../contracts/bank-connection';
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { cachedSecret, credentialsObject } from '../base/cached-secret';
import { secrets } from '../../shared/redaction';
import { readSettings, type SettingsSource, settingsFix } from '../../shared/settings';

/**
 * Reads the credentials secret's value. The error names fields, never values, so it can be
 * logged and shown.
 */
export function parseBankCredentials(secretString: string | undefined, secretArn: string): BankCredentials {
  const what = `Bank credentials secret ${secretArn}`;
  const { record, problems } = credentialsObject(
    secretString,
    CREDENTIAL_FIELDS,
    what,
    '{"apiKey": "...", "password": "...", "clientId": "...", "clientSecret": "..."} (see docs/usage.md of cdk-bank-webhooks)',
  );
  if (!!record.clientCertificate !== !!record.clientKey)
    problems.push('clientCertificate and clientKey go together: set both or neither');
  if (problems.length) throw new Error(`${what} is invalid: ${problems.join('; ')}`);
  return record;
}

/** Reads and checks the connection settings a construct (`setBy`) put in the environment. */
export function readBankConnection(env: NodeJS.ProcessEnv, setBy: string): BankConnectionSettings {
  return parseBankConnection(env[BANK_CONNECTION_ENV], { where: BANK_CONNECTION_ENV, setBy });
}

/** The settings with the defaults a function's environment leaves out filled back (what is not a JSON object is left for readSettings to refuse). */
function withDefaults(raw: string | undefined): string | Record<string, unknown> | undefined {
  if (!raw) return raw;
  try {
    const parsed: unknown = JSON.parse(raw);
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? expandBankConnection(parsed) : raw;
  } catch {
    return raw;
  }
}

/**
 * Reads and checks the JSON of {@link BankConnectionSettings} a construct wrote: every field (a
 * custom resource's properties), or without the fields equal to their defaults (a function's
 * environment, contracts/bank-connection.ts `compactBankConnection`), which are filled back.
 * `source` names its place (an environment variable, a custom resource property) and the
 * construct that writes it, in errors.
 */
export function parseBankConnection(raw: string | undefined, source: SettingsSource): BankConnectionSettings {
  const { where } = source;
  const fix = settingsFix(source);
  const settings = readSettings<BankConnectionSettings>(withDefaults(raw), source, {
    strings: [
      'baseUrl',
      'registrationBaseUrl',
      'collectionTokenUrl',
      'paymentsTokenUrl',
      'collectionScope',
      'paymentsScope',
      'credentialsSecretArn',
      'boletoQueryPath',
      'settledBoletosPath',
    ],
    objects: ['account', 'paymentQueryPaths', 'paymentQueryScopes'],
  });
  // Each account field goes into a header or a query: a malformed one would be retried at the bank forever.
  const badAccount = ACCOUNT_FIELDS.filter((key) => {
    const value: unknown = settings.account[key];
    return typeof value !== 'string' || !ACCOUNT_FIELD_PATTERN.test(value);
  });
  if (badAccount.length) {
    throw new Error(
      `${where}: ${badAccount.map((key) => `account.${key} ${JSON.stringify(settings.account[key]) ?? 'undefined'}`).join(', ')} must be 1 to 20 letters, digits or hyphens ${fix}`,
    );
  }
  const numbers = (
    ['callTimeoutMs', 'queriesPerSecond', 'registrationCallsPerSecond', 'listingPageSize'] as const
  ).filter((key) => !(typeof settings[key] === 'number' && settings[key] > 0));
  const auth = Object.values(ClientCredentialsAuth).includes(settings.paymentsClientAuth) ? [] : ['paymentsClientAuth'];
  const zulu = Object.values(ZuluTimestamps).includes(settings.zuluTimestamps) ? [] : ['zuluTimestamps'];
  const scopes = PAYMENT_TYPES.filter((kind) => {
    const value: unknown = settings.paymentQueryScopes[kind];
    return typeof value !== 'string' || !value.trim();
  }).map((kind) => `paymentQueryScopes.${kind}`);
  const invalid = [...numbers, ...auth, ...zulu, ...scopes];
  if (invalid.length) throw new Error(`${where}: ${invalid.join(', ')} missing or invalid ${fix}`);
  return settings;
}

/** Loads the credentials secret and keeps its value for `ttlMs`; a failed reload reuses the last value. */
export function credentialsFromSecret(
  client: SecretsManagerClient,
  secretArn: string,
  ttlMs = 300_000,
  now: () => number = Date.now,
): () => Promise<BankCredentials> {
  return cachedSecret(
    client,
    secretArn,
    (text) => {
      const value = parseBankCredentials(text, secretArn);
      secrets.remember(value.apiKey, value.password, value.clientSecret, value.clientKey);
      return value;
    },
    ttlMs,
    now,
  );
}
