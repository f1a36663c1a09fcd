import { ReceiverDefaults, ReceiverEnv } from '../../contracts/receiver';

/** What the receiver works on: its queue and the two token secrets. */
export interface ReceiverResources {
  readonly queueUrl: string;
  readonly paymentsTokenSecretArn: string;
  readonly boletoTokenSecretArn: string;
}

/** How it works, where it differs from the defaults. */
export interface ReceiverTuning {
  readonly boletoTokenHeader?: string;
  readonly maxBodyBytes?: number;
  readonly tokenCacheTtlMs?: number;
  readonly enqueueBudgetMs?: number;
}

/**
 * The receiver function's environment, every default filled: the one place they are resolved
 * (the construct writes it; the bench and the bundle tests use the same).
 */
export function receiverEnvironment(resources: ReceiverResources, tuning: ReceiverTuning = {}): Record<string, string> {
  return {
    [ReceiverEnv.QUEUE_URL]: resources.queueUrl,
    [ReceiverEnv.PAYMENTS_TOKEN_SECRET_ARN]: resources.paymentsTokenSecretArn,
    [ReceiverEnv.BOLETO_TOKEN_SECRET_ARN]: resources.boletoTokenSecretArn,
    [ReceiverEnv.BOLETO_TOKEN_HEADER]: tuning.boletoTokenHeader ?? ReceiverDefaults.boletoTokenHeader,
    [ReceiverEnv.MAX_BODY_BYTES]: String(tuning.maxBodyBytes ?? ReceiverDefaults.maxBodyBytes),
    [ReceiverEnv.TOKEN_CACHE_TTL_MS]: String(tuning.tokenCacheTtlMs ?? ReceiverDefaults.tokenCacheTtlMs),
    [ReceiverEnv.ENQUEUE_BUDGET_MS]: String(tuning.enqueueBudgetMs ?? ReceiverDefaults.enqueueBudgetMs),
  };
}
