/**
 * The processor's batch: each SQS record is a stored notification or a look request; each is
 * read, grouped by subject and looked at (look.ts). What can never succeed is quarantined with its
 * reason; what lacked time or the bank's rate goes back to the queue as a new message; the rest
 * is retried by SQS (partial batch failures).
 */
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { ProcessorDefaults, ProcessorMetric } from '../../contracts/processor';
import type { StoredNotification } from '../../contracts/receiver';
import { BankApiError } from '../bank/errors';
import { Foreign, type SubjectItem } from '../bank/family';
import { familyOfRoute } from '../bank/families';
import { OutOfRate } from '../bank/pacing';
import { mapConcurrently } from '../shared/concurrency';
import { contextFromTraceparent, inSpan, recordTraceparent, SpanKind, trace } from '../shared/telemetry';
import { errorMessage } from '../shared/runtime';
import { PrefetchedSubjects } from '../store/subject-store';
import { encodeStoredNotification } from '../store/stored-notification';
import { type InvocationContext, type ProcessorDeps, ProcessorQueue } from './deps';
import { lookAt } from './look';
import { MAX_DELAY_SECONDS, processLookRequest } from './requested-look';
import { dropForeign, type Look, PeerInProgress, Unprocessable, VerificationPending } from './subject';
import { journalOf } from './journaling';
import { readRecord, type ReadRecord, subjectsNamed } from './read-record';
import { recordQuarantine } from './trail';

/**
 * Handles one SQS batch of stored notifications. Each notification is a reason to look: the
 * subject it names is queried, and every change of the bank's state since the subject's last
 * published state is published once, whatever the notification said. Answers which records
 * failed, so SQS retries only those (`reportBatchItemFailures`).
 */
export async function processBatch(
  event: SQSEvent,
  context: InvocationContext,
  deps: ProcessorDeps,
): Promise<SQSBatchResponse> {
  const now = deps.now ?? Date.now;
  const deadline = now() + context.getRemainingTimeInMillis() - deps.settings.safetyMarginMs;
  const failures: string[] = [];
  // Each record is read once: for the subjects read ahead, then for its look.
  const records = event.Records.map((record) => ({
    record,
    read: readRecord(record, deps),
    parent: contextFromTraceparent(recordTraceparent(record)),
  }));
  // The batch's span links each record's context; each record's span continues its own trace.
  const links = records.flatMap(({ parent }) => {
    const span = parent && trace.getSpanContext(parent);
    return span ? [{ context: span }] : [];
  });
  await inSpan(
    'process batch',
    { 'messaging.batch.message_count': records.length },
    async () => {
      const batchDeps = await withSubjectsRead(
        records.map((r) => r.read),
        deps,
      );
      await mapConcurrently(
        records,
        deps.recordConcurrency ?? ProcessorDefaults.recordConcurrency,
        async ({ record, read, parent }) => {
          try {
            await inSpan(
              'process record',
              { 'messaging.message.id': record.messageId, 'bank.record': read.kind },
              () => processRecord(record, read, deadline, batchDeps),
              { parent, kind: SpanKind.CONSUMER },
            );
          } catch (error) {
            failures.push(record.messageId);
            logFailure(record, error, deps);
          }
        },
      );
    },
    { links },
  );
  return { batchItemFailures: failures.map((itemIdentifier) => ({ itemIdentifier })) };
}

/**
 * The batch's subjects read in one request (BatchGetItem) before its records are looked at: each
 * record's first read of a subject is then answered from it, instead of a GetItem each. Nothing
 * is read ahead for a single subject, or when the store cannot read several at once.
 */
async function withSubjectsRead(reads: readonly ReadRecord[], deps: ProcessorDeps): Promise<ProcessorDeps> {
  if (!deps.store.readMany || reads.length < 2) return deps;
  const ids = [...new Set(reads.flatMap((read) => subjectsNamed(read, deps.account.codigoBeneficiario)))];
  if (ids.length < 2) return deps;
  try {
    return { ...deps, store: new PrefetchedSubjects(deps.store, await deps.store.readMany(ids)) };
  } catch (error) {
    deps.logger.warn("The batch's subjects could not be read in one request; each is read on its own", {
      subjects: ids.length,
      reason: errorMessage(error),
    });
    return deps;
  }
}

/**
 * A record read without acting on it: a look request, a notification grouped by subject, or why
 * it cannot be read (acted on by processRecord, in its own order: a look queue's stray
 * notification is refused before its content matters).
 */
function logFailure(record: SQSRecord, error: unknown, deps: ProcessorDeps): void {
  const context = { messageId: record.messageId, receiveCount: receiveCount(record), reason: errorMessage(error) };
  if (error instanceof VerificationPending) {
    deps.count(ProcessorMetric.VERIFICATION_RETRIES);
    deps.logger.info('The bank does not confirm the notification yet; it will be retried', context);
  } else if (error instanceof BankApiError) {
    deps.count(ProcessorMetric.BANK_FAILURES);
    deps.logger.warn('A bank call failed; the notification will be retried', {
      ...context,
      operation: error.operation,
      status: error.status,
      attempts: error.attempts,
    });
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

async function quarantine(
  record: SQSRecord,
  reason: string,
  deps: ProcessorDeps,
  queue = ProcessorQueue.NOTIFICATIONS,
): Promise<void> {
  await deps.quarantine(record, reason, queue);
  deps.count(ProcessorMetric.QUARANTINED);
  deps.logger.error(
    queue === ProcessorQueue.LOOKS
      ? 'Look request quarantined in the look dead-letter queue'
      : 'Notification quarantined in the dead-letter queue',
    { messageId: record.messageId, reason },
  );
}

/**
 * Whether the record came from the look queue (its ARN and URL end in the same queue name). Only
 * look requests belong there: the sweep, the Track Payment rule and the processor send to it.
 */
function fromLookQueue(record: SQSRecord, settings: ProcessorDeps['settings']): boolean {
  if (settings.lookQueueUrl === settings.queueUrl) return false;
  const name = settings.lookQueueUrl.split('/').pop();
  return !!name && record.eventSourceARN?.split(':').pop() === name;
}

/** The least time worth starting a subject with: less, and it is left for a new message. */
const MIN_SUBJECT_MS = 1_000;

async function processRecord(
  record: SQSRecord,
  read: ReadRecord,
  deadline: number,
  deps: ProcessorDeps,
): Promise<void> {
  if (read.kind === 'unreadable-look') {
    await quarantine(record, read.reason, deps, ProcessorQueue.LOOKS);
    return;
  }
  // A look request in the notification queue (sent before the look queue existed) is still served.
  if (read.kind === 'look')
    await processLookRequest(record, read.request, deadline, deps, {
      attempt: receiveCount(record),
      quarantine: (reason) => quarantine(record, reason, deps, ProcessorQueue.LOOKS),
    });
  else if (fromLookQueue(record, deps.settings))
    await quarantine(
      record,
      'not a look request: the look queue takes look requests and Track Payment events only (notifications go to the notification queue)',
      deps,
      ProcessorQueue.LOOKS,
    );
  else if (read.kind === 'failed') throw read.error;
  else if (read.kind === 'unreadable') await quarantine(record, read.reason, deps);
  else if (read.kind === 'undecodable') {
    await journalOf(record, read.stored, deps).write([]);
    await quarantine(record, read.reason, deps);
  } else await processNotification(record, read, deadline, deps);
}

async function processNotification(
  record: SQSRecord,
  read: Extract<ReadRecord, { kind: 'notification' }>,
  deadline: number,
  deps: ProcessorDeps,
): Promise<void> {
  const now = deps.now ?? Date.now;
  const { stored, groups } = read;
  const unprocessable = [...read.unprocessable];
  const journal = journalOf(record, stored, deps);
  // The raw copy is written while the subjects are looked at; the message succeeds only once it is stored.
  const journaled = journal.write(groups.map((group) => group.id));
  const attempt = receiveCount(record);
  // The part of a notification beyond its bound is verified at the look queue's share, behind notifications.
  const lookDeps = stored.lookShare === true ? { ...deps, bank: deps.lookBank ?? deps.bank } : deps;
  const look: Look = {
    stored,
    journalKey: journal.key,
    attempt,
    lastVerification: isLastVerification(attempt, stored, now(), deps.settings),
    deadline,
    deps: lookDeps,
  };
  const bound = stored.lookShare === true ? undefined : familyOfRoute(stored.route).subjectsPerNotification;
  const beyond = bound === undefined ? [] : groups.slice(bound).flatMap((group) => group.items);
  // Sent first, so a failure of the first part never holds the rest back (a retry sends it again:
  // its items are then duplicates, suppressed at the cost of a record read).
  if (beyond.length) {
    // The rest names the raw copy's key: it must be stored first.
    const failed = await journaled;
    if (failed) throw failed;
    await sendRest(beyond, stored, journal.key, 0, deps, { lookShare: true });
    deps.count(ProcessorMetric.SUBJECTS_AT_LOOK_SHARE, undefined, undefined, beyond.length);
    deps.logger.info(
      "A notification of more subjects than its bound: the rest was sent again, to be verified at the look queue's share",
      {
        messageId: record.messageId,
        requestId: stored.requestId,
        bound,
        items: beyond.length,
      },
    );
  }
  const errors: Error[] = [];
  const pending: string[] = [];
  const leftover: SubjectItem[] = [];
  /** Subjects that can never be verified, for their trail. */
  const refused: string[] = [];
  /** When the bank's rate has a slot again, if a subject found none (epoch ms). */
  let rateFreeAt: number | undefined;
  let done = 0;
  for (const group of bound === undefined ? groups : groups.slice(0, bound)) {
    if (leftover.length || deadline - now() < MIN_SUBJECT_MS) {
      leftover.push(...group.items);
      continue;
    }
    try {
      pending.push(...(await lookAt(group, look)));
      done++;
    } catch (error) {
      if (error instanceof Foreign) {
        dropForeign(group.rules.kind, error.message, deps, stored.requestId);
        done++;
      } else if (error instanceof Unprocessable) {
        unprocessable.push(error.message);
        refused.push(group.id);
      }
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
      else if (done > 0 && (deadline - now() < MIN_SUBJECT_MS || (error instanceof BankApiError && error.outOfTime)))
        leftover.push(...group.items);
      else errors.push(error instanceof Error ? error : new Error(String(error)));
    }
  }
  const journalFailure = await journaled;
  if (journalFailure) errors.push(journalFailure);
  if (errors.length || pending.length) {
    const error = errors[0] ?? new VerificationPending(pending);
    // The last receive: what is still failing goes to quarantine with its reason, not to the DLQ without one.
    if (attempt >= deps.settings.maxReceiveCount) {
      const reason = [
        `failed on its last receive (${attempt} of ${deps.settings.maxReceiveCount}): ${errors.map(errorMessage).join('; ') || errorMessage(error)}`,
        ...unprocessable,
      ].join(' | ');
      await quarantine(record, reason, deps);
      await recordQuarantine(
        groups.map((group) => group.id),
        reason,
        stored.requestId,
        deps,
      );
      return;
    }
    // Retry what can succeed later before quarantining; what was published is skipped next time.
    throw error;
  }
  if (leftover.length) {
    const delaySeconds =
      rateFreeAt === undefined ? 0 : Math.min(MAX_DELAY_SECONDS, Math.max(0, Math.ceil((rateFreeAt - now()) / 1000)));
    await sendRest(leftover, stored, journal.key, delaySeconds, deps);
    deps.count(ProcessorMetric.REQUEUED);
    if (rateFreeAt !== undefined) deps.count(ProcessorMetric.DEFERRED_FOR_RATE);
    deps.logger.info(
      rateFreeAt === undefined
        ? 'No time left for every event of the notification; the rest was sent again as a new message'
        : "No slot of the bank's rate before the deadline; the rest was sent again as a new message, delayed until the rate frees up",
      { messageId: record.messageId, requestId: stored.requestId, events: leftover.length, delaySeconds },
    );
  }
  if (unprocessable.length) {
    const reason = unprocessable.join(' | ');
    await quarantine(record, reason, deps);
    await recordQuarantine(refused, reason, stored.requestId, deps);
  }
}

/**
 * Whether this receive is a notification's last verification: its maxVerificationAttempts-th
 * receive or later, and the verification window since it arrived gone by. SQS counts a message
 * handed out twice at once (at-least-once delivery) as two receives: without the window, a query
 * that lags the notification would be given less time than the attempts promise.
 */
function isLastVerification(
  attempt: number,
  stored: StoredNotification,
  now: number,
  settings: ProcessorDeps['settings'],
): boolean {
  if (attempt < settings.maxVerificationAttempts) return false;
  const receivedAt = Date.parse(stored.receivedAt);
  return !Number.isFinite(receivedAt) || now - receivedAt >= (settings.verificationWindowSeconds ?? 0) * 1000;
}

/** A message received longer ago than the queues keep one: deferring it again would keep it forever. */
function tooOldToDefer(stored: StoredNotification, now: number): boolean {
  const receivedAt = Date.parse(stored.receivedAt);
  return Number.isFinite(receivedAt) && now - receivedAt > ProcessorDefaults.queueRetentionSeconds * 1000;
}

/**
 * Sends part of a notification again as a message of its own (its items as a JSON array). The part
 * keeps the raw copy's key: it is a part of a notification journaled already.
 */
async function sendRest(
  items: readonly SubjectItem[],
  stored: StoredNotification,
  journalKey: string | undefined,
  delaySeconds: number,
  deps: ProcessorDeps,
  extra: Partial<StoredNotification> = {},
): Promise<void> {
  const meta = { ...metaOf(stored), ...extra, ...(journalKey ? { journalKey } : {}) };
  await deps.requeue(
    encodeStoredNotification(meta, JSON.stringify(items.map((item) => item.raw))),
    delaySeconds,
    ProcessorQueue.NOTIFICATIONS,
  );
}

function metaOf(stored: StoredNotification) {
  const { v: _v, bodyEncoding: _e, body: _b, ...meta } = stored;
  return meta;
}
