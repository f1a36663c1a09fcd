/**
 * One look at one subject: skip what was already handled, ask the bank once, publish every change
 * since the subject's last published state (through its outbox, in the same conditional write as
 * the state), and settle each notification's claim.
 */
import { ZuluTimestamps } from '../../contracts/bank-connection';
import { type BankEventDetail, EventTrigger, StatusClass } from '../../contracts/events';
import { ProcessorMetric, recordsRememberSince } from '../../contracts/processor';
import { BankApiError } from '../bank/errors';
import { Foreign, NotAttributed, NotOurs, type SubjectItem, type SubjectRules } from '../bank/family';
import type { KeyedState, SubjectState } from '../bank/verified-state';
import { errorMessage } from '../shared/runtime';
import { encodeLookRequest } from '../store/look-request';
import {
  HISTORY_LIMIT,
  newOutboxId,
  type Outbox,
  type OutboxEntry,
  SEEN_LIMIT,
  type SubjectRecord,
  UNNOTIFIED_LIMIT,
} from '../store/subject-store';
import { ProcessorQueue } from './deps';
import { changeEntry, fitDetail, MAX_OUTBOX_CHARS, notConfirmedEntry } from './event-detail';
import { publishOutbox, settleOutbox } from './outbox';
import { fingerprint, type Look, type SubjectGroup, Unprocessable } from './subject';
import { appendTrail, lookTrail, notAttributedTrail } from './trail';

/** How many times a subject's record is read again after a concurrent write before the record is retried. */
const MAX_ROUNDS = 5;

/**
 * Looks at one subject for the notifications of one message: skips what was already handled,
 * asks the bank once, publishes every change since the last published state, and settles each
 * notification's claim. Answers the mismatches of claims still waiting for the bank (query lag).
 */
export async function lookAt(group: SubjectGroup, look: Look): Promise<string[]> {
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
      if (record.seen.includes(print.value) && !group.rules.alwaysLook) {
        deps.count(ProcessorMetric.DUPLICATES);
        deps.logger.info('Duplicate suppressed: this notification was already handled', {
          subject: group.id,
          notificationId: print.id,
        });
        return false;
      }
      if (record.seen.some((seen) => seen.startsWith(`${print.id}#`))) {
        deps.logger.warn('The bank sent a notification id again with another body; it is verified on its own', {
          subject: group.id,
          notificationId: print.id,
        });
      }
      return true;
    });
    if (!fresh.length && !look.request) return [];
    try {
      answer ??= await query(group, look);
    } catch (error) {
      if (!(error instanceof NotAttributed)) throw error;
      if (await recordNotAttributed(group, record, fresh, error.message, look)) return [];
      continue;
    }
    const verified = group.rules.verify(record.state, answer, deps);
    if (round === 0) compareListedDay(group, verified, look);
    const bankChanges = group.rules.changes(record.state, verified);
    // A state older than records remember, at a subject with no record: recorded, never published again.
    const unpublished = bankChanges.length ? pastRecordLifetime(record, verified.state, group.rules, look) : undefined;
    const changes = unpublished ? [] : bankChanges;
    const history = [...record.history, ...changes.map((c) => c.key)];
    const checks = fresh.map((item) => ({ item, ...group.rules.claim(item, verified.state, history, deps) }));
    const settled = checks.filter((c) => c.check.holds || look.lastVerification);
    const entries: OutboxEntry[] = [];
    changes.forEach((change, i) => {
      // The notification the change is told with: the first whose claim it bears out, else the first.
      const told = checks.find((c) => c.claim.statusClass === change.state.statusClass) ?? checks[0];
      entries.push(changeEntry(group, change, record.sequence + i + 1, told, answer!, look));
    });
    // Nor a Notification Not Confirmed, until a change is published: the notification may have been
    // judged before its record expired, and its event's key would be published again with another sequence.
    const pastLifetime = unpublished ?? (changes.length ? undefined : record.pastRecordLifetime);
    if (!pastLifetime)
      for (const c of settled.filter((s) => !s.check.holds))
        entries.push(notConfirmedEntry(group, c, record.sequence + changes.length, verified.state, answer, look));
    // The outbox travels in the subject's item (DynamoDB takes 400 KB): several large details
    // keep everything but their raw bodies, as one too large for EventBridge does.
    if (entries.reduce((total, e) => total + e.detail.length, 0) > MAX_OUTBOX_CHARS) {
      entries.forEach((e, i) => {
        entries[i] = { ...e, detail: fitDetail(JSON.parse(e.detail) as BankEventDetail, 0) };
      });
    }
    const seen = [...record.seen, ...settled.map((c) => fingerprint(c.item).value)].slice(-SEEN_LIMIT);
    // A notification that bears a change out tells of it; a change a sweep's look publishes waits
    // for one until its grace period ends (a Track Payment's look is never a lost webhook).
    const told = new Set(checks.filter((c) => c.check.holds).map((c) => c.claim.statusClass));
    // An operator's explicit replay is no lost webhook either.
    const found =
      look.request && !look.request.track && look.request.trigger !== EventTrigger.REPLAY
        ? changes.map((c) => ({ key: c.key, statusClass: c.state.statusClass }))
        : [];
    const unnotified = [...(record.unnotified ?? []).filter((u) => !told.has(u.statusClass)), ...found].slice(
      -UNNOTIFIED_LIMIT,
    );
    const known = verified.state.statusClass !== StatusClass.UNKNOWN;
    const stateChanged = known && JSON.stringify(verified.state) !== JSON.stringify(record.state);
    const state = known ? verified.state : record.state;
    const pendingSince = group.rules.pendingUntilFinal(state)
      ? (record.pendingSince ?? (deps.now ?? Date.now)())
      : undefined;
    if (
      entries.length ||
      stateChanged ||
      settled.length ||
      pendingSince !== record.pendingSince ||
      unnotified.length !== (record.unnotified?.length ?? 0)
    ) {
      const outbox: Outbox | undefined = entries.length
        ? { id: newOutboxId(), leaseUntil: look.deadline, entries }
        : undefined;
      const at = new Date((deps.now ?? Date.now)()).toISOString();
      const written = await deps.store.write(group.id, record.version, {
        sequence: record.sequence + changes.length,
        state,
        history: history.slice(-HISTORY_LIMIT),
        seen,
        ...(outbox ? { outbox } : {}),
        ...(pendingSince !== undefined ? { pendingSince } : {}),
        ...(unnotified.length ? { unnotified } : {}),
        ...(pastLifetime ? { pastRecordLifetime: pastLifetime } : {}),
        trail: appendTrail(record.trail, lookTrail(look, verified.state.status, settled, entries, at, unpublished)),
      });
      if (!written) continue;
      if (unpublished) {
        deps.count(ProcessorMetric.LOOKS_PAST_RECORDS);
        deps.logger.warn(
          "Not published: the bank's state is older than what records remember, so it may have been published before its record expired",
          {
            subject: group.id,
            status: verified.state.status,
            why: unpublished,
            trigger: look.request?.trigger,
          },
        );
      }
      for (const change of changes)
        if (change.state.pix?.horarioZoneAssumed) deps.count(ProcessorMetric.PIX_ZONE_ASSUMED);
      if (outbox) await publishOutbox(group.id, outbox, look);
      if (found.length)
        await scheduleRecoveryCheck(
          group,
          found.map((f) => f.key),
          look,
        );
    }
    return checks.filter((c) => !c.check.holds && !look.lastVerification).flatMap((c) => c.check.mismatches);
  }
  throw new Error(
    `the record of ${group.id} kept changing under this invocation (${MAX_ROUNDS} reads); it will be retried`,
  );
}

/**
 * Records that the provider ties the subject to another receiver (NotAttributed): its notifications
 * handled, the reason kept (the sweep does not ask again) and in the trail; nothing published,
 * nothing quarantined. False when the record changed under the write (read again).
 */
async function recordNotAttributed(
  group: SubjectGroup,
  record: SubjectRecord,
  fresh: readonly SubjectItem[],
  reason: string,
  look: Look,
): Promise<boolean> {
  const { deps } = look;
  const { version, ...kept } = record;
  const at = new Date((deps.now ?? Date.now)()).toISOString();
  const written = await deps.store.write(group.id, version, {
    ...kept,
    seen: [...record.seen, ...fresh.map((item) => fingerprint(item).value)].slice(-SEEN_LIMIT),
    notAttributed: reason,
    trail: appendTrail(record.trail, notAttributedTrail(look, reason, at)),
  });
  if (written) {
    deps.count(ProcessorMetric.NOT_ATTRIBUTED);
    deps.logger.info(
      "Another receiver's: the provider ties it to none of this receiver's keys; recorded, never published here",
      { subject: group.id, why: reason, trigger: look.request?.trigger ?? EventTrigger.WEBHOOK },
    );
  }
  return written;
}

/**
 * Why a look must not publish what it found, or undefined when it may: a look (a notification's, or
 * a look request's other than an operator's explicit replay) at a subject with no record, whose
 * bank state is dated before what records remember (`idempotencyTtl` less a margin,
 * contracts/processor.ts RecordLifetime): its change may have been published before the record
 * expired. A notification too: a re-send after the records' lifetime, or a captured request posted
 * again, would otherwise publish the change twice. A state with no date (a boleto written off or
 * rejected, a payment with no `dataPagamento`) is published: the looks that reach a subject with no
 * record are the sweep's (settlements it lists by day, within the records' lifetime), a Track
 * Payment's (a payment just started) and reverify's (a window the CLI holds within the lifetime),
 * where no record means nothing was published.
 */
function pastRecordLifetime(
  record: SubjectRecord,
  state: SubjectState,
  rules: SubjectRules,
  look: Look,
): string | undefined {
  const request = look.request;
  if (request?.trigger === EventTrigger.REPLAY || record.state !== undefined || record.history.length) return undefined;
  const dated = state.settlement?.date ?? state.paidAt;
  const at = rules.datedAt(state);
  if (at === undefined) return undefined;
  const ofKind = look.deps.settings.recordTtlSecondsByKind?.[rules.kind];
  const ttlSeconds = ofKind ?? look.deps.settings.idempotencyTtlSeconds;
  const since = recordsRememberSince((look.deps.now ?? Date.now)(), ttlSeconds);
  if (at >= since) return undefined;
  return `its state is dated ${dated}, before what records remember (the ${Math.round(ttlSeconds / 86_400)}-day ${ofKind === undefined ? 'idempotencyTtl' : "lifetime of its kind's records"} less a day): it may have been published before its record expired`;
}

/**
 * Sends the check that counts the changes a look found as recovered if, when their grace period
 * ends, still no notification told of them. Sending it failed: they are counted now, so a lost
 * webhook is never missed by the alarm (a late notification may then be counted too).
 */
async function scheduleRecoveryCheck(group: SubjectGroup, keys: string[], look: Look): Promise<void> {
  const { deps } = look;
  const graceSeconds = deps.settings.recoveredGraceSeconds;
  try {
    await deps.requeue(
      encodeLookRequest({
        trigger: EventTrigger.RECONCILIATION,
        subject: group.target,
        requestedAt: new Date((deps.now ?? Date.now)()).toISOString(),
        reason: 'the grace period of changes a look found ended',
        recoveryCheck: keys,
      }),
      graceSeconds,
      ProcessorQueue.LOOKS,
    );
  } catch (error) {
    for (const key of keys) {
      deps.count(ProcessorMetric.RECOVERED);
      deps.logger.warn('Recovered by reconciliation (counted at once: the recovery check could not be sent)', {
        subject: group.id,
        change: key,
        reason: errorMessage(error),
      });
    }
  }
}

/**
 * When the sweep found the settlement in the bank's listing, whether the listing's day is the
 * query's: a difference is counted and named, the evidence to correct the bank connection's
 * `zuluTimestamps` by (docs/bank-api.md).
 */
function compareListedDay(group: SubjectGroup, verified: KeyedState, look: Look): void {
  const listed = look.request?.listed;
  const settlement = verified.state.settlement;
  if (!listed || !settlement || settlement.amount.cents !== listed.cents) return;
  const queried = settlement.id.slice(0, 10);
  if (queried === listed.day) return;
  look.deps.count(ProcessorMetric.SETTLEMENT_DAY_MISMATCH);
  look.deps.logger.warn(
    "The bank lists a settlement on another day than its query shows; check the bank connection's zuluTimestamps (docs/bank-api.md)",
    {
      subject: group.id,
      listedDay: listed.day,
      queriedDay: queried,
      settlementDate: settlement.date,
      zuluTimestamps: look.deps.zuluTimestamps ?? ZuluTimestamps.UTC,
    },
  );
}

/**
 * Asks the provider about the subject by its kind's rules. An answer about someone else's is never
 * ours; a 403 or 404 is retried like query lag and final on the last verification attempt (a
 * subject the provider says it does not hold, where that may be its lag, is then {@link Foreign}).
 */
async function query(group: SubjectGroup, look: Look): Promise<Record<string, unknown>> {
  const { deps } = look;
  try {
    const storedAt = look.stored ? Date.parse(look.stored.receivedAt) : NaN;
    const hint = {
      items: group.items,
      firstReceive: look.attempt === 1,
      ...(Number.isFinite(storedAt) ? { storedAt } : {}),
    };
    return await group.rules.query(group.target, deps.bank, deps, look.deadline, hint);
  } catch (error) {
    if (error instanceof NotOurs) throw new Unprocessable(error.message);
    if (error instanceof Foreign && error.mayBeLag && !look.lastVerification)
      throw new BankApiError(
        `${group.rules.kind} query`,
        404,
        `${error.message}: retried as the provider's lag until the last verification attempt`,
        true,
      );
    if (error instanceof BankApiError && (error.status === 404 || error.status === 403) && look.lastVerification) {
      throw new Unprocessable(`the bank's query refuses it after every verification attempt: ${error.message}`);
    }
    throw error;
  }
}
