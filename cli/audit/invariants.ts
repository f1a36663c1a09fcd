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
import { BankEventDetailType, StatusClass } from '../../contracts/events';
import { type TrailEntry, TrailEntryKind } from '../../contracts/record';
import { type BoletoMovementMapping, type PaymentStatusMapping, ProcessorDefaults } from '../../contracts/processor';
import { normalizePixKey } from '../../contracts/pix';
import { PIX_ROUTE, type Route, ROUTES } from '../../contracts/receiver';
import { boletoClaim, paymentClaim } from '../../lambda/bank/cooperative/state';
import { type NotificationItem, parseNotification } from '../../lambda/bank/cooperative/notification';
import { isPixValidationCall } from '../../lambda/bank/pix';
import { parsePixNotification, type PixNotificationItem } from '../../lambda/bank/pix/notification';
import { decodeStoredNotification } from '../../lambda/store/stored-notification';

export enum Invariant {
  UNVERIFIED = 'nothing unverified',
  TWICE = 'nothing twice',
  LOST = 'nothing lost',
  ORDER = 'in order',
  SECRET = 'no secret',
}

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

/** How a notification is accounted for. */
export enum Outcome {
  /** A change published of the state it claimed, or a later one it led to. */
  VERIFIED = 'verified',
  /** A Notification Not Confirmed names it: the bank never bore its claim out. */
  NOT_CONFIRMED = 'notConfirmed',
  /** A dead-letter queue holds it, with its reason. */
  QUARANTINED = 'quarantined',
  /** The processor's record says it is still being verified (its looks go on), or it came too recently to tell. */
  PENDING = 'pending',
  /**
   * A callback of a Pix to a key that is not the receiver's (dropped: anyone at the provider can
   * send one), or of a Pix the provider ties to another receiver (its record's trail says so): never published.
   */
  FOREIGN = 'foreign',
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
  readonly pixHeld?: ReadonlyArray<{ readonly endToEndId: string; readonly devolucoes: ReadonlyArray<{ readonly id: string; readonly status: string }> }>;
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

interface EventView {
  readonly detailType: BankEventDetailType;
  readonly key: string;
  readonly subjectId: string;
  /** `nossoNumero` or `idTransacao`: what a notification names. */
  readonly subjectName: string;
  readonly sequence: number;
  readonly status: string;
  readonly statusClass: StatusClass;
  readonly settledCents?: number;
  readonly notificationId?: string;
  readonly endToEndId?: string;
  readonly refundId?: string;
  /** A Pix Received's key as the provider's answers showed it (none: tied by its charge, or to no key). */
  readonly chave?: string;
}

function view(event: PublishedEvent): EventView {
  const d = event.detail as {
    idempotencyKey?: string; subject?: { id?: string; sequence?: number; nossoNumero?: string; idTransacao?: string; endToEndId?: string; refundId?: string };
    state?: { status?: string; statusClass?: string }; settlement?: { amount?: { cents?: number } }; notification?: { id?: string };
    pix?: { chave?: string };
  };
  return {
    detailType: event.detailType as BankEventDetailType, key: String(d.idempotencyKey), subjectId: String(d.subject?.id),
    subjectName: String(d.subject?.nossoNumero ?? d.subject?.idTransacao), sequence: Number(d.subject?.sequence),
    status: String(d.state?.status), statusClass: d.state?.statusClass as StatusClass, settledCents: d.settlement?.amount?.cents,
    notificationId: d.notification?.id,
    ...(d.subject?.endToEndId ? { endToEndId: d.subject.endToEndId } : {}),
    ...(d.subject?.refundId ? { refundId: d.subject.refundId } : {}),
    ...(d.pix?.chave ? { chave: d.pix.chave } : {}),
  };
}

/** `<kind>:<nossoNumero or idTransacao>:<id>` of a bank notification's item. */
export function identityOf(item: NotificationItem): string {
  return item.kind === 'boleto-event' ? `boleto:${item.nossoNumero}:${item.idEventoWebhook}` : `payment:${item.idTransacao}:${item.status}`;
}

/** How the published events account for one of the bank's notification items, or undefined. */
function accountFor(item: NotificationItem, events: readonly EventView[], paymentStatuses: PaymentStatusMapping): Outcome | undefined {
  const name = item.kind === 'boleto-event' ? item.nossoNumero : item.idTransacao;
  const mine = events.filter((e) => e.subjectName === name && e.subjectId.startsWith(item.kind === 'boleto-event' ? 'boleto:' : 'payment:'));
  const id = item.kind === 'boleto-event' ? item.idEventoWebhook : item.status;
  if (mine.some((e) => e.detailType === BankEventDetailType.NOTIFICATION_NOT_CONFIRMED && e.notificationId === id)) return Outcome.NOT_CONFIRMED;
  const changes = mine.filter((e) => e.detailType !== BankEventDetailType.NOTIFICATION_NOT_CONFIRMED);
  if (item.kind === 'boleto-event') {
    const claim = boletoClaim(item);
    if (claim.statusClass === StatusClass.OPEN) {
      // A reversal is borne out by a published reversal, or by no settlement ever published (nothing to take back).
      const settled = changes.some((e) => e.detailType === BankEventDetailType.BOLETO_SETTLED);
      return !settled || changes.some((e) => e.detailType === BankEventDetailType.BOLETO_SETTLEMENT_REVERSED) ? Outcome.VERIFIED : undefined;
    }
    return changes.some((e) => e.statusClass === claim.statusClass && (!claim.amount || e.settledCents === undefined || e.settledCents === claim.amount.cents)) ? Outcome.VERIFIED : undefined;
  }
  const claim = paymentClaim(item, paymentStatuses);
  const movedOn = claim.statusClass === StatusClass.PENDING && changes.some((e) => e.statusClass !== StatusClass.PENDING);
  return changes.some((e) => e.status === item.status) || movedOn ? Outcome.VERIFIED : undefined;
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
export function publishedTwice(events: readonly PublishedEvent[], republishing = true): { violations: Violation[]; republished: number } {
  const violations: Violation[] = [];
  const byKey = new Map<string, { content: string; count: number }>();
  let republished = 0;
  const bySequence = new Map<string, Set<string>>();
  for (const event of events) {
    const e = view(event);
    // The change an event tells (what it published), apart from how and when it was verified.
    const d = event.detail as { subject?: unknown; state?: unknown; settlement?: unknown; reverses?: unknown; pix?: unknown; refund?: unknown };
    const content = JSON.stringify({ detailType: event.detailType, subject: d.subject, state: d.state, settlement: d.settlement, reverses: d.reverses, pix: d.pix, refund: d.refund });
    const seen = byKey.get(e.key);
    if (seen) {
      seen.count++;
      if (seen.content === content) republished++;
      else violations.push({ invariant: Invariant.TWICE, detail: `idempotency key ${e.key} was published with two different changes` });
      continue;
    }
    byKey.set(e.key, { content, count: 1 });
    if (e.detailType === BankEventDetailType.NOTIFICATION_NOT_CONFIRMED) continue;
    const at = `${e.subjectId}#${e.sequence}`;
    bySequence.set(at, new Set([...(bySequence.get(at) ?? []), e.key]));
  }
  if (!republishing) {
    for (const [key, { count }] of byKey) {
      if (count > 1) violations.push({ invariant: Invariant.TWICE, detail: `idempotency key ${key} appears on ${count} events, and nothing in the run publishes an outbox again` });
    }
  }
  for (const [at, keys] of bySequence) {
    if (keys.size > 1) violations.push({ invariant: Invariant.TWICE, detail: `${at} was published as ${keys.size} different changes (${[...keys].join(', ')})` });
  }
  return { violations, republished };
}

/** The request ids of the dead-letter queues' messages, with their reasons; a message the receiver did not write, or without a reason, is a violation. */
export function quarantineOf(letters: readonly QuarantinedLetter[], violations: Violation[]): Map<string, string | undefined> {
  const requests = new Map<string, string | undefined>();
  for (const letter of letters) {
    try {
      const requestId = decodeStoredNotification(letter.body).notification.requestId;
      requests.set(requestId, letter.reason);
      if (!letter.reason) violations.push({ invariant: Invariant.LOST, detail: `request ${requestId} was quarantined without a reason` });
    } catch {
      violations.push({ invariant: Invariant.LOST, detail: `the dead-letter queue holds a message the receiver did not write: ${letter.body.slice(0, 80)}` });
    }
  }
  return requests;
}

/** No secret in `readable` (log lines, events, dead letters, as one text). */
export function secretsIn(readable: string, secrets: Iterable<string>): Violation[] {
  return [...secrets].filter((secret) => secret && readable.includes(secret))
    .map((secret) => ({ invariant: Invariant.SECRET, detail: `a secret (${secret.slice(0, 4)}…) appears in a log line, an event or a dead letter` }));
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
  const outcomes: Record<Outcome, number> = { [Outcome.VERIFIED]: 0, [Outcome.NOT_CONFIRMED]: 0, [Outcome.QUARANTINED]: 0, [Outcome.PENDING]: 0, [Outcome.FOREIGN]: 0 };
  const anotherKey = (chave: string | undefined) => !!input.pixKeys && chave !== undefined && !input.pixKeys.includes(normalizePixKey(chave)?.key ?? chave);
  const accepted = new Set<string>();
  const quarantinedUnread = new Set<string>();
  const unaccounted = new Set<string>();
  const lost = (identity: string, requestId: string) => {
    unaccounted.add(requestId);
    violations.push({ invariant: Invariant.LOST, detail: `${identity} was answered 200 (request ${requestId}) but no verified event accounts for it and it is not in quarantine` });
  };
  const settle = (identity: string, requestId: string, found: Outcome | undefined) => {
    const outcome = found ?? (quarantinedRequests.has(requestId) ? Outcome.QUARANTINED : input.recorded?.(requestId, identity));
    if (outcome) outcomes[outcome]++;
    else lost(identity, requestId);
  };

  for (const notification of input.notifications) {
    const { requestId, route, body } = notification;
    if (route === PIX_ROUTE || route === '') {
      if (route === '' || isPixValidationCall(body)) continue;
      for (const item of parsePixNotification(body).items as PixNotificationItem[]) {
        const refund = item.kind === 'pix-refund' ? item.refund : undefined;
        const e2e = item.kind === 'pix' ? item.pix.endToEndId : item.endToEndId;
        const identity = refund ? `pix-refund:${e2e}:${refund.id}:${refund.status}` : `pix:${e2e}`;
        if (accepted.has(identity)) continue;
        accepted.add(identity);
        const published = events.filter((e) => e.endToEndId === e2e && (refund ? e.refundId === refund.id : e.refundId === undefined));
        if (anotherKey(item.kind === 'pix' ? item.pix.chave : item.chave)) {
          // The callback's key decides nothing: the Pix may still be published (by the sweep) where the
          // provider's answers show it under one of the receiver's keys, or under none (the keyless owner).
          const received = events.filter((e) => e.endToEndId === e2e && e.detailType === BankEventDetailType.PIX_RECEIVED);
          const shownElsewhere = received.some((e) => anotherKey(e.chave));
          const wrong = published.filter((e) => e.detailType !== BankEventDetailType.NOTIFICATION_NOT_CONFIRMED && (shownElsewhere || (refund !== undefined && !received.length)));
          if (wrong.length) violations.push({ invariant: Invariant.UNVERIFIED, detail: `${identity} names a Pix key that is not the receiver's and was published ${shownElsewhere ? 'with the provider showing it under another key' : 'with no Pix Received of its Pix'}` });
          else outcomes[published.length ? Outcome.VERIFIED : Outcome.FOREIGN]++;
          continue;
        }
        const held = input.pixHeld?.find((pix) => pix.endToEndId === e2e);
        if (input.pixHeld && !held) {
          if (published.length) violations.push({ invariant: Invariant.UNVERIFIED, detail: `${identity} is not a Pix the provider holds for us (another customer's, or forged) but was published` });
          continue;
        }
        if (held && refund && !held.devolucoes.some((d) => d.id === refund.id && d.status === String(refund.status))) continue;
        const type = refund ? BankEventDetailType.PIX_REFUND : BankEventDetailType.PIX_RECEIVED;
        const found = published.some((e) => e.detailType === type && (!refund || e.status === String(refund.status))) ? Outcome.VERIFIED
          : published.some((e) => e.detailType === BankEventDetailType.NOTIFICATION_NOT_CONFIRMED) ? Outcome.NOT_CONFIRMED : undefined;
        settle(identity, requestId, found);
      }
      continue;
    }
    if (!(ROUTES as readonly string[]).includes(route)) continue;
    const items = parseNotification(route as Route, body, movements).items;
    if (items.length === 0) {
      // Nothing in it can be verified: it must be in quarantine, with its reason (or still on its way there).
      if (quarantinedUnread.has(requestId)) continue;
      const outcome = quarantinedRequests.has(requestId) ? Outcome.QUARANTINED : input.recorded?.(requestId, `request:${requestId}`);
      if (outcome) {
        quarantinedUnread.add(requestId);
        outcomes[outcome]++;
      } else {
        unaccounted.add(requestId);
        violations.push({ invariant: Invariant.LOST, detail: `request ${requestId} (${route}) was answered 200, cannot be understood, and is not in quarantine` });
      }
      continue;
    }
    for (const item of items) {
      const identity = identityOf(item);
      if (accepted.has(identity)) continue;
      accepted.add(identity);
      settle(identity, requestId, accountFor(item, events, paymentStatuses));
    }
  }
  return { violations, accepted: accepted.size + quarantinedUnread.size, outcomes, republished, quarantinedRequests, unaccounted };
}
