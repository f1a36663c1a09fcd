import {
  GetSecretValueCommand,
  type SecretsManagerClient,
  type SecretsManagerClientConfig,
} from '@aws-sdk/client-secrets-manager';
import { budgetedClientConfig, isErrorNamed } from './runtime';
import { secrets } from './redaction';

/** The versions of a token secret that are accepted: the current value, and the next one while a rotation is under way. */
export type TokenStage = 'AWSCURRENT' | 'AWSPENDING';

/** Secrets Manager client settings that keep a token fetch inside a short budget. */
export function secretsClientConfig(budgetMs: number): SecretsManagerClientConfig {
  return budgetedClientConfig(budgetMs, 2);
}

/** One version of a secret by stage or id (errors propagate), its value remembered for redaction; undefined when it holds no string. */
async function readVersion(
  client: SecretsManagerClient,
  secretArn: string,
  which: { readonly VersionStage: string } | { readonly VersionId: string },
  budgetMs: number,
): Promise<{ value: string; versionId?: string } | undefined> {
  const answer = await client.send(new GetSecretValueCommand({ SecretId: secretArn, ...which }), {
    abortSignal: AbortSignal.timeout(budgetMs),
  });
  if (!answer.SecretString) return undefined;
  secrets.remember(answer.SecretString);
  return { value: answer.SecretString, versionId: answer.VersionId };
}

const isMissing = (error: unknown) => isErrorNamed(error, 'ResourceNotFoundException');
const noCurrentValue = (secretArn: string) =>
  new Error(`Secret ${secretArn} has no AWSCURRENT string value: store the token as the secret's plain text value`);

/**
 * The token value of one stage of a secret, as a list of zero or one value. The secret's
 * SecretString is the token itself. AWSCURRENT must hold a non-empty value. AWSPENDING is absent
 * unless a rotation is under way, and then gives no value; an empty value is dropped (it never
 * authenticates anyone).
 */
export async function loadStageToken(
  client: SecretsManagerClient,
  secretArn: string,
  stage: TokenStage,
  budgetMs: number,
): Promise<string[]> {
  let version: { value: string } | undefined;
  try {
    version = await readVersion(client, secretArn, { VersionStage: stage }, budgetMs);
  } catch (error) {
    // A secret that is not being rotated has no AWSPENDING version.
    if (stage === 'AWSPENDING' && isMissing(error)) return [];
    throw error;
  }
  if (!version && stage === 'AWSCURRENT') throw noCurrentValue(secretArn);
  return version ? [version.value] : [];
}

/**
 * The token values a secret accepts now: AWSCURRENT, plus AWSPENDING while a rotation is under
 * way and differs from it (last), both read at once.
 */
export async function loadAcceptedTokens(
  client: SecretsManagerClient,
  secretArn: string,
  budgetMs: number,
): Promise<string[]> {
  const [current, pending] = await Promise.all([
    loadStageToken(client, secretArn, 'AWSCURRENT', budgetMs),
    loadStageToken(client, secretArn, 'AWSPENDING', budgetMs),
  ]);
  return [...new Set([...current, ...pending])];
}

/** One version of a token secret: its value and version id. */
export interface TokenVersion {
  readonly value: string;
  readonly versionId: string;
}

/**
 * One version of a secret, by staging label or version id; undefined when the secret has no such
 * version (no rotation under way, or a version Secrets Manager has since removed).
 */
export async function loadTokenVersion(
  client: SecretsManagerClient,
  secretArn: string,
  which: { readonly stage: TokenStage } | { readonly versionId: string },
  budgetMs: number,
): Promise<TokenVersion | undefined> {
  try {
    const version = await readVersion(
      client,
      secretArn,
      'stage' in which ? { VersionStage: which.stage } : { VersionId: which.versionId },
      budgetMs,
    );
    return version?.versionId ? { value: version.value, versionId: version.versionId } : undefined;
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

/**
 * The version to register with the bank: AWSPENDING while a rotation is under way (the receiver
 * already accepts it, and it is the value about to become current), else AWSCURRENT.
 */
export async function loadTokenToRegister(
  client: SecretsManagerClient,
  secretArn: string,
  budgetMs: number,
): Promise<TokenVersion> {
  const version =
    (await loadTokenVersion(client, secretArn, { stage: 'AWSPENDING' }, budgetMs)) ??
    (await loadTokenVersion(client, secretArn, { stage: 'AWSCURRENT' }, budgetMs));
  if (!version) throw noCurrentValue(secretArn);
  return version;
}
