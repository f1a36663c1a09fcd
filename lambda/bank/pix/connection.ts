/**
 * Reads what the constructs hand the handlers about the Pix API (contracts/pix-connection.ts): the
 * connection's settings (only what differs from the defaults) and the Pix credentials secret.
 */
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { cachedSecret, credentialsObject } from '../base/cached-secret';
import {
  PIX_CONNECTION_ENV,
  type PixConnectionSettings,
  type PixCredentials,
  PixGrantTypePlacement,
  PixOperation,
} from '../../../contracts/pix-connection';
import { secrets } from '../../shared/redaction';
import { readSettings, type SettingsSource, settingsFix } from '../../shared/settings';

const CREDENTIAL_FIELDS = ['clientId', 'clientSecret', 'clientCertificate', 'clientKey', 'caCertificates'] as const;

/** The Pix connection a construct (`setBy`) put in the environment, checked; undefined when it put none (no Pix route). */
export function readPixConnection(env: NodeJS.ProcessEnv, setBy: string): PixConnectionSettings | undefined {
  const raw = env[PIX_CONNECTION_ENV];
  if (raw === undefined || raw === '') return undefined;
  return readPixConnectionSettings(raw, { where: PIX_CONNECTION_ENV, setBy });
}

/** The JSON of {@link PixConnectionSettings} a construct wrote (an environment variable, a custom resource property), checked. */
export function readPixConnectionSettings(raw: string | undefined, source: SettingsSource): PixConnectionSettings {
  const settings = readSettings<PixConnectionSettings>(raw, source, {
    strings: ['baseUrl', 'tokenUrl', 'credentialsSecretArn'],
  });
  const operations = Object.values(PixOperation) as string[];
  const problems = [
    ...(settings.grantType !== undefined && !Object.values(PixGrantTypePlacement).includes(settings.grantType)
      ? ['grantType']
      : []),
    ...(['paths', 'scopes'] as const).flatMap((field) =>
      Object.entries(settings[field] ?? {})
        .filter(([operation, value]) => !operations.includes(operation) || typeof value !== 'string' || !value)
        .map(([operation]) => `${field}.${operation}`),
    ),
    ...(settings.callTimeoutMs !== undefined &&
    !(typeof settings.callTimeoutMs === 'number' && settings.callTimeoutMs > 0)
      ? ['callTimeoutMs']
      : []),
    ...(settings.simulated !== undefined && typeof settings.simulated !== 'boolean' ? ['simulated'] : []),
  ];
  if (problems.length) throw new Error(`${source.where}: ${problems.join(', ')} invalid ${settingsFix(source)}`);
  return settings;
}

/** Reads the Pix credentials secret's value; the error names fields, never values. */
export function parsePixCredentials(secretString: string | undefined, secretArn: string): PixCredentials {
  const what = `Pix credentials secret ${secretArn}`;
  const { record, problems } = credentialsObject(
    secretString,
    CREDENTIAL_FIELDS,
    what,
    '{"clientId": "...", "clientSecret": "...", "clientCertificate": "-----BEGIN CERTIFICATE-----...", "clientKey": "..."} (docs/pix.md)',
  );
  if (problems.length) throw new Error(`${what} is invalid: ${problems.join('; ')}`);
  return record;
}

/** Loads the Pix credentials secret and keeps its value for `ttlMs`; a failed reload reuses the last value. */
export function pixCredentialsFromSecret(
  client: SecretsManagerClient,
  secretArn: string,
  ttlMs = 300_000,
  now: () => number = Date.now,
): () => Promise<PixCredentials> {
  return cachedSecret(
    client,
    secretArn,
    (text) => {
      const value = parsePixCredentials(text, secretArn);
      secrets.remember(value.clientSecret, value.clientKey);
      return value;
    },
    ttlMs,
    now,
  );
}
