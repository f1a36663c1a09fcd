import {
  RECEIVER_SETTINGS_ENV,
  ReceiverDefaults,
  type ReceiverSettings,
  UNNAMED_RECEIVER,
} from '../../contracts/receiver';

/** What the receiver works on: its queue and the two token secrets. */
export type ReceiverResources = Pick<ReceiverSettings, 'queueUrl' | 'paymentsTokenSecretArn' | 'boletoTokenSecretArn'>;

/** How it works, where it differs from the defaults. */
export interface ReceiverTuning {
  readonly boletoTokenHeader?: string;
  readonly maxBodyBytes?: number;
  readonly tokenCacheTtlMs?: number;
  readonly enqueueBudgetMs?: number;
  /** @default UNNAMED_RECEIVER (a stack always names its receiver) */
  readonly receiverName?: string;
}

/**
 * The settings the receiver function gets, every default filled: the one place they are
 * resolved (the construct writes them; the bench and the bundle tests use the same).
 */
export function receiverSettings(resources: ReceiverResources, tuning: ReceiverTuning = {}): ReceiverSettings {
  return {
    queueUrl: resources.queueUrl,
    paymentsTokenSecretArn: resources.paymentsTokenSecretArn,
    boletoTokenSecretArn: resources.boletoTokenSecretArn,
    boletoTokenHeader: tuning.boletoTokenHeader ?? ReceiverDefaults.boletoTokenHeader,
    maxBodyBytes: tuning.maxBodyBytes ?? ReceiverDefaults.maxBodyBytes,
    tokenCacheTtlMs: tuning.tokenCacheTtlMs ?? ReceiverDefaults.tokenCacheTtlMs,
    enqueueBudgetMs: tuning.enqueueBudgetMs ?? ReceiverDefaults.enqueueBudgetMs,
    receiverName: tuning.receiverName ?? UNNAMED_RECEIVER,
  };
}

/** The receiver function's environment outside a stack (the bench, the bundle tests): its settings as JSON. */
export function receiverEnvironment(resources: ReceiverResources, tuning: ReceiverTuning = {}): Record<string, string> {
  return { [RECEIVER_SETTINGS_ENV]: JSON.stringify(receiverSettings(resources, tuning)) };
}
