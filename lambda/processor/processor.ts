import { createHash } from 'node:crypto';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { BankAccount, PaymentType } from '../../contracts/bank-connection';
import { BankApiError } from '../bank/errors';
import { OutOfRate } from '../bank/pacing';
import { type BankEventDetail, BankEventDetailType, type BoletoSettledDetail, type BoletoSettlementReversedDetail, type EventAccount, type EventNotification, EventTrigger, EVENT_DETAIL_VERSION, MAX_DETAIL_BYTES, type NotificationClaim, type NotificationNotConfirmedDetail, type OmittedPart, type PaymentKind, StatusClass, SubjectKind, type EventSubject, type VerifiedState } from '../../contracts/events';
import { sleep } from '../shared/retry';
import { type ProcessorSettings, ProcessorDefaults, ProcessorMetric } from '../../contracts/processor';
import { decodeStoredNotification, encodeStoredNotification } from '../store/stored-notification';
import { type StoredNotification } from '../../contracts/receiver';
import {
  publicState, type SubjectState, boletoChanges, boletoClaim, boletoState, type Change, type ClaimCheck, checkBoletoClaim, checkPaymentClaim, paymentChanges, paymentClaim, paymentState,
} from '../bank/state';
import { decodeLookRequest, encodeLookRequest, subjectIdOf } from '../store/look-request';
import { type LookRequest, type LookSubject } from '../../contracts/reconciliation';
import { answerNames, identifier } from '../bank/answers';
import { type NotificationItem, parseNotification } from '../bank/notification';
import { mapConcurrently } from '../shared/concurrency';
import { HISTORY_LIMIT, newOutboxId, type Outbox, type OutboxEntry, SEEN_LIMIT, type SubjectStore } from '../store/subject-store';
import { type Log, errorMessage } from '../shared/runtime';

/** The bank queries the processor makes (BankClient fits). */
export interface BankQueries {
  queryBoleto(codigoBeneficiario: string, nossoNumero: string, deadline: number): Promise<Record<string, unknown>>;
  queryPayment(type: PaymentType, idTransacao: string, deadline: number): Promise<Record<string, unknown>>;
}

/** One event to publish: its detail as JSON text. */
export type PublishEntry = OutboxEntry;

export interface ProcessorDeps {
  readonly settings: ProcessorSettings;
  /** This receiver's account: the only beneficiary it queries, and the account its events carry. */
  readonly account: BankAccount;
  readonly bank: BankQueries;
  readonly store: SubjectStore;
  /** Publishes the entries (all of them, or throws). */
  readonly publish: (entries: readonly PublishEntry[]) => Promise<void>;
  /** Puts the message in the dead-letter queue with a reason; throws when it could not. */
  readonly quarantine: (record: SQSRecord, reason: string) => Promise<void>;
  /**
   * Sends a message body to the queue the processor reads (what an invocation had no time or no
   * bank rate for), visible after `delaySeconds` (0 to 900).
   */
  readonly requeue: (messageBody: string, delaySeconds: number) => Promise<void>;
  readonly logger: Log;
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

/** The bank's query does not (yet) show what notifications claim; the record is retried later. */
class VerificationPending extends Error {
  constructor(mismatches: readonly string[]) {
    super(`the bank does not confirm it yet: ${mismatches.join('; ')}`);
    this.name = 'VerificationPending';
  }
}

/** Another invocation is publishing the subject's outbox; the record is retried later. */
class PeerInProgress extends Error {
  constructor(subjectId: string) {
    super(`another invocation is publishing a change of ${subjectId}`);
    this.name = 'PeerInProgress';
  }
}

/** The message can never be processed: quarantine it. */
class Unprocessable extends Error {}

/**
 * Handles one SQS batch of stored notifications. Each notification is a reason to look: the
 * subject it names is queried, and every change of the bank's state since the subject's last
 * published state is published once, whatever the notification said. Answers which records
 * failed, so SQS retries only those (`reportBatchItemFailures`).
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
  const context = { messageId: record.messageId, receiveCount: receiveCount(record), reason: errorMessage(error) };
  if (error instanceof VerificationPending) {
    deps.count(ProcessorMetric.VERIFICATION_RETRIES);
    deps.logger.info('The bank does not confirm the notification yet; it will be retried', context);
  } else if (error instanceof BankApiError) {
    deps.count(ProcessorMetric.BANK_FAILURES);
    deps.logger.warn('A bank call failed; the notification will be retried', { ...context, operation: error.operation, status: error.status, attempts: error.attempts });
  } else if (error instanceof PeerInProgress) {
    deps.logger.info('The same change is being published by another invocation; it will be retried', context);
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

/** The least time worth starting a subject with: less, and it is left for a new message. */
const MIN_SUBJECT_MS = 1_000;

/** What one message asks to look at: its items grouped by subject, in order of first mention. */
interface SubjectGroup {
  readonly id: string;
  readonly kind: SubjectKind;
  /** What the bank is asked about. */
  readonly target: LookSubject;
  /** The notifications about it (none for a look request). */
  readonly items: NotificationItem[];
}

function groupBySubject(items: readonly NotificationItem[], codigoBeneficiario: string): SubjectGroup[] {
  const groups = new Map<string, SubjectGroup>();
  for (const item of items) {
    const target: LookSubject = item.kind === 'boleto-event'
      ? { kind: 'boleto', nossoNumero: item.nossoNumero }
      : { kind: 'payment', paymentKind: item.type, idTransacao: item.idTransacao };
    const group = groups.get(subjectIdOf(target, codigoBeneficiario)) ?? groupOf(target, codigoBeneficiario);
    group.items.push(item);
    groups.set(group.id, group);
  }
  return [...groups.values()];
}

function groupOf(target: LookSubject, codigoBeneficiario: string): SubjectGroup {
  return { id: subjectIdOf(target, codigoBeneficiario), kind: target.kind === 'boleto' ? SubjectKind.BOLETO : SubjectKind.PAYMENT, target, items: [] };
}

async function processRecord(record: SQSRecord, deadline: number, deps: ProcessorDeps): Promise<void> {
  let request: LookRequest | undefined;
  try {
    request = decodeLookRequest(record.body);
  } catch (error) {
    await quarantine(record, errorMessage(error), deps);
    return;
  }
  if (request) await processLookRequest(record, request, deadline, deps);
  else await processNotification(record, deadline, deps);
}

/**
 * A look request (the reconciliation sweep's, or a Track Payment event): the subject is queried
 * and every change since its last published state is published, with the request's trigger and
 * no notification. Lack of rate sends it back delayed, as for a notification.
 */
async function processLookRequest(record: SQSRecord, request: LookRequest, deadline: number, deps: ProcessorDeps): Promise<void> {
  const now = deps.now ?? Date.now;
  const attempt = receiveCount(record);
  const look: Look = { request, attempt, lastVerification: attempt >= deps.settings.maxVerificationAttempts, deadline, deps };
  try {
    await lookAt(groupOf(request.subject, deps.account.codigoBeneficiario), look);
  } catch (error) {
    const requestedAt = Date.parse(request.requestedAt);
    if (error instanceof OutOfRate && !(Number.isFinite(requestedAt) && now() - requestedAt > ProcessorDefaults.queueRetentionSeconds * 1000)) {
      const delaySeconds = Math.min(MAX_DELAY_SECONDS, Math.max(0, Math.ceil((error.retryAt - now()) / 1000)));
      await deps.requeue(encodeLookRequest(request), delaySeconds);
      deps.count(ProcessorMetric.DEFERRED_FOR_RATE);
      return;
    }
    if (error instanceof Unprocessable) {
      await quarantine(record, `${request.reason}: ${error.message}`, deps);
      return;
    }
    if (attempt >= deps.settings.maxReceiveCount) {
      await quarantine(record, `failed on its last receive (${attempt} of ${deps.settings.maxReceiveCount}): ${errorMessage(error)}`, deps);
      return;
    }
    throw error;
  }
}

async function processNotification(record: SQSRecord, deadline: number, deps: ProcessorDeps): Promise<void> {
  const now = deps.now ?? Date.now;
  let stored: StoredNotification;
  let body: Buffer;
  try {
    ({ notification: stored, body } = decodeStoredNotification(record.body));
  } catch (error) {
    await quarantine(record, errorMessage(error), deps);
    return;
  }
  let content: Buffer;
  try {
    content = decodeContent(body, stored.contentEncoding);
  } catch (error) {
    await quarantine(record, errorMessage(error), deps);
    return;
  }
  const parsed = parseNotification(stored.route, content, deps.settings.boletoMovements);
  const unprocessable: string[] = [...parsed.problems];
  const ours = deps.account.codigoBeneficiario;
  const items = parsed.items.filter((item) => {
    if (item.kind === 'boleto-event' && item.beneficiario !== undefined && item.beneficiario !== ours) {
      unprocessable.push(`boleto event ${item.idEventoWebhook} names beneficiary ${item.beneficiario}, not this receiver's ${ours}: it is not ours to verify`);
      return false;
    }
    return true;
  });
  const attempt = receiveCount(record);
  const look: Look = { stored, attempt, lastVerification: attempt >= deps.settings.maxVerificationAttempts, deadline, deps };
  const errors: Error[] = [];
  const pending: string[] = [];
  const leftover: NotificationItem[] = [];
  /** When the bank's rate has a slot again, if a subject found none (epoch ms). */
  let rateFreeAt: number | undefined;
  let done = 0;
  for (const group of groupBySubject(items, ours)) {
    if (leftover.length || deadline - now() < MIN_SUBJECT_MS) {
      leftover.push(...group.items);
      continue;
    }
    try {
      pending.push(...await lookAt(group, look));
      done++;
    } catch (error) {
      if (error instanceof Unprocessable) unprocessable.push(error.message);
      // No slot of the bank's rate before the deadline: lack of rate is never a failure (it
      // would walk the message to the dead-letter queue); the subject waits in a new message.
      // Only a message older than the queues' retention stops coming back this way.
      else if (error instanceof OutOfRate && !tooOldToDefer(stored, now())) {
        leftover.push(...group.items);
        rateFreeAt = Math.max(rateFreeAt ?? 0, error.retryAt);
      }
      // A subject the deadline cut short, after others were done, is left for the new message:
      // lack of time is not a failure. With no progress at all, it is one (a bank too slow for
      // any look must reach the dead-letter queue, not loop).
      else if (done > 0 && (deadline - now() < MIN_SUBJECT_MS || (error instanceof BankApiError && error.outOfTime))) leftover.push(...group.items);
      else errors.push(error instanceof Error ? error : new Error(String(error)));
    }
  }
  if (errors.length || pending.length) {
    const error = errors[0] ?? new VerificationPending(pending);
    // The last receive: what is still failing goes to quarantine with its reason, not to the DLQ without one.
    if (attempt >= deps.settings.maxReceiveCount) {
      await quarantine(record, [`failed on its last receive (${attempt} of ${deps.settings.maxReceiveCount}): ${errorMessage(error)}`, ...unprocessable].join(' | '), deps);
      return;
    }
    // Retry what can succeed later before quarantining; what was published is skipped next time.
    throw error;
  }
  if (leftover.length) {
    const delaySeconds = rateFreeAt === undefined ? 0 : Math.min(MAX_DELAY_SECONDS, Math.max(0, Math.ceil((rateFreeAt - now()) / 1000)));
    await deps.requeue(encodeStoredNotification(metaOf(stored), Buffer.from(JSON.stringify(leftover.map((item) => item.raw)))), delaySeconds);
    deps.count(ProcessorMetric.REQUEUED);
    if (rateFreeAt !== undefined) deps.count(ProcessorMetric.DEFERRED_FOR_RATE);
    deps.logger.info(rateFreeAt === undefined
      ? 'No time left for every event of the notification; the rest was sent again as a new message'
      : 'No slot of the bank\'s rate before the deadline; the rest was sent again as a new message, delayed until the rate frees up',
    { messageId: record.messageId, requestId: stored.requestId, events: leftover.length, delaySeconds });
  }
  if (unprocessable.length) await quarantine(record, unprocessable.join(' | '), deps);
}

/** SQS's longest message delay. */
const MAX_DELAY_SECONDS = 900;

/** A message received longer ago than the queues keep one: deferring it again would keep it forever. */
function tooOldToDefer(stored: StoredNotification, now: number): boolean {
  const receivedAt = Date.parse(stored.receivedAt);
  return Number.isFinite(receivedAt) && now - receivedAt > ProcessorDefaults.queueRetentionSeconds * 1000;
}

/** Largest body a compressed notification may expand to. */
const MAX_DECODED_BYTES = 5 * 1024 * 1024;

/** The body as the bank meant it: decompressed when the request had a Content-Encoding (gzip, deflate, br). */
export function decodeContent(body: Buffer, contentEncoding: string | undefined): Buffer {
  const encoding = (contentEncoding ?? '').trim().toLowerCase();
  const options = { maxOutputLength: MAX_DECODED_BYTES };
  try {
    if (!encoding || encoding === 'identity') return body;
    if (encoding === 'gzip' || encoding === 'x-gzip') return gunzipSync(body, options);
    if (encoding === 'deflate') return inflateSync(body, options);
    if (encoding === 'br') return brotliDecompressSync(body, options);
  } catch (error) {
    throw new Error(`the notification's Content-Encoding ${encoding} could not be decoded (${errorMessage(error)}; at most ${MAX_DECODED_BYTES} bytes)`, { cause: error });
  }
  throw new Error(`the notification's Content-Encoding "${encoding.slice(0, 40)}" is not one the processor reads (gzip, deflate, br)`);
}

function metaOf(stored: StoredNotification) {
  const { v: _v, bodyEncoding: _e, body: _b, ...meta } = stored;
  return meta;
}

interface Look {
  /** The notification that made the processor look (or the look request). */
  readonly stored?: StoredNotification;
  readonly request?: LookRequest;
  readonly attempt: number;
  readonly lastVerification: boolean;
  readonly deadline: number;
  readonly deps: ProcessorDeps;
}

/** Each item's fingerprint, made once (it is read by the skip check, the record and the events). */
const fingerprints = new WeakMap<NotificationItem, { id: string; value: string }>();

/** A notification's id and a hash of its body: a re-delivery of the very same notification has the same. */
function fingerprint(item: NotificationItem): { id: string; value: string } {
  let print = fingerprints.get(item);
  if (!print) {
    const id = item.kind === 'boleto-event' ? item.idEventoWebhook : item.status;
    const hash = createHash('sha256').update(JSON.stringify(item.raw)).digest('base64url').slice(0, 22);
    print = { id, value: `${id}#${hash}` };
    fingerprints.set(item, print);
  }
  return print;
}

/** How many times a subject's record is read again after a concurrent write before the record is retried. */
const MAX_ROUNDS = 5;

/**
 * Looks at one subject for the notifications of one message: skips what was already handled,
 * asks the bank once, publishes every change since the last published state, and settles each
 * notification's claim. Answers the mismatches of claims still waiting for the bank (query lag).
 */
async function lookAt(group: SubjectGroup, look: Look): Promise<string[]> {
  const { deps } = look;
  let answer: Record<string, unknown> | undefined;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const record = await deps.store.read(group.id);
    if (record.outbox) {
      await settleOutbox(group.id, record.outbox, look);
      continue;
    }
    const fresh = group.items.filter((item) => {
      const print = fingerprint(item);
      if (record.seen.includes(print.value)) {
        deps.count(ProcessorMetric.DUPLICATES);
        deps.logger.info('Duplicate suppressed: this notification was already handled', { subject: group.id, notificationId: print.id });
        return false;
      }
      if (record.seen.some((seen) => seen.startsWith(`${print.id}#`))) {
        deps.logger.warn('The bank sent a notification id again with another body; it is verified on its own', { subject: group.id, notificationId: print.id });
      }
      return true;
    });
    if (!fresh.length && !look.request) return [];
    answer ??= await query(group, look);
    const verified = group.kind === SubjectKind.BOLETO
      ? boletoState(answer, deps.settings.boletoStatuses)
      : paymentState(answer, deps.settings.paymentStatuses);
    const changes = group.kind === SubjectKind.BOLETO ? boletoChanges(record.state, verified) : paymentChanges(record.state, verified);
    const history = [...record.history, ...changes.map((c) => c.key)];
    const checks = fresh.map((item) => ({ item, ...claimOf(item, verified.state, history, deps) }));
    const settled = checks.filter((c) => c.check.holds || look.lastVerification);
    const entries: OutboxEntry[] = [];
    changes.forEach((change, i) => {
      // The notification the change is told with: the first whose claim it bears out, else the first.
      const told = checks.find((c) => c.claim.statusClass === change.state.statusClass) ?? checks[0];
      entries.push(changeEntry(group, change, record.sequence + i + 1, told, answer!, look));
    });
    for (const c of settled.filter((s) => !s.check.holds)) entries.push(notConfirmedEntry(group, c, record.sequence + changes.length, verified.state, answer, look));
    // The outbox travels in the subject's item (DynamoDB takes 400 KB): several large details
    // keep everything but their raw bodies, as one too large for EventBridge does.
    if (entries.reduce((total, e) => total + e.detail.length, 0) > MAX_OUTBOX_CHARS) {
      entries.forEach((e, i) => { entries[i] = { ...e, detail: fitDetail(JSON.parse(e.detail) as BankEventDetail, 0) }; });
    }
    const seen = [...record.seen, ...settled.map((c) => fingerprint(c.item).value)].slice(-SEEN_LIMIT);
    const known = verified.state.statusClass !== StatusClass.UNKNOWN;
    const stateChanged = known && JSON.stringify(verified.state) !== JSON.stringify(record.state);
    const state = known ? verified.state : record.state;
    const pendingSince = isPendingPayment(group, state) ? record.pendingSince ?? (deps.now ?? Date.now)() : undefined;
    if (entries.length || stateChanged || settled.length || pendingSince !== record.pendingSince) {
      const outbox: Outbox | undefined = entries.length ? { id: newOutboxId(), leaseUntil: look.deadline, entries } : undefined;
      const written = await deps.store.write(group.id, record.version, {
        sequence: record.sequence + changes.length,
        state,
        history: history.slice(-HISTORY_LIMIT),
        seen,
        ...(outbox ? { outbox } : {}),
        ...(pendingSince !== undefined ? { pendingSince } : {}),
      });
      if (!written) continue;
      if (outbox) await publishOutbox(group.id, outbox, look);
    }
    return checks.filter((c) => !c.check.holds && !look.lastVerification).flatMap((c) => c.check.mismatches);
  }
  throw new Error(`the record of ${group.id} kept changing under this invocation (${MAX_ROUNDS} reads); it will be retried`);
}

/** A payment whose last known state is not final: the sweep queries it again until it is. */
function isPendingPayment(group: SubjectGroup, state: SubjectState | undefined): boolean {
  return group.kind === SubjectKind.PAYMENT && (!state || state.statusClass === StatusClass.PENDING || state.statusClass === StatusClass.UNKNOWN);
}

interface CheckedItem {
  readonly item: NotificationItem;
  readonly claim: NotificationClaim;
  readonly check: ClaimCheck;
}

function claimOf(item: NotificationItem, state: SubjectState, history: readonly string[], deps: ProcessorDeps): Omit<CheckedItem, 'item'> {
  if (item.kind === 'boleto-event') {
    const claim = boletoClaim(item);
    return { claim, check: checkBoletoClaim(claim, state, history) };
  }
  const claim = paymentClaim(item, deps.settings.paymentStatuses);
  return { claim, check: checkPaymentClaim(claim, state, history) };
}

/**
 * Asks the bank about the subject: only this receiver's beneficiary for boletos. A 403 or 404 is
 * retried like query lag and final on the last verification attempt; an answer about another
 * beneficiary is never ours.
 */
async function query(group: SubjectGroup, look: Look): Promise<Record<string, unknown>> {
  const { deps } = look;
  const target = group.target;
  try {
    if (target.kind === 'boleto') {
      const ours = deps.account.codigoBeneficiario;
      const answer = await deps.bank.queryBoleto(ours, target.nossoNumero, look.deadline);
      const named = identifier(answer.codigoBeneficiario);
      if (named !== ours) {
        throw new Unprocessable(`the bank's answer for nossoNumero ${target.nossoNumero} ${named ? `belongs to beneficiary ${named}` : 'names no codigoBeneficiario'}, not this receiver's ${ours}: nothing is published for it`);
      }
      if (!answerNames(answer, 'nossoNumero', target.nossoNumero)) throw new Error(`the bank answered for nossoNumero ${identifier(answer.nossoNumero)}, not ${target.nossoNumero}`);
      return answer;
    }
    const answer = await deps.bank.queryPayment(target.paymentKind, target.idTransacao, look.deadline);
    if (!answerNames(answer, 'idTransacao', target.idTransacao)) throw new Error(`the bank answered for idTransacao ${identifier(answer.idTransacao)}, not ${target.idTransacao}`);
    return answer;
  } catch (error) {
    if (error instanceof BankApiError && (error.status === 404 || error.status === 403) && look.lastVerification) {
      throw new Unprocessable(`the bank's query refuses it after every verification attempt: ${error.message}`);
    }
    throw error;
  }
}

/**
 * An outbox found on a subject: another invocation is publishing it (wait for it, up to
 * PEER_WAIT_MS and never past the deadline), or one that crashed or failed left it (take it
 * over and publish it: the same events, with the same idempotency keys).
 */
async function settleOutbox(subjectId: string, outbox: Outbox, look: Look): Promise<void> {
  const { deps } = look;
  const now = deps.now ?? Date.now;
  if (outbox.leaseUntil > now()) {
    const giveUpAt = Math.min(look.deadline, now() + PEER_WAIT_MS, outbox.leaseUntil);
    for (let pause = 100; ; pause = Math.min(pause * 2, 1_000)) {
      if (now() + pause > giveUpAt) {
        if (now() < outbox.leaseUntil) throw new PeerInProgress(subjectId);
        break;
      }
      await sleep(pause);
      const current = await deps.store.read(subjectId);
      if (current.outbox?.id !== outbox.id || current.outbox.leaseUntil !== outbox.leaseUntil) return;
    }
  }
  if (await deps.store.takeOutbox(subjectId, outbox, look.deadline)) {
    deps.logger.warn('Publishing events another invocation wrote but did not finish publishing', { subject: subjectId, events: outbox.entries.length });
    await publishOutbox(subjectId, { ...outbox, leaseUntil: look.deadline }, look);
  }
}

/** How long a record waits, inside the invocation, for another invocation publishing the same subject. */
export const PEER_WAIT_MS = 5_000;

async function publishOutbox(subjectId: string, outbox: Outbox, look: Look): Promise<void> {
  const { deps } = look;
  try {
    await deps.publish(outbox.entries);
  } catch (error) {
    deps.count(ProcessorMetric.PUBLISH_FAILURES);
    // Give the lease up so a retry need not wait for it.
    await deps.store.takeOutbox(subjectId, outbox, 0).catch(() => false);
    throw error;
  }
  for (const entry of outbox.entries) {
    const detail = JSON.parse(entry.detail) as { idempotencyKey: string; state: VerifiedState; trigger: EventTrigger };
    if (entry.detailType === BankEventDetailType.NOTIFICATION_NOT_CONFIRMED) {
      deps.count(ProcessorMetric.NOT_CONFIRMED);
      deps.logger.warn('The bank never showed what a notification claimed: published as Notification Not Confirmed', { idempotencyKey: detail.idempotencyKey });
    } else {
      // A published change's count is its log record: one line per verified event (see metricCounter).
      deps.count(ProcessorMetric.PUBLISHED, { DetailType: entry.detailType }, { message: 'Verified event published', idempotencyKey: detail.idempotencyKey, status: detail.state.status, trigger: detail.trigger });
      // A change the sweep found before any notification told of it: a webhook the bank lost.
      if (detail.trigger === EventTrigger.RECONCILIATION) {
        deps.count(ProcessorMetric.RECOVERED);
        deps.logger.warn('Recovered by reconciliation: the bank never delivered a notification of this change', { idempotencyKey: detail.idempotencyKey, reason: look.request?.reason });
      }
    }
  }
  await deps.store.clearOutbox(subjectId, outbox.id);
}

function accountOf(kind: SubjectKind, account: BankAccount): EventAccount {
  return kind === SubjectKind.BOLETO
    ? { cooperativa: account.cooperativa, posto: account.posto, codigoBeneficiario: account.codigoBeneficiario }
    : { cooperativa: account.cooperativa, posto: account.posto, conta: account.conta };
}

function subjectOf(group: SubjectGroup, sequence: number, account: BankAccount): EventSubject {
  const target = group.target;
  return target.kind === 'boleto'
    ? { kind: SubjectKind.BOLETO, id: group.id, sequence, nossoNumero: target.nossoNumero, codigoBeneficiario: account.codigoBeneficiario }
    : { kind: SubjectKind.PAYMENT, id: group.id, sequence, paymentKind: target.paymentKind as PaymentKind, idTransacao: target.idTransacao };
}

function notificationOf(c: CheckedItem, stored: StoredNotification | undefined): EventNotification {
  return { receivedAt: stored?.receivedAt ?? '', requestId: stored?.requestId ?? '', id: fingerprint(c.item).id, claim: c.claim, body: c.item.raw };
}

/** How the notification that told of a change compares with it (nothing when a look request found it). */
function toldBy(told: CheckedItem | undefined, change: Change, look: Look): Pick<BankEventDetail, 'matchesNotification' | 'mismatches' | 'notification'> {
  if (!told) return { mismatches: [] };
  const matches = told.claim.statusClass === change.state.statusClass && told.check.matches;
  return {
    matchesNotification: matches,
    mismatches: matches ? [] : told.check.mismatches.length ? told.check.mismatches : [`the notification claimed ${told.claim.status}; the bank's change is ${change.detailType}`],
    notification: notificationOf(told, look.stored),
  };
}

function changeEntry(group: SubjectGroup, change: Change, sequence: number, told: CheckedItem | undefined, answer: Record<string, unknown>, look: Look): OutboxEntry {
  const { deps } = look;
  const detail: BankEventDetail | BoletoSettledDetail | BoletoSettlementReversedDetail = {
    version: EVENT_DETAIL_VERSION,
    idempotencyKey: `${group.id}#${sequence}:${change.key}`,
    trigger: look.request?.trigger ?? EventTrigger.WEBHOOK,
    account: accountOf(group.kind, deps.account),
    subject: subjectOf(group, sequence, deps.account),
    state: publicState(change.state),
    ...(change.previous ? { previousState: publicState(change.previous) } : {}),
    ...(change.reverses ? { reverses: change.reverses } : {}),
    ...(change.detailType === BankEventDetailType.BOLETO_SETTLED && change.state.settlement ? { settlement: change.state.settlement } : {}),
    ...toldBy(told, change, look),
    bankAnswer: answer,
    verifiedAt: new Date((deps.now ?? Date.now)()).toISOString(),
    attempt: look.attempt,
  };
  return { detailType: change.detailType, detail: fitDetail(detail) };
}

function notConfirmedEntry(group: SubjectGroup, c: CheckedItem, sequence: number, state: SubjectState, answer: Record<string, unknown>, look: Look): OutboxEntry {
  const { deps } = look;
  const detail: NotificationNotConfirmedDetail = {
    version: EVENT_DETAIL_VERSION,
    idempotencyKey: `notification:${group.id}:${fingerprint(c.item).value}`,
    trigger: EventTrigger.WEBHOOK,
    account: accountOf(group.kind, deps.account),
    subject: subjectOf(group, sequence, deps.account),
    state: publicState(state),
    matchesNotification: false,
    mismatches: c.check.mismatches,
    bankAnswer: answer,
    notification: notificationOf(c, look.stored),
    verifiedAt: new Date((deps.now ?? Date.now)()).toISOString(),
    attempt: look.attempt,
  };
  return { detailType: BankEventDetailType.NOTIFICATION_NOT_CONFIRMED, detail: fitDetail(detail) };
}

function omitted(value: unknown): OmittedPart {
  const text = JSON.stringify(value);
  return { bytes: Buffer.byteLength(text), sha256: createHash('sha256').update(text).digest('hex') };
}

/** Most characters of event details one outbox holds (a subject's item must stay under DynamoDB's 400 KB). */
const MAX_OUTBOX_CHARS = 300_000;

/**
 * The detail as JSON text within EventBridge's entry limit (or `maxBytes`): a detail that would
 * not fit keeps everything but the raw notification and the bank's raw answer, whose size and
 * hash stay. A real change is never dropped for size.
 */
export function fitDetail(detail: BankEventDetail | BoletoSettledDetail | NotificationNotConfirmedDetail, maxBytes = MAX_DETAIL_BYTES): string {
  const text = JSON.stringify(detail);
  if (Buffer.byteLength(text) <= maxBytes) return text;
  const { bankAnswer, notification, ...rest } = detail;
  const { body, ...notificationRest } = notification ?? ({} as EventNotification);
  return JSON.stringify({
    ...rest,
    ...(bankAnswer !== undefined ? { bankAnswerOmitted: omitted(bankAnswer) } : {}),
    ...(notification ? { notification: { ...notificationRest, ...(body !== undefined ? { bodyOmitted: omitted(body) } : {}) } } : {}),
  });
}
