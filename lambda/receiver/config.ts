import { MAX_BODY_BYTES_LIMIT, ReceiverEnv } from '../../contracts/receiver';

export interface ReceiverConfig {
  readonly queueUrl: string;
  readonly paymentsTokenSecretArn: string;
  readonly boletoTokenSecretArn: string;
  readonly boletoTokenHeader: string;
  readonly maxBodyBytes: number;
  readonly tokenCacheTtlMs: number;
  readonly enqueueBudgetMs: number;
}

function positiveInteger(env: NodeJS.ProcessEnv, name: string, max: number, problems: string[]): number {
  const raw = env[name];
  if (raw === undefined || raw === '') {
    problems.push(`${name} is not set`);
    return 0;
  }
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1 || value > max) problems.push(`${name} must be a whole number from 1 to ${max}, got "${raw}"`);
  return value;
}

/**
 * Reads the receiver's settings from the environment the construct sets, every default filled
 * (the handler applies none). Throws one error that
 * names every missing or malformed variable, so a misconfigured function fails at its first
 * invocation with a message that says what to fix.
 */
export function readReceiverConfig(env: NodeJS.ProcessEnv): ReceiverConfig {
  const problems: string[] = [];
  const required = (name: string): string => {
    const value = env[name];
    if (!value) problems.push(`${name} is not set`);
    return value ?? '';
  };
  const config: ReceiverConfig = {
    queueUrl: required(ReceiverEnv.QUEUE_URL),
    paymentsTokenSecretArn: required(ReceiverEnv.PAYMENTS_TOKEN_SECRET_ARN),
    boletoTokenSecretArn: required(ReceiverEnv.BOLETO_TOKEN_SECRET_ARN),
    boletoTokenHeader: required(ReceiverEnv.BOLETO_TOKEN_HEADER),
    maxBodyBytes: positiveInteger(env, ReceiverEnv.MAX_BODY_BYTES, MAX_BODY_BYTES_LIMIT, problems),
    tokenCacheTtlMs: positiveInteger(env, ReceiverEnv.TOKEN_CACHE_TTL_MS, 3_600_000, problems),
    enqueueBudgetMs: positiveInteger(env, ReceiverEnv.ENQUEUE_BUDGET_MS, 9_000, problems),
  };
  if (problems.length > 0) {
    throw new Error(`Receiver configuration is invalid (these are set by the BankWebhookReceiver construct; redeploy it rather than editing them): ${problems.join('; ')}`);
  }
  return config;
}
