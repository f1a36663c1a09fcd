import { GetSecretValueCommand, ResourceNotFoundException, type SecretsManagerClient, type SecretsManagerClientConfig } from '@aws-sdk/client-secrets-manager';
import { budgetedClientConfig } from './runtime';
import { secrets } from './redaction';

/** The versions of a token secret that are accepted: the current value, and the next one while a rotation is under way. */
export type TokenStage = 'AWSCURRENT' | 'AWSPENDING';

/** Secrets Manager client settings that keep a token fetch inside a short budget. */
export function secretsClientConfig(budgetMs: number): SecretsManagerClientConfig {
  return budgetedClientConfig(budgetMs, 2);
}

/**
 * The token value of one stage of a secret, as a list of zero or one value. The secret's
 * SecretString is the token itself. AWSCURRENT must hold a non-empty value. AWSPENDING is absent
 * unless a rotation is under way, and then gives no value; an empty value is dropped (it never
 * authenticates anyone).
 */
export async function loadStageToken(client: SecretsManagerClient, secretArn: string, stage: TokenStage, budgetMs: number): Promise<string[]> {
  let value: string | undefined;
  try {
    value = (await client.send(new GetSecretValueCommand({ SecretId: secretArn, VersionStage: stage }), { abortSignal: AbortSignal.timeout(budgetMs) })).SecretString;
  } catch (error) {
    // A secret that is not being rotated has no AWSPENDING version.
    if (stage === 'AWSPENDING' && error instanceof ResourceNotFoundException) return [];
    throw error;
  }
  if (!value && stage === 'AWSCURRENT') throw new Error(`Secret ${secretArn} has no AWSCURRENT string value: store the token as the secret's plain text value`);
  secrets.remember(value);
  return value ? [value] : [];
}

/**
 * The token values a secret accepts now: AWSCURRENT, plus AWSPENDING while a rotation is under
 * way and differs from it (last), both read at once.
 */
export async function loadAcceptedTokens(client: SecretsManagerClient, secretArn: string, budgetMs: number): Promise<string[]> {
  const [current, pending] = await Promise.all([
    loadStageToken(client, secretArn, 'AWSCURRENT', budgetMs),
    loadStageToken(client, secretArn, 'AWSPENDING', budgetMs),
  ]);
  return [...new Set([...current, ...pending])];
}
