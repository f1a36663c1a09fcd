import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { PaymentType } from '../shared/bank-connection';
import { BankApiError } from '../shared/bank-errors';
import { sleep } from '../shared/retry';
import { type ProcessorSettings, ProcessorDefaults, ProcessorMetric } from '../shared/processor-contract';
import { decodeStoredNotification, type StoredNotification } from '../shared/receiver-contract';
import { type BoletoEventItem, identifier, type NotificationItem, parseNotification, type PaymentItem } from './parse';
import { boletoEventKey, type Verdict, verifyBoletoEvent, verifyPayment } from './verify';

/** The bank queries the processor makes (BankClient fits). */
export interface BankQueries {
  queryBoleto(codigoBeneficiario: string, nossoNumero: string, deadline: number): Promise<Record<string, unknown>>;
  queryPayment(type: PaymentType, idTransacao: string, deadline: number): Promise<Record<string, unknown>>;
}

/** One verified change, as published. */
export interface VerifiedEvent {
  readonly detailType: string;
  readonly detail: VerifiedEventDetail;
}

export interface VerifiedEventDetail {
  readonly version: 1;
  readonly idempotencyKey: string;
  /** Whether the bank's answer agrees with the notification. */
  readonly matchesNotification: boolean;
  readonly mismatches: string[];
  /** The verified status (boleto `situacao` or payment `status`) and its configured class. */
  readonly status: string;
  readonly statusClass: string;
  readonly boleto?: { readonly codigoBeneficiario: string; readonly nossoNumero: string; readonly movimento: string; readonly idEventoWebhook: string };
  readonly payment?: { readonly type: PaymentType; readonly idTransacao: string; readonly notifiedStatus: string };
  /** The query's answer: the truth this event reports. */
  readonly verified: Record<string, unknown>;
  /** The notification (one boleto event, or the payment) as received. */
  readonly notification: Record<string, unknown>;
  /** When the receiver got the notification, and API Gateway's request id. */
  readonly receivedAt: string;
  readonly requestId: string;
  readonly verifiedAt: string;
  /** Receives of the message it took (1 the first time). */
  readonly attempt: number;
}

export interface ProcessorLogger {
  info(message: string, ...extra: Record<string, unknown>[]): void;
  warn(message: string, ...extra: Record<string, unknown>[]): void;
  error(message: string, ...extra: Record<string, unknown>[]): void;
}

export interface ProcessorDeps {
  readonly settings: ProcessorSettings;
  readonly bank: BankQueries;
  /** The account's beneficiary code, for boleto events that do not name one. */
  readonly codigoBeneficiario: string;
  /** Publishes one event; throws when it was not accepted. */
  readonly publish: (event: VerifiedEvent) => Promise<void>;
  /** Puts the message in the dead-letter queue with a reason; throws when it could not. */
  readonly quarantine: (record: SQSRecord, reason: string) => Promise<void>;
  /**
   * Runs `work` once per key: a key already completed skips it (`duplicate: true`); a key in
   * progress elsewhere throws IdempotencyAlreadyInProgressError (the processor waits a little for
   * the other invocation, then lets the record be retried later).
   */
  readonly once: (key: string, work: () => Promise<void>) => Promise<{ duplicate: boolean }>;
  readonly logger: ProcessorLogger;
  /** Counts a metric; `details` are written in the same line (not dimensions). */
  readonly count: (metric: string, dimensions?: Record<string, string>, details?: Record<string, string>) => void;
  /** @default Date.now */
  readonly now?: () => number;
  /** Records of a batch handled at once. @default ProcessorDefaults.recordConcurrency */
  readonly recordConcurrency?: number;
}

/** The part of Lambda's context the processor uses. */
export interface InvocationContext {
  getRemainingTimeInMillis(): number;
}

/** The bank's query does not (yet) reflect the notification; the record is retried later. */
class VerificationPending extends Error {
  constructor(readonly verdict: Verdict) {
    super(`the bank does not confirm it yet: ${verdict.mismatches.join('; ')}`);
    this.name = 'VerificationPending';
  }
}

/** The message cannot be processed, ever: quarantine it. */
class Unprocessable extends Error {}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Runs `fn` over `items` with at most `limit` calls in flight. */
export async function mapConcurrently<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await fn(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/**
 * Handles one SQS batch of stored notifications: each item is verified with the bank's query
 * API and published once as a verified event. Answers which records failed, so SQS retries only
 * those (`reportBatchItemFailures`). What cannot be understood is quarantined with a reason.
 */
export async function processBatch(event: SQSEvent, context: InvocationContext, deps: ProcessorDeps): Promise<SQSBatchResponse> {
  const now = deps.now ?? Date.now;
  const deadline = now() + context.getRemainingTimeInMillis() - deps.settings.safetyMarginMs;
  const failures: string[] = [];
  await mapConcurrently(event.Records, deps.recordConcurrency ?? ProcessorDefaults.recordConcurrency, async (record) => {
    try {
      await processRecord(record, deadline, deps);
    } catch (error) {
      failures.push(record.messageId);
      logFailure(record, error, deps);
    }
  });
  return { batchItemFailures: failures.map((itemIdentifier) => ({ itemIdentifier })) };
}

function logFailure(record: SQSRecord, error: unknown, deps: ProcessorDeps): void {
  const context = { messageId: record.messageId, receiveCount: receiveCount(record), reason: errorText(error) };
  if (error instanceof VerificationPending) {
    deps.count(ProcessorMetric.VERIFICATION_RETRIES);
    deps.logger.info('The bank does not confirm the notification yet; it will be retried', context);
  } else if (error instanceof BankApiError) {
    deps.count(ProcessorMetric.BANK_FAILURES);
    deps.logger.warn('A bank call failed; the notification will be retried', { ...context, operation: error.operation, status: error.status, attempts: error.attempts });
  } else if (error instanceof Error && error.name === 'IdempotencyAlreadyInProgressError') {
    deps.logger.info('The same change is being processed by another invocation; it will be retried', context);
  } else {
    deps.logger.error('Processing failed; the notification will be retried', context);
  }
}

function receiveCount(record: SQSRecord): number {
  const count = Number(record.attributes?.ApproximateReceiveCount);
  return Number.isFinite(count) && count > 0 ? count : 1;
}

async function quarantine(record: SQSRecord, reason: string, deps: ProcessorDeps): Promise<void> {
  await deps.quarantine(record, reason);
  deps.count(ProcessorMetric.QUARANTINED);
  deps.logger.error('Notification quarantined in the dead-letter queue', { messageId: record.messageId, reason });
}

async function processRecord(record: SQSRecord, deadline: number, deps: ProcessorDeps): Promise<void> {
  let stored: StoredNotification;
  let body: Buffer;
  try {
    ({ notification: stored, body } = decodeStoredNotification(record.body));
  } catch (error) {
    await quarantine(record, errorText(error), deps);
    return;
  }
  const parsed = parseNotification(stored.route, body, deps.settings.boletoMovements);
  const errors: unknown[] = [];
  const unprocessable: string[] = [...parsed.problems];
  // Items one after the other: an array's events usually concern the same boletos.
  for (const item of parsed.items) {
    try {
      await processItem(item, stored, record, deadline, deps);
    } catch (error) {
      if (error instanceof Unprocessable) unprocessable.push(error.message);
      else errors.push(error);
    }
  }
  // Retry what can succeed later before quarantining; a quarantined message is never retried.
  if (errors.length) throw errors[0];
  if (unprocessable.length) await quarantine(record, unprocessable.join(' | '), deps);
}

async function processItem(item: NotificationItem, stored: StoredNotification, record: SQSRecord, deadline: number, deps: ProcessorDeps): Promise<void> {
  const attempt = receiveCount(record);
  const lastAttempt = attempt >= deps.settings.maxVerificationAttempts;
  if (item.kind === 'boleto-event') {
    // The key is known before asking the bank: a duplicate costs no query.
    const key = boletoEventKey(item.idEventoWebhook);
    const { duplicate } = await onceAwaitingPeer(key, async () => {
      const codigoBeneficiario = item.beneficiario ?? deps.codigoBeneficiario;
      const resultado = await queryOrGiveUp(() => deps.bank.queryBoleto(codigoBeneficiario, item.nossoNumero, deadline), lastAttempt);
      const verdict = verifyBoletoEvent(item, resultado, deps.settings.boletoStatuses);
      if (!verdict.matches && !lastAttempt) throw new VerificationPending(verdict);
      await publishVerdict(verdict, item, resultado, stored, attempt, deps);
    }, deadline, deps);
    if (duplicate) countDuplicate(key, deps);
    return;
  }
  const answer = await queryOrGiveUp(() => deps.bank.queryPayment(item.type, item.idTransacao, deadline), lastAttempt);
  const verdict = verifyPayment(item, answer, deps.settings.paymentStatuses);
  if (!verdict.matches && !lastAttempt) throw new VerificationPending(verdict);
  // Checked before claiming the key: the key holds the verified status.
  const { duplicate } = await onceAwaitingPeer(verdict.idempotencyKey, () => publishVerdict(verdict, item, answer, stored, attempt, deps), deadline, deps);
  if (duplicate) countDuplicate(verdict.idempotencyKey, deps);
}

/** How long a record waits, inside the invocation, for another invocation that holds its key. */
export const PEER_WAIT_MS = 5_000;

/**
 * `deps.once`, waiting when another invocation holds the key (IN_PROGRESS): the bank sends
 * duplicates at the same moment, and the copy that lost the race would otherwise come back only
 * after the queue's visibility timeout. Polls with a doubling pause (100 ms to 1 s) for up to
 * PEER_WAIT_MS and never past the deadline; then the error stands and the record is retried.
 */
async function onceAwaitingPeer(key: string, work: () => Promise<void>, deadline: number, deps: ProcessorDeps): Promise<{ duplicate: boolean }> {
  const now = deps.now ?? Date.now;
  const giveUpAt = Math.min(deadline, now() + PEER_WAIT_MS);
  for (let pause = 100; ; pause = Math.min(pause * 2, 1_000)) {
    try {
      return await deps.once(key, work);
    } catch (error) {
      const inProgress = error instanceof Error && error.name === 'IdempotencyAlreadyInProgressError';
      if (!inProgress || now() + pause > giveUpAt) throw error;
      await sleep(pause);
    }
  }
}

function countDuplicate(key: string, deps: ProcessorDeps): void {
  deps.count(ProcessorMetric.DUPLICATES);
  deps.logger.info('Duplicate suppressed: this change was already published', { idempotencyKey: key });
}

/**
 * Asks the bank. A 404 means the query does not know the change (yet): retried like a
 * disagreeing answer, and quarantined on the last attempt, since there is nothing verified to
 * publish.
 */
async function queryOrGiveUp(query: () => Promise<Record<string, unknown>>, lastAttempt: boolean): Promise<Record<string, unknown>> {
  try {
    return await query();
  } catch (error) {
    if (error instanceof BankApiError && error.status === 404 && lastAttempt) {
      throw new Unprocessable(`the bank's query does not know it after every verification attempt: ${error.message}`);
    }
    throw error;
  }
}

async function publishVerdict(
  verdict: Verdict, item: NotificationItem, verified: Record<string, unknown>, stored: StoredNotification, attempt: number, deps: ProcessorDeps,
): Promise<void> {
  const detail: VerifiedEventDetail = {
    version: 1,
    idempotencyKey: verdict.idempotencyKey,
    matchesNotification: verdict.matches,
    mismatches: verdict.mismatches,
    status: verdict.status,
    statusClass: verdict.statusClass,
    ...(item.kind === 'boleto-event' ? { boleto: boletoIds(item, verified) } : { payment: paymentIds(item) }),
    verified,
    notification: item.raw,
    receivedAt: stored.receivedAt,
    requestId: stored.requestId,
    verifiedAt: new Date((deps.now ?? Date.now)()).toISOString(),
    attempt,
  };
  try {
    await deps.publish({ detailType: verdict.detailType, detail });
  } catch (error) {
    deps.count(ProcessorMetric.PUBLISH_FAILURES);
    throw error;
  }
  // A confirmed event's count is its log record: one line per verified event (see metricCounter).
  deps.count(ProcessorMetric.PUBLISHED, { DetailType: verdict.detailType }, verdict.matches ? { message: 'Verified event published', idempotencyKey: verdict.idempotencyKey, status: verdict.status } : {});
  if (!verdict.matches) {
    deps.count(ProcessorMetric.NOT_CONFIRMED);
    deps.logger.warn('Published what the bank says; it does not match the notification', { idempotencyKey: verdict.idempotencyKey, detailType: verdict.detailType, mismatches: verdict.mismatches });
  }
}

function boletoIds(item: BoletoEventItem, verified: Record<string, unknown>): VerifiedEventDetail['boleto'] {
  const codigo = identifier(verified.codigoBeneficiario) ?? item.beneficiario ?? '';
  return { codigoBeneficiario: codigo, nossoNumero: item.nossoNumero, movimento: item.movimento, idEventoWebhook: item.idEventoWebhook };
}

function paymentIds(item: PaymentItem): VerifiedEventDetail['payment'] {
  return { type: item.type, idTransacao: item.idTransacao, notifiedStatus: item.status };
}
