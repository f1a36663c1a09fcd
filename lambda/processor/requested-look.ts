/**
 * A look request (the reconciliation sweep's, or a Track Payment event): the subject is queried
 * and every change since its last published state is published, with the request's trigger and
 * no notification. A Track Payment for a payment already final, already followed or with a look in
 * flight costs no query; one the bank does not know yet is asked again for a window, then
 * quarantined once. Lack of rate sends the request back delayed, holding its look marker.
 */
import type { SQSRecord } from 'aws-lambda';
import { ProcessorDefaults, ProcessorMetric } from '../../contracts/processor';
import { TrailEntryKind } from '../../contracts/record';
import { LookDefaults, type LookRequest } from '../../contracts/reconciliation';
import { BankApiError } from '../bank/errors';
import { Foreign } from '../bank/family';
import { OutOfRate } from '../bank/pacing';
import { MetricUnit } from '../shared/metrics';
import { errorMessage } from '../shared/runtime';
import { encodeLookRequest } from '../store/look-request';
import { type ProcessorDeps, ProcessorQueue } from './deps';
import { lookAt } from './look';
import { dropForeign, groupOf, type Look, type SubjectGroup, Unprocessable } from './subject';
import { appendTrail, recordQuarantine } from './trail';

/** SQS's longest message delay. */
export const MAX_DELAY_SECONDS = 900;

/** The ways a message ends without a failure SQS retries. */
export interface MessageOutcomes {
  /** Puts the message in the dead-letter queue with its reason. */
  quarantine(reason: string): Promise<void>;
  /** How many times SQS delivered the message. */
  readonly attempt: number;
}

export async function processLookRequest(
  record: SQSRecord,
  request: LookRequest,
  deadline: number,
  deps: ProcessorDeps,
  messageOutcomes: MessageOutcomes,
): Promise<void> {
  const now = deps.now ?? Date.now;
  const group = groupOf(request.subject, deps.account.codigoBeneficiario);
  // A quarantined look is told in its subject's trail too.
  const outcomes: MessageOutcomes = {
    attempt: messageOutcomes.attempt,
    quarantine: async (reason) => {
      await messageOutcomes.quarantine(reason);
      await recordQuarantine([group.id], reason, undefined, deps);
    },
  };
  if (request.recoveryCheck) {
    await checkRecovered(group, request.recoveryCheck, deps);
    return;
  }
  /** Until when this invocation's claim holds the subject's marker (a Track Payment's), if it made one. */
  let heldUntil: number | undefined;
  if (request.trackSource) {
    const owner = request.lookId ?? record.messageId;
    heldUntil = await admitTrackPayment(group, request, owner, deps);
    if (heldUntil === undefined) return;
    request = { ...request, lookId: owner };
  }
  if (request.admittedAt !== undefined && !sentByProcessor(record, deps.settings.ownSenderId)) {
    // Only the processor's own deferral says its look was admitted; from anyone else it books its share again.
    deps.logger.warn(
      "A look request claims an admission but the processor did not send it: it books the looks' share again",
      { messageId: record.messageId, senderId: record.attributes?.SenderId },
    );
    request = { ...request, admittedAt: undefined };
  }
  if (request.admittedAt === undefined && !(await admit(group, request, deps, heldUntil))) return;
  const { attempt } = outcomes;
  // Its queries take the bank's idle time only: notifications go first.
  const look: Look = {
    request,
    attempt,
    lastVerification: attempt >= deps.settings.maxVerificationAttempts,
    deadline,
    deps: { ...deps, bank: deps.lookBank ?? deps.bank },
  };
  const requestedAt = Date.parse(request.requestedAt);
  /** How long since the look was first asked for (deferrals keep `requestedAt`). */
  const age = () => (Number.isFinite(requestedAt) ? Math.max(0, now() - requestedAt) : 0);
  try {
    await lookAt(group, look);
  } catch (error) {
    if (error instanceof OutOfRate && age() <= ProcessorDefaults.queueRetentionSeconds * 1000) {
      // Admitted already (its share's slot was spent): it comes back to query, not to book again.
      await defer(
        group,
        { ...request, admittedAt: request.admittedAt ?? Math.round(now()) },
        Math.ceil((error.retryAt - now()) / 1000),
        deps,
        heldUntil,
      );
      deps.count(ProcessorMetric.DEFERRED_FOR_RATE);
      deps.count(ProcessorMetric.LOOK_AGE, {}, {}, age(), MetricUnit.MILLISECONDS);
      return;
    }
    if (request.trackSource && error instanceof BankApiError && error.status === 404) {
      await unknownPayment(group, request, age(), deps, outcomes, heldUntil);
      return;
    }
    if (error instanceof Foreign) {
      dropForeign(group.rules.kind, error.message, deps);
      await finish(group, request, age(), deps);
      return;
    }
    if (error instanceof Unprocessable) {
      await outcomes.quarantine(`${request.reason}: ${error.message}`);
      await finish(group, request, age(), deps);
      return;
    }
    if (attempt >= deps.settings.maxReceiveCount) {
      await outcomes.quarantine(
        `failed on its last receive (${attempt} of ${deps.settings.maxReceiveCount}): ${errorMessage(error)}`,
      );
      await finish(group, request, age(), deps);
      return;
    }
    throw error;
  }
  await finish(group, request, age(), deps);
}

/**
 * Whether a Track Payment's look goes ahead: not for a payment whose record is final or already
 * followed by the sweep (it costs no query), nor while another look of it holds its marker (the
 * requests collapse into that one). Until when it holds the payment's marker when it goes ahead.
 */
async function admitTrackPayment(
  group: SubjectGroup,
  request: LookRequest,
  owner: string,
  deps: ProcessorDeps,
): Promise<number | undefined> {
  const held = await whyNoQuery(group, owner, deps);
  if (typeof held === 'number') return held;
  deps.count(ProcessorMetric.TRACK_PAYMENTS_SKIPPED);
  deps.logger.info(`Track Payment needs no query: ${held}`, { subject: group.id, source: request.trackSource });
  return undefined;
}

/** Why a Track Payment's look needs no query, or, when it goes ahead, until when it holds the payment's marker. */
async function whyNoQuery(group: SubjectGroup, owner: string, deps: ProcessorDeps): Promise<string | number> {
  const record = await deps.store.read(group.id);
  if (record.pendingSince !== undefined) return 'the payment is already followed until it is final';
  if (!group.rules.pendingUntilFinal(record.state)) return `the payment is final (${record.state!.statusClass})`;
  const now = (deps.now ?? Date.now)();
  const until = now + LookDefaults.markerSeconds * 1000;
  if (!(await deps.markers.claim(group.id, owner, until, now))) return 'a look of the payment is in flight';
  return until;
}

/**
 * Sends the request back, visible after `seconds`, still holding its subject's marker until it
 * comes back and some (`markerSeconds` more). A marker this invocation claimed (`heldUntil`) that
 * holds at least half of that past the return is not written again: a flood of Track Payment
 * events deferred for their share costs one write fewer each.
 */
async function defer(
  group: SubjectGroup,
  request: LookRequest,
  seconds: number,
  deps: ProcessorDeps,
  heldUntil?: number,
): Promise<void> {
  const now = (deps.now ?? Date.now)();
  const delaySeconds = Math.min(MAX_DELAY_SECONDS, Math.max(0, seconds));
  const back = now + delaySeconds * 1000;
  const heldLongEnough = heldUntil !== undefined && heldUntil - back >= (LookDefaults.markerSeconds * 1000) / 2;
  if (request.lookId && !heldLongEnough)
    await deps.markers.claim(group.id, request.lookId, back + LookDefaults.markerSeconds * 1000, now);
  await deps.requeue(encodeLookRequest(request), delaySeconds, ProcessorQueue.LOOKS);
}

/**
 * The bank does not know the payment a Track Payment names: it may have started a moment ago, so
 * it is asked again after a wait that doubles, for a window; then the request is quarantined once,
 * and the marker kept for one more window, so the same payment's events meanwhile are dropped.
 */
async function unknownPayment(
  group: SubjectGroup,
  request: LookRequest,
  age: number,
  deps: ProcessorDeps,
  outcomes: MessageOutcomes,
  heldUntil: number | undefined,
): Promise<void> {
  const now = (deps.now ?? Date.now)();
  const window = LookDefaults.unknownPaymentWindowSeconds;
  const waitSeconds = Math.round(age / 1000) + LookDefaults.unknownPaymentFirstRetrySeconds;
  if (Math.round(age / 1000) + waitSeconds <= window) {
    await defer(group, request, waitSeconds, deps, heldUntil);
    deps.count(ProcessorMetric.TRACK_PAYMENTS_UNKNOWN);
    deps.logger.info('The bank does not know the payment a Track Payment names (yet); it is asked again later', {
      subject: group.id,
      source: request.trackSource,
      waitSeconds,
    });
    return;
  }
  await outcomes.quarantine(
    `${request.reason}: the bank did not know payment ${group.id} for ${Math.round(age / 1000)} seconds after it was asked to follow it (answers 404); check the idTransacao and paymentKind the event names`,
  );
  if (request.lookId) await deps.markers.claim(group.id, request.lookId, now + window * 1000, now);
}

/** The look is done (published, or quarantined): its marker is freed and its age counted. */
async function finish(group: SubjectGroup, request: LookRequest, age: number, deps: ProcessorDeps): Promise<void> {
  if (request.lookId) await deps.markers.release(group.id, request.lookId);
  deps.count(ProcessorMetric.LOOK_AGE, {}, {}, age, MetricUnit.MILLISECONDS);
}

/**
 * The grace period of changes a look published ended: those the subject's record still holds as
 * told by no notification are webhooks the bank lost (NotificationsRecovered), counted once.
 */
async function checkRecovered(group: SubjectGroup, keys: readonly string[], deps: ProcessorDeps): Promise<void> {
  for (let round = 0; round < 3; round++) {
    const { version, ...record } = await deps.store.read(group.id);
    const lost = (record.unnotified ?? []).filter((u) => keys.includes(u.key));
    if (!lost.length) {
      deps.logger.info('A notification told of the changes a look found within the grace period: nothing was lost', {
        subject: group.id,
        changes: keys.join(','),
      });
      return;
    }
    const unnotified = (record.unnotified ?? []).filter((u) => !keys.includes(u.key));
    const at = new Date((deps.now ?? Date.now)()).toISOString();
    const trail = appendTrail(
      record.trail,
      lost.map((change) => ({ kind: TrailEntryKind.RECOVERED, at, change: change.key })),
    );
    if (await deps.store.write(group.id, version, { ...record, unnotified, trail })) {
      for (const change of lost) {
        deps.count(ProcessorMetric.RECOVERED);
        deps.logger.warn(
          'Recovered by reconciliation: no notification of this change came within the grace period; the bank lost it',
          {
            subject: group.id,
            change: change.key,
            graceSeconds: deps.settings.recoveredGraceSeconds,
          },
        );
      }
      return;
    }
  }
  throw new Error(`the record of ${group.id} kept changing while its recovery check ran; it will be retried`);
}

/** A booked slot starting within this much of now is taken at once, not waited for out of the queue. */
const ADMIT_LEAD_MS = 1_000;

/**
 * Books the look a slot of the looks' share of the query budget. One starting now is taken;
 * one later sends the look back, delayed until then and admitted, so it waits out of the queue
 * and notifications behind it go first. Past SQS's longest delay, it is sent back unbooked and
 * books again then.
 */
async function admit(
  group: SubjectGroup,
  request: LookRequest,
  deps: ProcessorDeps,
  heldUntil: number | undefined,
): Promise<boolean> {
  if (!deps.looks) return true;
  const now = (deps.now ?? Date.now)();
  const costMs = 1000 / deps.looks.ratePerSecond;
  const booked = await deps.looks.schedule.reserve(costMs, now, now + MAX_DELAY_SECONDS * 1000);
  const start = 'end' in booked ? booked.end - costMs : undefined;
  if (start !== undefined && start <= now + ADMIT_LEAD_MS) return true;
  await defer(
    group,
    start === undefined ? request : { ...request, admittedAt: Math.round(start) },
    start === undefined ? MAX_DELAY_SECONDS : Math.ceil((start - now) / 1000),
    deps,
    heldUntil,
  );
  deps.count(ProcessorMetric.LOOKS_WAITING_FOR_SHARE);
  return false;
}

/** Whether SQS says the processor's own role sent `record` (a role's SenderId is `<role id>:<session name>`). */
function sentByProcessor(record: SQSRecord, ownSenderId: string): boolean {
  const sender = record.attributes?.SenderId ?? '';
  return sender === ownSenderId || sender.startsWith(`${ownSenderId}:`);
}
