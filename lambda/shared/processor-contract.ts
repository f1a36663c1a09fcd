/**
 * The contract between the `BankWebhookReceiver` construct and the settlement processor: the
 * settings the construct passes, their defaults, and what the processor publishes. Both sides
 * import this module.
 */

/** Environment variable holding the JSON of {@link ProcessorSettings}. */
export const PROCESSOR_SETTINGS_ENV = 'BANK_WEBHOOKS_PROCESSOR_SETTINGS';

/** Which boleto `situacao` texts (matched by prefix) mean what. */
export interface BoletoStatusMapping {
  readonly settled: readonly string[];
  readonly writtenOff: readonly string[];
  readonly rejected: readonly string[];
  readonly open: readonly string[];
}

/** Which boleto event `movimento` values (matched by prefix) mean what. */
export interface BoletoMovementMapping {
  readonly settlement: readonly string[];
  readonly reversal: readonly string[];
  readonly writeOff: readonly string[];
  readonly rejection: readonly string[];
}

/** Which payment `status` values (matched exactly) mean what. */
export interface PaymentStatusMapping {
  readonly settled: readonly string[];
  readonly pending: readonly string[];
  readonly rejected: readonly string[];
  readonly cancelled: readonly string[];
  readonly reversed: readonly string[];
}

export interface ProcessorSettings {
  readonly eventBusName: string;
  readonly eventSource: string;
  readonly idempotencyTableName: string;
  /** How long an idempotency record is kept, in seconds. */
  readonly idempotencyTtlSeconds: number;
  /** Where messages that cannot be understood are put, with a reason. */
  readonly quarantineQueueUrl: string;
  /** Receives of one message during which a disagreeing query answer is retried; then it is published as not matching. */
  readonly maxVerificationAttempts: number;
  /** Time kept free at the end of an invocation to report results, in milliseconds. */
  readonly safetyMarginMs: number;
  readonly boletoStatuses: BoletoStatusMapping;
  readonly boletoMovements: BoletoMovementMapping;
  readonly paymentStatuses: PaymentStatusMapping;
}

export const ProcessorDefaults = {
  eventSource: 'cdk-bank-webhooks',
  /** Longer than the queues' 14-day retention, so a message redriven from the DLQ cannot publish twice. */
  idempotencyTtlSeconds: 15 * 24 * 3600,
  maxVerificationAttempts: 3,
  safetyMarginMs: 2_000,
  /** Records of one batch verified at once (the bank rate-limits its query API). */
  recordConcurrency: 4,
  boletoStatuses: {
    settled: ['LIQUIDADO'],
    writtenOff: ['BAIXADO'],
    rejected: ['REJEITADO'],
    open: ['EM CARTEIRA', 'VENCIDO', 'A VENCER'],
  } satisfies BoletoStatusMapping,
  boletoMovements: {
    settlement: ['LIQUIDACAO', 'AVISO_PAGAMENTO'],
    reversal: ['ESTORNO'],
    writeOff: ['BAIXA'],
    rejection: ['REJEICAO'],
  } satisfies BoletoMovementMapping,
  paymentStatuses: {
    settled: ['EFETIVADO'],
    pending: ['RECEBIDO', 'AGENDADO', 'EM_PROCESSAMENTO'],
    rejected: ['REJEITADO'],
    cancelled: ['CANCELADO'],
    reversed: ['ESTORNADO', 'DEVOLVIDO'],
  } satisfies PaymentStatusMapping,
} as const;

/** The `detail-type` of every event the processor publishes. */
export const BankEventDetailType = {
  /** The bank confirms a boleto settlement (situacao LIQUIDADO…, amount as notified). */
  BOLETO_SETTLED: 'Boleto Settled',
  /** The bank confirms a settlement was reversed (ESTORNO_…): the boleto is no longer settled. */
  BOLETO_SETTLEMENT_REVERSED: 'Boleto Settlement Reversed',
  /** The bank confirms a boleto was written off (BAIXA). */
  BOLETO_WRITTEN_OFF: 'Boleto Written Off',
  /** The bank confirms a boleto was rejected. */
  BOLETO_REJECTED: 'Boleto Rejected',
  /** After every verification attempt, the bank still disagrees with a boleto event: what the bank says. */
  BOLETO_NOT_CONFIRMED: 'Boleto Notification Not Confirmed',
  /** A payment's status as the payment query answers it (`matchesNotification` says whether the notification agreed). */
  PAYMENT_STATUS_VERIFIED: 'Payment Status Verified',
} as const;

/** Metric names the processor emits (namespace METRICS_NAMESPACE). */
export const ProcessorMetric = {
  PUBLISHED: 'VerifiedEventsPublished',
  DUPLICATES: 'DuplicatesSuppressed',
  QUARANTINED: 'NotificationsQuarantined',
  NOT_CONFIRMED: 'NotificationsNotConfirmed',
  VERIFICATION_RETRIES: 'VerificationRetries',
  BANK_FAILURES: 'BankCallFailures',
  BANK_RETRIES: 'BankCallRetries',
  PUBLISH_FAILURES: 'PublishFailures',
} as const;

/** Message attributes of a quarantined message in the dead-letter queue. */
export const QuarantineAttribute = {
  REASON: 'QuarantineReason',
  AT: 'QuarantinedAt',
  SOURCE_MESSAGE_ID: 'SourceMessageId',
} as const;

/** Reads and checks the processor settings the construct put in the environment. */
export function readProcessorSettings(env: NodeJS.ProcessEnv): ProcessorSettings {
  const raw = env[PROCESSOR_SETTINGS_ENV];
  const fix = '(the construct sets it; redeploy rather than editing it)';
  if (!raw) throw new Error(`${PROCESSOR_SETTINGS_ENV} is not set ${fix}`);
  let parsed: Partial<ProcessorSettings>;
  try {
    parsed = JSON.parse(raw) as Partial<ProcessorSettings>;
  } catch {
    throw new Error(`${PROCESSOR_SETTINGS_ENV} is not JSON ${fix}`);
  }
  const missing = (['eventBusName', 'idempotencyTableName', 'quarantineQueueUrl'] as const).filter((key) => !parsed[key]);
  if (missing.length) throw new Error(`${PROCESSOR_SETTINGS_ENV} lacks ${missing.join(', ')} ${fix}`);
  return {
    eventBusName: parsed.eventBusName!,
    idempotencyTableName: parsed.idempotencyTableName!,
    quarantineQueueUrl: parsed.quarantineQueueUrl!,
    eventSource: parsed.eventSource || ProcessorDefaults.eventSource,
    idempotencyTtlSeconds: parsed.idempotencyTtlSeconds ?? ProcessorDefaults.idempotencyTtlSeconds,
    maxVerificationAttempts: parsed.maxVerificationAttempts ?? ProcessorDefaults.maxVerificationAttempts,
    safetyMarginMs: parsed.safetyMarginMs ?? ProcessorDefaults.safetyMarginMs,
    boletoStatuses: { ...ProcessorDefaults.boletoStatuses, ...parsed.boletoStatuses },
    boletoMovements: { ...ProcessorDefaults.boletoMovements, ...parsed.boletoMovements },
    paymentStatuses: { ...ProcessorDefaults.paymentStatuses, ...parsed.paymentStatuses },
  };
}

/** The idempotency table's layout (Powertools' idempotency records). */
export const IdempotencyTable = {
  /** Partition key (string). */
  KEY: 'id',
  /** TTL attribute (epoch seconds). */
  TTL: 'expiration',
  /** Prefix of every key, fixed so that replacing the function keeps the history. */
  KEY_PREFIX: 'cdk-bank-webhooks',
} as const;
