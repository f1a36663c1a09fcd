/**
 * `cdk-bank-webhooks audit --from --to`: the promise's invariants (cli/audit/invariants.ts) over a
 * real account's record of a time window. It reads what the receiver accepted (the journal's
 * notifications of the window), what reached the bus (the audit log: a rule of the bus writes
 * it, the processor never does), what was quarantined (both dead-letter queues, read and given
 * back), and, for what those leave unexplained, each subject's record and trail. It changes
 * nothing. Only within what the records remember: past their lifetime a subject's trail is gone.
 */
import { FilterLogEventsCommand } from '@aws-sdk/client-cloudwatch-logs';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { CliExit, type OperatorManifest, OperatorDefaults } from '../../contracts/operations';
import { TrailDefaults, TrailEntryKind } from '../../contracts/record';
import { DynamoDbSubjectStore, type SubjectRecord } from '../../lambda/store/subject-store';
import { decodeStoredNotification } from '../../lambda/store/stored-notification';
import {
  type AcceptedNotification,
  checkRecord,
  Invariant,
  Outcome,
  type PublishedEvent,
  type QuarantinedLetter,
  subjectOutcome,
  trailOutcome,
  type Violation,
} from '../audit/invariants';
import { formatTable } from '../table';
import { type AwsClients, OperatorError } from './aws';
import { DeadLetterQueue, withDeadLetters } from './dead-letters';
import { journalKeysBetween } from './journal';
import { checkRecordsLifetime } from './reverify';
import { namedSubjects } from './subjects';

const MINUTE_MS = 60_000;
const day = (at: number) => new Date(at).toISOString().replace('.000Z', 'Z');

export interface AuditResult {
  readonly from: number;
  readonly to: number;
  /** Until when the audit log was read (`to` and the settle time, or now). */
  readonly eventsUntil: number;
  readonly notifications: number;
  readonly events: number;
  /** Of those, read from the audit log's dead-letter queue (EventBridge could not write them to the log). */
  readonly undelivered: number;
  readonly quarantined: number;
  readonly accepted: number;
  readonly outcomes: Readonly<Record<Outcome, number>>;
  readonly republished: number;
  readonly violations: readonly Violation[];
}

/** What an operator does about each kind of violation. */
export const AUDIT_ADVICE: Readonly<Record<Invariant, string>> = {
  [Invariant.LOST]:
    'run `cdk-bank-webhooks trace <subject>` for each; `reverify` over the window asks the bank again and publishes what was lost (docs/operations.md, "Runbooks"); a dead letter without a reason, or one the receiver did not write, was sent by someone else: check who may send to the queue',
  [Invariant.TWICE]:
    'consumers dedupe on the idempotencyKey; two different changes under one key or one subject#sequence are a defect: keep the trace of each (`cdk-bank-webhooks trace <subject>`) and report it',
  [Invariant.UNVERIFIED]:
    "an event of the receiver's source its processor never recorded publishing: someone else published on the bus (check the bus policy and CloudTrail's PutEvents); consumers must not act on it",
  [Invariant.ORDER]: "consumers order a subject's changes by subject.sequence",
  [Invariant.SECRET]: 'rotate the secret',
};

/** An EventBridge event as JSON (a log line, a dead letter), or undefined when it is none. */
function eventOf(text: string): PublishedEvent | undefined {
  try {
    const event = JSON.parse(text) as { id?: unknown; 'detail-type'?: unknown; detail?: unknown };
    const ok =
      typeof event.id === 'string' &&
      typeof event['detail-type'] === 'string' &&
      !!event.detail &&
      typeof event.detail === 'object';
    return ok
      ? {
          id: event.id as string,
          detailType: event['detail-type'] as string,
          detail: event.detail as Record<string, unknown>,
        }
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Every event of the audit log in [from, to], oldest first. A line that is no event was not written
 * by the rule (an account principal with logs:PutLogEvents can write a group): a violation.
 */
async function auditLogEvents(
  aws: AwsClients,
  group: string,
  from: number,
  to: number,
  violations: Violation[],
): Promise<PublishedEvent[]> {
  const events: PublishedEvent[] = [];
  let nextToken: string | undefined;
  do {
    const page = await aws.logs.send(
      new FilterLogEventsCommand({ logGroupName: group, startTime: from, endTime: to, nextToken }),
    );
    for (const line of page.events ?? []) {
      const event = eventOf(line.message ?? '');
      if (event) events.push(event);
      else {
        violations.push({
          invariant: Invariant.UNVERIFIED,
          detail: `the audit log holds a line that is no EventBridge event (written at ${day(line.timestamp ?? 0)} by someone other than its rule): ${(line.message ?? '').slice(0, 80)}`,
        });
      }
    }
    nextToken = page.nextToken;
  } while (nextToken);
  return events;
}

async function journalNotifications(
  aws: AwsClients,
  bucket: string,
  from: number,
  to: number,
  violations: Violation[],
): Promise<Array<AcceptedNotification & { receivedAt: number; raw: string }>> {
  const keys = await journalKeysBetween(aws, bucket, from, to, (count) => {
    if (count > OperatorDefaults.reverifyMaxNotifications)
      throw new OperatorError(
        `The window holds more than ${OperatorDefaults.reverifyMaxNotifications} notifications: narrow --from and --to.`,
        CliExit.USAGE,
      );
  });
  const notifications: Array<AcceptedNotification & { receivedAt: number; raw: string }> = [];
  for (const key of keys) {
    const object = await aws.s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    const raw = await object.Body!.transformToString('utf8');
    try {
      const { notification, body } = decodeStoredNotification(raw);
      notifications.push({
        requestId: notification.requestId,
        route: notification.route,
        body,
        receivedAt: Date.parse(notification.receivedAt),
        raw,
      });
    } catch (error) {
      violations.push({
        invariant: Invariant.LOST,
        detail: `the journal's ${key} is no stored notification (${(error as Error).message.slice(0, 120)}): the processor writes only what the receiver stored`,
      });
    }
  }
  return notifications;
}

/** Checks the window's record; refuses a window the records no longer remember, or a receiver without a journal or an audit log. */
export async function auditWindow(
  aws: AwsClients,
  manifest: OperatorManifest,
  from: number,
  to: number,
  now = Date.now(),
): Promise<AuditResult> {
  checkRecordsLifetime(manifest, from, now, false);
  if (!manifest.journalBucket) {
    throw new OperatorError(
      `Receiver ${manifest.receiverName} keeps no journal (journal.enabled is false): audit reads what the receiver accepted from it. Turn the journal on to audit what comes after.`,
      CliExit.NOT_FOUND,
    );
  }
  if (!manifest.auditLog) {
    throw new OperatorError(
      `Receiver ${manifest.receiverName} has no audit log: audit reads what reached the bus from a record the processor does not write. Set auditLog: { enabled: true } on the receiver, deploy, and audit the windows after it.`,
      CliExit.NOT_FOUND,
    );
  }
  const settle = OperatorDefaults.auditSettleMinutes * MINUTE_MS;
  const eventsUntil = Math.min(now, to + settle);
  const read: Violation[] = [];
  const notifications = await journalNotifications(aws, manifest.journalBucket, from, to, read);
  const logged = await auditLogEvents(aws, manifest.auditLog.group, from, eventsUntil, read);
  // What EventBridge could not write to the log, after a day of retries, waits in its dead-letter queue (read and given back).
  const undelivered = await withDeadLetters(
    aws.sqs,
    DeadLetterQueue.NOTIFICATIONS,
    manifest.auditLog.deadLetterQueue.url,
    manifest.codigoBeneficiario,
    OperatorDefaults.dlqMaxMessages,
    (letters) => Promise.resolve(letters.flatMap((l) => eventOf(l.message.Body ?? '') ?? [])),
  );
  const events = [...logged, ...undelivered.filter((e) => !logged.some((l) => l.id === e.id))];
  // The notifications' dead letters (a look request names no notification), read and given back.
  const letters: QuarantinedLetter[] = await withDeadLetters(
    aws.sqs,
    DeadLetterQueue.NOTIFICATIONS,
    manifest.queues.notificationsDeadLetter.url,
    manifest.codigoBeneficiario,
    OperatorDefaults.dlqMaxMessages,
    (read) => Promise.resolve(read.map((l) => ({ body: l.message.Body ?? '', reason: l.reason }))),
  );

  // What the events and dead letters leave unexplained, each subject's trail explains, or it is
  // still pending (received within the settle time), or lost.
  // Claims read as the processor reads them: its own mappings where the receiver set them.
  const reading = {
    pixKeys: manifest.pixKeys,
    movements: manifest.mappings?.boletoMovements,
    paymentStatuses: manifest.mappings?.paymentStatuses,
  };
  const first = checkRecord({ notifications, events, quarantined: letters, ...reading });
  const store = new DynamoDbSubjectStore(aws.dynamo, manifest.table, 0);
  const records = new Map<string, SubjectRecord>();
  const subjectsOf = new Map<string, string[]>();
  for (const n of notifications.filter((n) => first.unaccounted.has(n.requestId))) {
    const ids = namedSubjects(n.raw, manifest.codigoBeneficiario).subjects.map((s) => s.id);
    subjectsOf.set(n.requestId, ids);
    for (const id of ids) if (!records.has(id)) records.set(id, await store.read(id));
  }
  const receivedAt = new Map(notifications.map((n) => [n.requestId, n.receivedAt]));
  const result = checkRecord({
    notifications,
    events,
    quarantined: letters,
    ...reading,
    recorded: (requestId) => {
      for (const id of subjectsOf.get(requestId) ?? []) {
        const trail = records.get(id)?.trail ?? [];
        const outcome = trailOutcome(trail, requestId) ?? subjectOutcome(trail);
        if (outcome) return outcome;
      }
      return (receivedAt.get(requestId) ?? 0) > now - settle ? Outcome.PENDING : undefined;
    },
  });
  const violations = [...read, ...result.violations, ...(await unrecordedEvents(store, events))];
  return {
    from,
    to,
    eventsUntil,
    notifications: notifications.length,
    events: events.length,
    undelivered: events.length - logged.length,
    quarantined: letters.length,
    accepted: result.accepted,
    outcomes: result.outcomes,
    republished: result.republished,
    violations,
  };
}

/**
 * Nothing unverified: each event's subject record names it among what it published, where the
 * record still tells (it exists and its trail was never cut): one it does not name was published
 * by someone other than the processor.
 */
async function unrecordedEvents(store: DynamoDbSubjectStore, events: readonly PublishedEvent[]): Promise<Violation[]> {
  const violations: Violation[] = [];
  const records = new Map<string, SubjectRecord>();
  for (const event of events) {
    const d = event.detail as { idempotencyKey?: string; subject?: { id?: string } };
    const subject = d.subject?.id;
    if (!subject || !d.idempotencyKey) {
      violations.push({
        invariant: Invariant.UNVERIFIED,
        detail: `event ${event.id} (${event.detailType}) names no subject or idempotency key`,
      });
      continue;
    }
    if (!records.has(subject)) records.set(subject, await store.read(subject));
    const record = records.get(subject)!;
    if (record.version === 0 || (record.trail ?? []).length >= TrailDefaults.entries) continue;
    const published = (record.trail ?? []).some(
      (e) => e.kind === TrailEntryKind.PUBLISHED && e.idempotencyKey === d.idempotencyKey,
    );
    if (!published)
      violations.push({
        invariant: Invariant.UNVERIFIED,
        detail: `event ${event.id} (${d.idempotencyKey}) is not among what ${subject}'s record published`,
      });
  }
  return violations;
}

export function formatAudit(result: AuditResult): string {
  const { outcomes } = result;
  const lines = [
    `Audit of ${day(result.from)} to ${day(result.to)} (events read until ${day(result.eventsUntil)})`,
    formatTable(
      ['', 'count'],
      [
        ['notifications in the journal', String(result.notifications)],
        ['  distinct changes they tell of', String(result.accepted)],
        ['  published (verified)', String(outcomes[Outcome.VERIFIED])],
        ['  not confirmed by the bank', String(outcomes[Outcome.NOT_CONFIRMED])],
        ['  quarantined with a reason', String(outcomes[Outcome.QUARANTINED])],
        ['  still being verified', String(outcomes[Outcome.PENDING])],
        ["  another key's Pix (dropped, never published)", String(outcomes[Outcome.FOREIGN])],
        ['events in the audit log', String(result.events)],
        ['  of them in its dead-letter queue (not written)', String(result.undelivered)],
        ['  delivered again (same key and content)', String(result.republished)],
        ['dead letters read', String(result.quarantined)],
      ],
    ),
  ];
  if (!result.violations.length)
    return [...lines, 'Nothing lost, nothing published twice, nothing unverified.'].join('\n');
  lines.push(`${result.violations.length} violation(s):`);
  for (const v of result.violations) lines.push(`  ✗ ${v.invariant}: ${v.detail}`);
  lines.push('What to do:');
  for (const invariant of new Set(result.violations.map((v) => v.invariant)))
    lines.push(`  ${invariant}: ${AUDIT_ADVICE[invariant]}`);
  return lines.join('\n');
}
