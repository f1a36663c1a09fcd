import { GetSecretValueCommand, ResourceNotFoundException, type SecretsManagerClient, type SecretsManagerClientConfig } from '@aws-sdk/client-secrets-manager';

/** Secrets Manager client settings that keep a token fetch inside a short budget. */
export function secretsClientConfig(budgetMs: number): SecretsManagerClientConfig {
  return {
    maxAttempts: 2,
    requestHandler: { connectionTimeout: Math.max(100, Math.floor(budgetMs / 3)), requestTimeout: Math.max(200, Math.floor(budgetMs / 2)) },
  };
}

async function stageValue(client: SecretsManagerClient, secretArn: string, stage: string, signal: AbortSignal): Promise<string | undefined> {
  try {
    const result = await client.send(new GetSecretValueCommand({ SecretId: secretArn, VersionStage: stage }), { abortSignal: signal });
    return result.SecretString;
  } catch (error) {
    // A secret that is not being rotated has no AWSPENDING version.
    if (stage === 'AWSPENDING' && error instanceof ResourceNotFoundException) return undefined;
    throw error;
  }
}

/**
 * The token values a secret accepts now: AWSCURRENT, plus AWSPENDING while a rotation is under
 * way, so that the bank's calls with either value are accepted during a rotation. The secret's
 * SecretString is the token itself. Empty values are dropped (they never authenticate anyone).
 */
export async function loadAcceptedTokens(client: SecretsManagerClient, secretArn: string, budgetMs: number): Promise<string[]> {
  const signal = AbortSignal.timeout(budgetMs);
  const [current, pending] = await Promise.all([
    stageValue(client, secretArn, 'AWSCURRENT', signal),
    stageValue(client, secretArn, 'AWSPENDING', signal),
  ]);
  if (!current) throw new Error(`Secret ${secretArn} has no AWSCURRENT string value: store the token as the secret's plain text value`);
  return pending && pending !== current ? [current, pending] : [current];
}
