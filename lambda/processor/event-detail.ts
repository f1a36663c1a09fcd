/**
 * The events a look publishes: a verified change, or a notification the bank never bore out, as
 * the detail JSON EventBridge takes (within its size limit: a real change is never dropped for size).
 */
import { createHash } from 'node:crypto';
import type { BankAccount } from '../../contracts/bank-connection';
import {
  type BankEventDetail,
  BankEventDetailType,
  type BoletoSettledDetail,
  type BoletoSettlementReversedDetail,
  type EventNotification,
  type EventSubject,
  EventTrigger,
  EVENT_DETAIL_VERSION,
  MAX_DETAIL_BYTES,
  type NotificationNotConfirmedDetail,
  type OmittedPart,
  type PixReceivedDetail,
  type PixRecurrenceChangedDetail,
  type PixRecurringChargeChangedDetail,
  type PixRefundDetail,
} from '../../contracts/events';
import type { StoredNotification } from '../../contracts/receiver';
import { type Change, publicState, type SubjectState } from '../bank/verified-state';
import type { OutboxEntry } from '../store/subject-store';
import { currentTraceparent } from '../shared/telemetry';
import { type CheckedItem, fingerprint, type Look, type SubjectGroup } from './subject';

/** The verifying span's context, for a consumer to continue the trace (nothing when untraced). */
function traced(): { traceparent?: string } {
  const traceparent = currentTraceparent();
  return traceparent ? { traceparent } : {};
}

const subjectOf = (group: SubjectGroup, sequence: number, account: BankAccount): EventSubject =>
  group.rules.eventSubject(group.id, group.target, sequence, account);

function notificationOf(c: CheckedItem, stored: StoredNotification | undefined): EventNotification {
  return {
    receivedAt: stored?.receivedAt ?? '',
    requestId: stored?.requestId ?? '',
    id: fingerprint(c.item).id,
    claim: c.claim,
    body: c.item.raw,
  };
}

/** How the notification that told of a change compares with it (nothing when a look request found it). */
function toldBy(
  told: CheckedItem | undefined,
  change: Change,
  look: Look,
): Pick<BankEventDetail, 'matchesNotification' | 'mismatches' | 'notification'> {
  if (!told) return { mismatches: [] };
  const matches = told.claim.statusClass === change.state.statusClass && told.check.matches;
  return {
    matchesNotification: matches,
    mismatches: matches
      ? []
      : told.check.mismatches.length
        ? told.check.mismatches
        : [`the notification claimed ${told.claim.status}; the bank's change is ${change.detailType}`],
    notification: notificationOf(told, look.stored),
  };
}

export function changeEntry(
  group: SubjectGroup,
  change: Change,
  sequence: number,
  told: CheckedItem | undefined,
  answer: Record<string, unknown>,
  look: Look,
): OutboxEntry {
  const { deps } = look;
  const detail:
    | BankEventDetail
    | BoletoSettledDetail
    | BoletoSettlementReversedDetail
    | PixReceivedDetail
    | PixRefundDetail
    | PixRecurrenceChangedDetail
    | PixRecurringChargeChangedDetail = {
    version: EVENT_DETAIL_VERSION,
    idempotencyKey: `${group.id}#${sequence}:${change.key}`,
    trigger: look.request?.trigger ?? EventTrigger.WEBHOOK,
    account: group.rules.eventAccount(deps.account),
    subject: subjectOf(group, sequence, deps.account),
    state: publicState(change.state),
    ...(change.previous ? { previousState: publicState(change.previous) } : {}),
    ...(change.reverses ? { reverses: change.reverses } : {}),
    ...(change.detailType === BankEventDetailType.BOLETO_SETTLED && change.state.settlement
      ? { settlement: change.state.settlement }
      : {}),
    ...(change.detailType === BankEventDetailType.PIX_RECEIVED && change.state.pix ? { pix: change.state.pix } : {}),
    ...(change.detailType === BankEventDetailType.PIX_REFUND && change.state.refund
      ? { refund: change.state.refund }
      : {}),
    ...(change.detailType === BankEventDetailType.PIX_RECURRENCE_CHANGED && change.state.recurrence
      ? { recurrence: change.state.recurrence }
      : {}),
    ...(change.detailType === BankEventDetailType.PIX_RECURRING_CHARGE_CHANGED && change.state.recurringCharge
      ? { recurringCharge: change.state.recurringCharge }
      : {}),
    ...toldBy(told, change, look),
    bankAnswer: answer,
    verifiedAt: new Date((deps.now ?? Date.now)()).toISOString(),
    attempt: look.attempt,
    ...traced(),
  };
  return { detailType: change.detailType, detail: fitDetail(detail) };
}

export function notConfirmedEntry(
  group: SubjectGroup,
  c: CheckedItem,
  sequence: number,
  state: SubjectState,
  answer: Record<string, unknown>,
  look: Look,
): OutboxEntry {
  const { deps } = look;
  const detail: NotificationNotConfirmedDetail = {
    version: EVENT_DETAIL_VERSION,
    idempotencyKey: `notification:${group.id}:${fingerprint(c.item).value}`,
    trigger: EventTrigger.WEBHOOK,
    account: group.rules.eventAccount(deps.account),
    subject: subjectOf(group, sequence, deps.account),
    state: publicState(state),
    matchesNotification: false,
    mismatches: c.check.mismatches,
    bankAnswer: answer,
    notification: notificationOf(c, look.stored),
    verifiedAt: new Date((deps.now ?? Date.now)()).toISOString(),
    attempt: look.attempt,
    ...traced(),
  };
  return { detailType: BankEventDetailType.NOTIFICATION_NOT_CONFIRMED, detail: fitDetail(detail) };
}

function omitted(value: unknown): OmittedPart {
  const text = JSON.stringify(value);
  return { bytes: Buffer.byteLength(text), sha256: createHash('sha256').update(text).digest('hex') };
}

/** Most characters of event details one outbox holds (a subject's item must stay under DynamoDB's 400 KB). */
export const MAX_OUTBOX_CHARS = 300_000;

/**
 * The detail as JSON text within EventBridge's entry limit (or `maxBytes`): a detail that would
 * not fit keeps everything but the raw notification and the bank's raw answer, whose size and
 * hash stay. A real change is never dropped for size.
 */
export function fitDetail(
  detail: BankEventDetail | BoletoSettledDetail | NotificationNotConfirmedDetail,
  maxBytes = MAX_DETAIL_BYTES,
): string {
  const text = JSON.stringify(detail);
  if (Buffer.byteLength(text) <= maxBytes) return text;
  const { bankAnswer, notification, ...rest } = detail;
  const { body, ...notificationRest } = notification ?? ({} as EventNotification);
  return JSON.stringify({
    ...rest,
    ...(bankAnswer !== undefined ? { bankAnswerOmitted: omitted(bankAnswer) } : {}),
    ...(notification
      ? { notification: { ...notificationRest, ...(body !== undefined ? { bodyOmitted: omitted(body) } : {}) } }
      : {}),
  });
}
