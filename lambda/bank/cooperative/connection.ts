/**
 * Reads what the constructs hand the handlers about the bank (contracts/bank-connection.ts):
 * the connection settings and the credentials secret's value.
 */
import {
  ACCOUNT_FIELD_PATTERN, ACCOUNT_FIELDS, BANK_CONNECTION_ENV, type BankConnectionSettings, type BankCredentials, ClientCredentialsAuth, CREDENTIAL_FIELDS,
  expandBankConnection, PAYMENT_TYPES, ZuluTimestamps,
} from '../../../contracts/bank-connection';
import { GetSecretValueCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { secrets } from '../../shared/redaction';
import { readSettings, type SettingsSource, settingsFix } from '../../shared/settings';

/**
 * Reads the credentials secret's value. The error names fields, never values, so it can be
 * logged and shown.
 */
export function parseBankCredentials(secretString: string | undefined, secretArn: string): BankCredentials {
  let parsed: unknown;
  try {
    parsed = JSON.parse(secretString ?? '');
  } catch {
    throw new Error(`Bank credentials secret ${secretArn} is not JSON: store an object such as {"apiKey": "...", "password": "...", "clientId": "...", "clientSecret": "..."} (see docs/usage.md of cdk-bank-webhooks)`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new Error(`Bank credentials secret ${secretArn} must hold a JSON object (see docs/usage.md of cdk-bank-webhooks for its fields)`);
  }
  const record = parsed as Record<string, unknown>;
  const unknown = Object.keys(record).filter((key) => !(CREDENTIAL_FIELDS as readonly string[]).includes(key));
  const notStrings = CREDENTIAL_FIELDS.filter((key) => record[key] !== undefined && typeof record[key] !== 'string');
  const problems = [
    ...(unknown.length ? [`unknown field(s) ${unknown.join(', ')} (known: ${CREDENTIAL_FIELDS.join(', ')})`] : []),
    ...(notStrings.length ? [`field(s) ${notStrings.join(', ')} must be strings`] : []),
    ...(!!record.clientCertificate !== !!record.clientKey ? ['clientCertificate and clientKey go together: set both or neither'] : []),
  ];
  if (problems.length) throw new Error(`Bank credentials secret ${secretArn} is invalid: ${problems.join('; ')}`);
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
    strings: ['baseUrl', 'registrationBaseUrl', 'collectionTokenUrl', 'paymentsTokenUrl', 'collectionScope', 'paymentsScope', 'credentialsSecretArn', 'boletoQueryPath', 'settledBoletosPath'],
    objects: ['account', 'paymentQueryPaths', 'paymentQueryScopes'],
  });
  // Each account field goes into a header or a query: a malformed one would be retried at the bank forever.
  const badAccount = ACCOUNT_FIELDS.filter((key) => { const value: unknown = settings.account[key]; return typeof value !== 'string' || !ACCOUNT_FIELD_PATTERN.test(value); });
  if (badAccount.length) {
    throw new Error(`${where}: ${badAccount.map((key) => `account.${key} ${JSON.stringify(settings.account[key]) ?? 'undefined'}`).join(', ')} must be 1 to 20 letters, digits or hyphens ${fix}`);
  }
  const numbers = (['callTimeoutMs', 'queriesPerSecond', 'registrationCallsPerSecond', 'listingPageSize'] as const).filter((key) => !(typeof settings[key] === 'number' && settings[key] > 0));
  const auth = Object.values(ClientCredentialsAuth).includes(settings.paymentsClientAuth) ? [] : ['paymentsClientAuth'];
  const zulu = Object.values(ZuluTimestamps).includes(settings.zuluTimestamps) ? [] : ['zuluTimestamps'];
  const scopes = PAYMENT_TYPES.filter((kind) => { const value: unknown = settings.paymentQueryScopes[kind]; return typeof value !== 'string' || !value.trim(); })
    .map((kind) => `paymentQueryScopes.${kind}`);
  const invalid = [...numbers, ...auth, ...zulu, ...scopes];
  if (invalid.length) throw new Error(`${where}: ${invalid.join(', ')} missing or invalid ${fix}`);
  return settings;
}

/** Loads the credentials secret and keeps its value for `ttlMs`; a failed reload reuses the last value. */
export function credentialsFromSecret(client: SecretsManagerClient, secretArn: string, ttlMs = 300_000, now: () => number = Date.now): () => Promise<BankCredentials> {
  let cached: { value: BankCredentials; until: number } | undefined;
  let inflight: Promise<BankCredentials> | undefined;
  return async () => {
    if (cached && now() < cached.until) return cached.value;
    inflight ??= (async () => {
      try {
        const result = await client.send(new GetSecretValueCommand({ SecretId: secretArn }), { abortSignal: AbortSignal.timeout(3_000) });
        const value = parseBankCredentials(result.SecretString, secretArn);
        secrets.remember(value.apiKey, value.password, value.clientSecret, value.clientKey);
        cached = { value, until: now() + ttlMs };
        return value;
      } catch (error) {
        if (cached) return cached.value;
        throw error;
      } finally {
        inflight = undefined;
      }
    })();
    return inflight;
  };
}
