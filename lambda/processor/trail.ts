/**
 * The trail a subject's record keeps: the entries a look, a recovery check or a quarantine adds,
 * bounded, with nothing secret and no personal data beyond what the events carry (statuses,
 * ids, keys; never a body, a name or a document).
 */
import { EventTrigger } from '../../contracts/events';
import { TrailDefaults, type TrailEntry, TrailEntryKind } from '../../contracts/record';
import { errorMessage } from '../shared/runtime';
import { currentTraceId } from '../shared/telemetry';
import type { OutboxEntry } from '../store/subject-store';
import type { ProcessorDeps } from './deps';
import type { CheckedItem, Look } from './subject';
import { fingerprint } from './subject';

/** The trail with `entries` added, the oldest dropped past TrailDefaults.entries. */
export function appendTrail(trail: readonly TrailEntry[] | undefined, entries: readonly TrailEntry[]): TrailEntry[] {
  return [...(trail ?? []), ...entries].slice(-TrailDefaults.entries);
}

const cut = (text: string): string =>
  text.length > TrailDefaults.reasonChars ? `${text.slice(0, TrailDefaults.reasonChars - 1)}…` : text;

/** What a look that changed the record adds: each notification it settled, the look, each change it published. */
export function lookTrail(
  look: Look,
  status: string,
  settled: readonly CheckedItem[],
  entries: readonly OutboxEntry[],
  at: string,
  unpublished?: string,
): TrailEntry[] {
  const request = look.request;
  const trail: TrailEntry[] = settled.map((c) => ({
    kind: TrailEntryKind.NOTIFICATION,
    at: look.stored?.receivedAt ?? at,
    requestId: look.stored?.requestId ?? '',
    id: cut(fingerprint(c.item).id),
    claim: cut(c.claim.status),
    matched: c.check.holds,
    ...(look.journalKey ? { journalKey: look.journalKey } : {}),
    ...(look.stored?.traceId ? { traceId: look.stored.traceId } : {}),
  }));
  trail.push({
    kind: TrailEntryKind.LOOK,
    at,
    trigger: request?.trigger ?? EventTrigger.WEBHOOK,
    status: cut(status),
    ...(request
      ? { reason: cut(request.trackSource ? `Track Payment from ${request.trackSource}` : request.reason) }
      : {}),
    ...(unpublished ? { unpublished: cut(unpublished) } : {}),
    ...currentTraceId(),
  });
  for (const entry of entries) {
    const detail = JSON.parse(entry.detail) as { idempotencyKey: string; subject: { sequence: number } };
    trail.push({
      kind: TrailEntryKind.PUBLISHED,
      at,
      detailType: entry.detailType,
      sequence: detail.subject.sequence,
      idempotencyKey: detail.idempotencyKey,
    });
  }
  return trail;
}

/** What a look that found the subject another receiver's adds. */
export function notAttributedTrail(look: Look, reason: string, at: string): TrailEntry[] {
  return [
    {
      kind: TrailEntryKind.NOT_ATTRIBUTED,
      at,
      reason: cut(reason),
      trigger: look.request?.trigger ?? EventTrigger.WEBHOOK,
      ...(look.stored?.requestId ? { requestId: look.stored.requestId } : {}),
    },
  ];
}

/**
 * Adds a quarantine to the trail of each subject the quarantined message was about. The message
 * is in the dead-letter queue with its reason already: a trail that cannot be written is logged,
 * never a reason to retry the message.
 */
export async function recordQuarantine(
  subjectIds: readonly string[],
  reason: string,
  requestId: string | undefined,
  deps: ProcessorDeps,
): Promise<void> {
  const at = new Date((deps.now ?? Date.now)()).toISOString();
  const entry: TrailEntry = {
    kind: TrailEntryKind.QUARANTINED,
    at,
    reason: cut(reason),
    ...(requestId ? { requestId } : {}),
  };
  for (const subjectId of subjectIds) {
    try {
      let written = false;
      for (let round = 0; round < 3 && !written; round++) {
        const { version, ...record } = await deps.store.read(subjectId);
        written = await deps.store.write(subjectId, version, { ...record, trail: appendTrail(record.trail, [entry]) });
      }
      if (!written) throw new Error('the record kept changing');
    } catch (error) {
      deps.logger.warn(
        "The quarantine could not be added to the subject's trail (the message is in the dead-letter queue with its reason)",
        { subject: subjectId, reason: errorMessage(error) },
      );
    }
  }
}
