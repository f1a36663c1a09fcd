/** A credentials secret read through Secrets Manager, kept for a while, parsed by its family. */
import { GetSecretValueCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';

/**
 * Loads a secret, parses it with `parse` (which registers its secret values for redaction) and
 * keeps the value for `ttlMs`; one load at a time; a failed reload reuses the last value.
 */
export function cachedSecret<T>(
  client: SecretsManagerClient,
  secretArn: string,
  parse: (secretString: string | undefined) => T,
  ttlMs: number,
  now: () => number,
): () => Promise<T> {
  let cached: { value: T; until: number } | undefined;
  let inflight: Promise<T> | undefined;
  return async () => {
    if (cached && now() < cached.until) return cached.value;
    inflight ??= (async () => {
      try {
        const result = await client.send(new GetSecretValueCommand({ SecretId: secretArn }), {
          abortSignal: AbortSignal.timeout(3_000),
        });
        const value = parse(result.SecretString);
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

/**
 * A credentials secret's JSON object, or why it is none; and its fields that are unknown or not
 * strings. Errors name fields, never values, so they can be logged and shown.
 */
export function credentialsObject(
  secretString: string | undefined,
  fields: readonly string[],
  what: string,
  example: string,
): { record: Record<string, unknown>; problems: string[] } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(secretString ?? '');
  } catch {
    throw new Error(`${what} is not JSON: store an object such as ${example}`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new Error(`${what} must hold a JSON object such as ${example}`);
  const record = parsed as Record<string, unknown>;
  const unknown = Object.keys(record).filter((key) => !fields.includes(key));
  const notStrings = fields.filter((key) => record[key] !== undefined && typeof record[key] !== 'string');
  return {
    record,
    problems: [
      ...(unknown.length ? [`unknown field(s) ${unknown.join(', ')} (known: ${fields.join(', ')})`] : []),
      ...(notStrings.length ? [`field(s) ${notStrings.join(', ')} must be strings`] : []),
    ],
  };
}
