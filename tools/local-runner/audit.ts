/**
 * The end-to-end promise, checked from the outside: every event holds to its detail type's JSON
 * Schema; no change is published twice (one event per
 * idempotency key, one per subject and sequence number); every notification answered 200 is
 * accounted for by the bank's verified state (a change event of the state it claimed, a later
 * state it led to, a Notification Not Confirmed naming it, or a quarantine with a reason); and no
 * request refused for its token ever reached the queue.
 */
import { boletoClaim, paymentClaim } from '../../lambda/bank/cooperative/state';
import { type NotificationItem, parseNotification } from '../../lambda/bank/cooperative/notification';
import { BankEventDetailType, StatusClass } from '../../contracts/events';
import { type BoletoMovementMapping, type PaymentStatusMapping, ProcessorDefaults } from '../../contracts/processor';
import { decodeStoredNotification } from '../../lambda/store/stored-notification';
import { PIX_ROUTE, type Route, ROUTES } from '../../contracts/receiver';
import { isPixValidationCall } from '../../lambda/bank/pix';
import { parsePixNotification, type PixNotificationItem } from '../../lambda/bank/pix/pix-notification';
import type { ProxyExchange } from '../local-aws/api-gateway';
import type { RecordedEvent } from '../local-aws/eventbridge-server';
import { detailProblems } from '../event-schemas';

export interface AuditInput {
  /** Every request to the front door and its answer. */
  readonly exchanges: readonly ProxyExchange[];
  /** Every event the bus accepted. */
  readonly events: readonly RecordedEvent[];
  /** Every message found in the dead-letter queue. */
  readonly quarantined: ReadonlyArray<{ readonly reason?: string; readonly body: string }>;
  /** Request ids of every message the processor was given. */
  readonly processedRequestIds: ReadonlySet<string>;
  /** @default the processor's default movement mapping */
  readonly movements?: BoletoMovementMapping;
  /** @default the processor's default payment status mapping */
  readonly paymentStatuses?: PaymentStatusMapping;
  /**
   * The Pix the provider holds for our account (what its query answers under our credentials),
   * with their refunds: a Pix of a callback is ours to publish exactly when it is here.
   * @default none (the stack receives no Pix)
   */
  readonly pixHeld?: ReadonlyArray<{ readonly endToEndId: string; readonly devolucoes: ReadonlyArray<{ readonly id: string; readonly status: string }> }>;
}

export interface AuditReport {
  /** True when there is no problem. */
  readonly ok: boolean;
  /** Each broken promise, in words. */
  readonly problems: string[];
  /** Distinct notifications (boleto events and payment statuses) answered 200. */
  readonly acceptedNotifications: number;
  /** Of those, how many the bank's verified state accounts for, how many ended as Notification Not Confirmed, and how many in quarantine. */
  readonly verified: number;
  readonly notConfirmed: number;
  readonly quarantined: number;
  /** Requests refused for their token (401). */
  readonly refused: number;
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
  /** Pix and Pix refund subjects. */
  readonly endToEndId?: string;
  readonly refundId?: string;
}

function view(event: RecordedEvent): EventView {
  const d = event.detail as {
    idempotencyKey?: string; subject?: { id?: string; sequence?: number; nossoNumero?: string; idTransacao?: string; endToEndId?: string; refundId?: string };
    state?: { status?: string; statusClass?: string }; settlement?: { amount?: { cents?: number } }; notification?: { id?: string };
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
  };
}

/** `<kind>:<nossoNumero or idTransacao>:<id>` of each notification in a body; empty when it cannot be understood. */
export function notificationIdentities(route: Route, body: string, movements: BoletoMovementMapping = ProcessorDefaults.boletoMovements): string[] {
  return parseNotification(route, Buffer.from(body, 'utf8'), movements).items.map(identityOf);
}

function identityOf(item: NotificationItem): string {
  return item.kind === 'boleto-event' ? `boleto:${item.nossoNumero}:${item.idEventoWebhook}` : `payment:${item.idTransacao}:${item.status}`;
}

/** How the bank's published state accounts for a notification, or undefined when it does not. */
function accountFor(item: NotificationItem, events: readonly EventView[], paymentStatuses: PaymentStatusMapping): 'verified' | 'notConfirmed' | undefined {
  const name = item.kind === 'boleto-event' ? item.nossoNumero : item.idTransacao;
  const mine = events.filter((e) => e.subjectName === name && e.subjectId.startsWith(item.kind === 'boleto-event' ? 'boleto:' : 'payment:'));
  const id = item.kind === 'boleto-event' ? item.idEventoWebhook : item.status;
  if (mine.some((e) => e.detailType === BankEventDetailType.NOTIFICATION_NOT_CONFIRMED && e.notificationId === id)) return 'notConfirmed';
  const changes = mine.filter((e) => e.detailType !== BankEventDetailType.NOTIFICATION_NOT_CONFIRMED);
  if (item.kind === 'boleto-event') {
    const claim = boletoClaim(item);
    if (claim.statusClass === StatusClass.OPEN) {
      // A reversal is borne out by a published reversal, or by no settlement ever published (nothing to take back).
      const settled = changes.some((e) => e.detailType === BankEventDetailType.BOLETO_SETTLED);
      return !settled || changes.some((e) => e.detailType === BankEventDetailType.BOLETO_SETTLEMENT_REVERSED) ? 'verified' : undefined;
    }
    return changes.some((e) => e.statusClass === claim.statusClass && (!claim.amount || e.settledCents === undefined || e.settledCents === claim.amount.cents)) ? 'verified' : undefined;
  }
  const claim = paymentClaim(item, paymentStatuses);
  const movedOn = claim.statusClass === StatusClass.PENDING && changes.some((e) => e.statusClass !== StatusClass.PENDING);
  return changes.some((e) => e.status === item.status) || movedOn ? 'verified' : undefined;
}

function routeOf(exchange: ProxyExchange): Route | undefined {
  return (ROUTES as readonly string[]).includes(exchange.route) ? exchange.route as Route : undefined;
}

/**
 * The Pix route's 200s: a validation call (the bare URL, or a body with no `pix` array) never
 * reaches the queue; any other reaches the processor; each Pix and final refund the provider holds
 * for us has its one event (or a Notification Not Confirmed, or a quarantine); and one it does
 * not hold (another customer's, a forgery) has none.
 */
function auditPix(input: AuditInput, events: readonly EventView[], quarantinedRequests: ReadonlyMap<string, string | undefined>, tally: { verified: number; notConfirmed: number; quarantined: number }, accepted: Set<string>, problems: string[]): void {
  const held = new Map((input.pixHeld ?? []).map((pix) => [pix.endToEndId, pix]));
  for (const exchange of input.exchanges) {
    if (exchange.status !== 200 || !exchange.requestId || (exchange.route !== PIX_ROUTE && exchange.route !== '')) continue;
    const processed = input.processedRequestIds.has(exchange.requestId);
    if (exchange.route === '' || isPixValidationCall(Buffer.from(exchange.body, 'utf8'))) {
      if (processed) problems.push(`the Pix validation call ${exchange.requestId} reached the queue`);
      continue;
    }
    const inQuarantine = quarantinedRequests.has(exchange.requestId);
    if (!processed && !inQuarantine) problems.push(`Pix callback ${exchange.requestId} was answered 200 but never reached the processor`);
    for (const item of parsePixNotification(Buffer.from(exchange.body, 'utf8')).items as PixNotificationItem[]) {
      const refund = item.kind === 'pix-refund' ? item.refund : undefined;
      const e2e = item.kind === 'pix' ? item.pix.endToEndId : item.endToEndId;
      const identity = refund ? `pix-refund:${e2e}:${refund.id}:${refund.status}` : `pix:${e2e}`;
      if (accepted.has(identity)) continue;
      accepted.add(identity);
      const published = events.filter((e) => e.endToEndId === e2e && (refund ? e.refundId === refund.id : e.refundId === undefined));
      const ours = held.get(e2e);
      const oursToPublish = ours && (!refund || ours.devolucoes.some((d) => d.id === refund.id && d.status === String(refund.status)));
      if (!ours) {
        if (published.length) problems.push(`${identity} is not a Pix the provider holds for us (another customer's, or forged) but was published`);
        continue;
      }
      if (!oursToPublish) continue;
      const type = refund ? BankEventDetailType.PIX_REFUND : BankEventDetailType.PIX_RECEIVED;
      if (published.some((e) => e.detailType === type && (!refund || e.status === String(refund.status)))) tally.verified++;
      else if (published.some((e) => e.detailType === BankEventDetailType.NOTIFICATION_NOT_CONFIRMED)) tally.notConfirmed++;
      else if (inQuarantine) tally.quarantined++;
      else problems.push(`${identity} was answered 200 (request ${exchange.requestId}) but no verified event accounts for it and it is not in quarantine`);
    }
  }
}

/** Checks the end-to-end promise; see the module comment. */
export function auditExactlyOnce(input: AuditInput): AuditReport {
  const movements = input.movements ?? ProcessorDefaults.boletoMovements;
  const paymentStatuses = input.paymentStatuses ?? ProcessorDefaults.paymentStatuses;
  const problems: string[] = [];
  const events = input.events.map(view);
  // Every event holds to its detail type's published JSON Schema.
  for (const event of input.events) problems.push(...detailProblems(event.detailType, event.detail).map((p) => `event ${event.id}: ${p}`));

  const count = (keyOf: (e: EventView) => string | undefined) => {
    const counts = new Map<string, EventView[]>();
    for (const e of events) {
      const key = keyOf(e);
      if (key !== undefined) counts.set(key, [...(counts.get(key) ?? []), e]);
    }
    return [...counts].filter(([, list]) => list.length > 1);
  };
  for (const [key, list] of count((e) => e.key)) problems.push(`idempotency key ${key} appears on ${list.length} events`);
  for (const [key, list] of count((e) => (e.detailType === BankEventDetailType.NOTIFICATION_NOT_CONFIRMED ? undefined : `${e.subjectId}#${e.sequence}`))) {
    problems.push(`${key} was published ${list.length} times (${list.map((e) => e.detailType).join(', ')})`);
  }

  const quarantinedRequests = new Map<string, string | undefined>();
  for (const message of input.quarantined) {
    try {
      quarantinedRequests.set(decodeStoredNotification(message.body).notification.requestId, message.reason);
    } catch {
      problems.push(`the dead-letter queue holds a message the receiver did not write: ${message.body.slice(0, 80)}`);
    }
  }

  const accepted = new Set<string>();
  const tally = { verified: 0, notConfirmed: 0, quarantined: 0 };
  const quarantinedCounted = new Set<string>();
  for (const exchange of input.exchanges) {
    const route = routeOf(exchange);
    if (exchange.status !== 200 || !route || !exchange.requestId) continue;
    const inQuarantine = quarantinedRequests.has(exchange.requestId);
    if (inQuarantine && !quarantinedRequests.get(exchange.requestId)) problems.push(`request ${exchange.requestId} was quarantined without a reason`);
    const items = parseNotification(route, Buffer.from(exchange.body, 'utf8'), movements).items;
    if (items.length === 0) {
      if (!inQuarantine) problems.push(`request ${exchange.requestId} (${route}) was answered 200, cannot be understood, and is not in quarantine`);
      else if (!quarantinedCounted.has(exchange.requestId)) {
        quarantinedCounted.add(exchange.requestId);
        tally.quarantined++;
      }
      continue;
    }
    for (const item of items) {
      const identity = identityOf(item);
      if (accepted.has(identity)) continue;
      accepted.add(identity);
      const outcome = accountFor(item, events, paymentStatuses);
      if (outcome) tally[outcome]++;
      else if (inQuarantine) tally.quarantined++;
      else problems.push(`${identity} was answered 200 (request ${exchange.requestId}) but no verified event accounts for it and it is not in quarantine`);
    }
  }

  auditPix(input, events, quarantinedRequests, tally, accepted, problems);

  const refused = input.exchanges.filter((exchange) => exchange.status === 401);
  for (const exchange of refused) {
    if (exchange.requestId && input.processedRequestIds.has(exchange.requestId)) problems.push(`request ${exchange.requestId} was refused (401) but reached the queue`);
  }
  return { ok: problems.length === 0, problems, acceptedNotifications: accepted.size + quarantinedCounted.size, ...tally, refused: refused.length };
}
