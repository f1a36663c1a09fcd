/**
 * The promise as invariants over a receiver's record: what was accepted (each notification
 * answered 200 and stored), what reached the bus, and what was quarantined. One module for the
 * three that check it: `cdk-bank-webhooks audit` over a real account (the journal, the audit log,
 * the dead-letter queues and the subject records), the local runner's audit over its run
 * (tools/local-runner/audit.ts), and the property harness after every seeded run
 * (test/property/invariants.ts, which adds what only it can know: the bank's own ledger).
 *
 * - nothing twice: one change per idempotency key and per subject and sequence number (the same
 *   event again, key and content alike, is EventBridge's at-least-once, which consumers dedupe on:
 *   counted, not a violation);
 * - nothing lost: every notification is accounted for, by a change published of the state it
 *   claimed (or a later one it led to), a Notification Not Confirmed naming it, a quarantine with
 *   a reason, or, where the record says so, still being verified;
 * - nothing in a dead-letter queue without a reason, nor that the receiver did not write;
 * - no secret in what a person or a consumer reads.
 */
import { BankEventDetailType, type StatusClass } from '../../contracts/events';
import { type TrailEntry, TrailEntryKind } from '../../contracts/record';
import { type BoletoMovementMapping, type PaymentStatusMapping, ProcessorDefaults } from '../../contracts/processor';
import type { Route } from '../../contracts/receiver';
import { type AuditContext, type AuditedEvent, Invariant, Outcome } from '../../lambda/bank/audit';
import { auditOfRoute } from '../../lambda/bank/families';
import { bodyShape, BodyShape, intakeOf } from '../../lambda/bank/intakes';
import { decodeStoredNotification } from '../../lambda/store/stored-notification';

export { Invariant, Outcome };

export interface Violation {
  readonly invariant: Invariant;
  readonly detail: string;
}

/** An event that reached the bus, as the audit log (or a local bus) holds it. */
export interface PublishedEvent {
  readonly id: string;
  readonly detailType: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- an event detail is any JSON object
  readonly detail: Record<string, any>;
}

/** A notification the front door answered 200 and stored (a journal object, or a local exchange). */
export interface AcceptedNotification {
  readonly requestId: string;
  /** The route it came in on (`''`: the Pix API's bare URL, a validation call). */
  readonly route: string;
  readonly body: Buffer;
}

/** A dead-letter queue's message: the stored envelope, and the processor's reason. */
export interface QuarantinedLetter {
  readonly body: string;
  readonly reason?: string;
}

export interface RecordInput {
  readonly notifications: readonly AcceptedNotification[];
  readonly events: readonly PublishedEvent[];
  readonly quarantined: readonly QuarantinedLetter[];
  /** @default the processor's default movement mapping */
  readonly movements?: BoletoMovementMapping;
  /** @default the processor's default payment status mapping */
  readonly paymentStatuses?: PaymentStatusMapping;
  /**
   * The Pix the provider holds for our account, with their refunds (a harness or a local run knows
   * them): a Pix of a callback is ours to publish exactly when it is here.
   * @default - unknown: a Pix nobody published must be quarantined (as another customer's is)
   */
  readonly pixHeld?: ReadonlyArray<{
    readonly endToEndId: string;
    readonly devolucoes: ReadonlyArray<{ readonly id: string; readonly status: string }>;
  }>;
  /**
   * The Pix Automático recurrences and recurring charges the provider holds for our account, when
   * known: an item naming one is ours to publish exactly when it is here.
   * @default - unknown
   */
  readonly recurringHeld?: AuditContext['recurringHeld'];
  /**
   * The receiver's Pix keys (normalized): a Pix or refund naming another key is dropped by the
   * processor, never published.
   * @default - unknown: such a callback must be accounted for like any other
   */
  readonly pixKeys?: readonly string[];
  /**
   * What the processor's records say of a request no event accounts for (a real account's audit
   * reads each subject's trail): verified (its change was published before the events read),
   * not confirmed, or still pending.
   * @default - nothing: the events and the dead-letter queues alone account for it
   */
  readonly recorded?: (requestId: string, identity: string) => Outcome | undefined;
  /**
   * Whether an event may reach the bus again with its key (see publishedTwice).
   * @default true
   */
  readonly republishing?: boolean;
}

export interface RecordAudit {
  readonly violations: Violation[];
  /** Distinct notifications accepted (each boleto event, payment status, Pix and refund once). */
  readonly accepted: number;
  readonly outcomes: Readonly<Record<Outcome, number>>;
  /** Events published again with the same key and content (EventBridge's at-least-once: consumers dedupe). */
  readonly republished: number;
  /** The request ids found in the dead-letter queues, with their reasons. */
  readonly quarantinedRequests: ReadonlyMap<string, string | undefined>;
  /** The requests of the notifications nothing accounted for (each named by a violation). */
  readonly unaccounted: ReadonlySet<string>;
}

type EventView = AuditedEvent;

function view(event: PublishedEvent): EventView {
  const d = event.detail as {
    idempotencyKey?: string;
    subject?: {
      id?: string;
      sequence?: number;
      nossoNumero?: string;
      idTransacao?: string;
      endToEndId?: string;
      refundId?: string;
      idRec?: string;
      txid?: string;
    };
    state?: { status?: string; statusClass?: string };
    settlement?: { amount?: { cents?: number } };
    notification?: { id?: string };
    pix?: { chave?: string };
  };
  return {
    detailType: event.detailType as BankEventDetailType,
    key: String(d.idempotencyKey),
    subjectId: String(d.subject?.id),
    subjectName: String(d.subject?.nossoNumero ?? d.subject?.idTransacao),
    sequence: Number(d.subject?.sequence),
    status: String(d.state?.status),
    statusClass: d.state?.statusClass as StatusClass,
    settledCents: d.settlement?.amount?.cents,
    notificationId: d.notification?.id,
    ...(d.subject?.endToEndId ? { endToEndId: d.subject.endToEndId } : {}),
    ...(d.subject?.refundId ? { refundId: d.subject.refundId } : {}),
    ...(d.pix?.chave ? { chave: d.pix.chave } : {}),
    ...(d.subject?.idRec ? { idRec: d.subject.idRec } : {}),
    ...(d.subject?.txid ? { txid: d.subject.txid } : {}),
  };
}

/**
 * What a subject's trail says of a request: handled and borne out (its change published, perhaps
 * before the events read, or nothing to publish: a reversal verified before its settlement was),
 * not borne out, or quarantined. Undefined when the trail does not name it.
 */
/**
 * How a subject's trail accounts for any notification of it, whatever request carried it: the
 * provider ties the subject to another receiver (a re-delivery of its notification is a duplicate,
 * handled without an entry of its own).
 */
export function subjectOutcome(trail: readonly TrailEntry[]): Outcome | undefined {
  return trail.some((e) => e.kind === TrailEntryKind.NOT_ATTRIBUTED) ? Outcome.FOREIGN : undefined;
}

export function trailOutcome(trail: readonly TrailEntry[], requestId: string): Outcome | undefined {
  const entries = trail.filter((entry) => 'requestId' in entry && entry.requestId === requestId);
  if (entries.some((e) => e.kind === TrailEntryKind.NOTIFICATION && e.matched)) return Outcome.VERIFIED;
  if (entries.some((e) => e.kind === TrailEntryKind.NOTIFICATION)) return Outcome.NOT_CONFIRMED;
  if (entries.some((e) => e.kind === TrailEntryKind.NOT_ATTRIBUTED)) return Outcome.FOREIGN;
  return entries.some((e) => e.kind === TrailEntryKind.QUARANTINED) ? Outcome.QUARANTINED : undefined;
}

/**
 * Nothing twice: one change per idempotency key, and one per subject and sequence number. The same
 * key with the same change again (however it was verified) is EventBridge's at-least-once, an
 * outbox published again after an invocation ended between PutEvents and its write, or a change
 * verified again past its record's lifetime: counted as republished, and a violation only where
 * nothing could have published it again (`republishing` false).
 */
export function publishedTwice(
  events: readonly PublishedEvent[],
  republishing = true,
): { violations: Violation[]; republished: number } {
  const violations: Violation[] = [];
  const byKey = new Map<string, { content: string; count: number }>();
  let republished = 0;
  const bySequence = new Map<string, Set<string>>();
  for (const event of events) {
    const e = view(event);
    // The change an event tells (what it published), apart from how and when it was verified.
    const d = event.detail as {
      subject?: unknown;
      state?: unknown;
      settlement?: unknown;
      reverses?: unknown;
      pix?: unknown;
      refund?: unknown;
      recurrence?: unknown;
      recurringCharge?: unknown;
    };
    const content = JSON.stringify({
      detailType: event.detailType,
      subject: d.subject,
      state: d.state,
      settlement: d.settlement,
      reverses: d.reverses,
      pix: d.pix,
      refund: d.refund,
      recurrence: d.recurrence,
      recurringCharge: d.recurringCharge,
    });
    const seen = byKey.get(e.key);
    if (seen) {
      seen.count++;
      if (seen.content === content) republished++;
      else
        violations.push({
          invariant: Invariant.TWICE,
          detail: `idempotency key ${e.key} was published with two different changes`,
        });
      continue;
    }
    byKey.set(e.key, { content, count: 1 });
    if (e.detailType === BankEventDetailType.NOTIFICATION_NOT_CONFIRMED) continue;
    const at = `${e.subjectId}#${e.sequence}`;
    bySequence.set(at, new Set([...(bySequence.get(at) ?? []), e.key]));
  }
  if (!republishing) {
    for (const [key, { count }] of byKey) {
      if (count > 1)
        violations.push({
          invariant: Invariant.TWICE,
          detail: `idempotency key ${key} appears on ${count} events, and nothing in the run publishes an outbox again`,
        });
    }
  }
  for (const [at, keys] of bySequence) {
    if (keys.size > 1)
      violations.push({
        invariant: Invariant.TWICE,
        detail: `${at} was published as ${keys.size} different changes (${[...keys].join(', ')})`,
      });
  }
  return { violations, republished };
}

/** The request ids of the dead-letter queues' messages, with their reasons; a message the receiver did not write, or without a reason, is a violation. */
export function quarantineOf(
  letters: readonly QuarantinedLetter[],
  violations: Violation[],
): Map<string, string | undefined> {
  const requests = new Map<string, string | undefined>();
  for (const letter of letters) {
    try {
      const requestId = decodeStoredNotification(letter.body).notification.requestId;
      requests.set(requestId, letter.reason);
      if (!letter.reason)
        violations.push({ invariant: Invariant.LOST, detail: `request ${requestId} was quarantined without a reason` });
    } catch {
      violations.push({
        invariant: Invariant.LOST,
        detail: `the dead-letter queue holds a message the receiver did not write: ${letter.body.slice(0, 80)}`,
      });
    }
  }
  return requests;
}

/** No secret in `readable` (log lines, events, dead letters, as one text). */
export function secretsIn(readable: string, secrets: Iterable<string>): Violation[] {
  return [...secrets]
    .filter((secret) => secret && readable.includes(secret))
    .map((secret) => ({
      invariant: Invariant.SECRET,
      detail: `a secret (${secret.slice(0, 4)}…) appears in a log line, an event or a dead letter`,
    }));
}

/**
 * Checks the record: nothing twice, nothing lost, every quarantine with its reason (see the
 * module comment). Each notification is accounted for once, however often it was delivered.
 */
export function checkRecord(input: RecordInput): RecordAudit {
  const movements = input.movements ?? ProcessorDefaults.boletoMovements;
  const paymentStatuses = input.paymentStatuses ?? ProcessorDefaults.paymentStatuses;
  const { violations, republished } = publishedTwice(input.events, input.republishing ?? true);
  const events = input.events.map(view);
  const quarantinedRequests = quarantineOf(input.quarantined, violations);
  const outcomes: Record<Outcome, number> = {
    [Outcome.VERIFIED]: 0,
    [Outcome.NOT_CONFIRMED]: 0,
    [Outcome.QUARANTINED]: 0,
    [Outcome.PENDING]: 0,
    [Outcome.FOREIGN]: 0,
  };
  const context: AuditContext = {
    movements,
    paymentStatuses,
    ...(input.pixKeys ? { pixKeys: input.pixKeys } : {}),
    ...(input.pixHeld ? { pixHeld: input.pixHeld } : {}),
    ...(input.recurringHeld ? { recurringHeld: input.recurringHeld } : {}),
  };
  const accepted = new Set<string>();
  const quarantinedUnread = new Set<string>();
  const unaccounted = new Set<string>();
  const lost = (identity: string, requestId: string) => {
    unaccounted.add(requestId);
    violations.push({
      invariant: Invariant.LOST,
      detail: `${identity} was answered 200 (request ${requestId}) but no verified event accounts for it and it is not in quarantine`,
    });
  };
  const settle = (identity: string, requestId: string, found: Outcome | undefined) => {
    const outcome =
      found ?? (quarantinedRequests.has(requestId) ? Outcome.QUARANTINED : input.recorded?.(requestId, identity));
    if (outcome) outcomes[outcome]++;
    else lost(identity, requestId);
  };

  for (const notification of input.notifications) {
    const { requestId, route, body } = notification;
    // The API's bare URL, or a body its route's family reads as the provider's validation call: nothing to account for.
    const intake = intakeOf(route);
    if (route === '' || (intake && bodyShape(intake, body) === BodyShape.VALIDATION)) continue;
    const reader = auditOfRoute(route);
    if (!reader) continue;
    const items = reader.family.parse(route as Route, body, { boletoMovements: movements }).items;
    if (items.length === 0) {
      if (!reader.audit.unreadableQuarantined) continue;
      // Nothing in it can be verified: it must be in quarantine, with its reason (or still on its way there).
      if (quarantinedUnread.has(requestId)) continue;
      const outcome = quarantinedRequests.has(requestId)
        ? Outcome.QUARANTINED
        : input.recorded?.(requestId, `request:${requestId}`);
      if (outcome) {
        quarantinedUnread.add(requestId);
        outcomes[outcome]++;
      } else {
        unaccounted.add(requestId);
        violations.push({
          invariant: Invariant.LOST,
          detail: `request ${requestId} (${route}) was answered 200, cannot be understood, and is not in quarantine`,
        });
      }
      continue;
    }
    for (const item of items) {
      const identity = reader.audit.identity(item);
      if (accepted.has(identity)) continue;
      accepted.add(identity);
      const found = reader.audit.account(item, events, context);
      if (found.kind === 'found') settle(identity, requestId, found.outcome);
      else if (found.kind === 'counted') outcomes[found.outcome]++;
      else if (found.kind === 'broken') violations.push({ invariant: found.invariant, detail: found.detail });
    }
  }
  return {
    violations,
    accepted: accepted.size + quarantinedUnread.size,
    outcomes,
    republished,
    quarantinedRequests,
    unaccounted,
  };
}
