/**
 * The end-to-end promise, checked from the outside: every notification answered 200 ends as
 * exactly one verified event or one quarantine with a reason; no verified event is published
 * twice; and no request refused for its token ever reached the queue.
 */
import { parseNotification } from '../../lambda/processor/parse';
import { BankEventDetailType, type BoletoMovementMapping, ProcessorDefaults } from '../../lambda/shared/processor-contract';
import { decodeStoredNotification, type Route, ROUTES } from '../../lambda/shared/receiver-contract';
import type { ProxyExchange } from '../local-aws/api-gateway';
import type { RecordedEvent } from '../local-aws/eventbridge-server';

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
}

export interface AuditReport {
  /** True when there is no problem. */
  readonly ok: boolean;
  /** Each broken promise, in words. */
  readonly problems: string[];
  /** Distinct notifications (boleto events and payment statuses) answered 200. */
  readonly acceptedNotifications: number;
  /** Of those, how many ended as one verified event, and how many in quarantine. */
  readonly verified: number;
  readonly quarantined: number;
  /** Requests refused for their token (401). */
  readonly refused: number;
}

const PAYMENT_DETAIL_TYPES: readonly string[] = [BankEventDetailType.PAYMENT_STATUS_VERIFIED];

/**
 * The identities of the notifications in a body: one per boleto event (`boleto:<idEventoWebhook>`)
 * or per payment status (`payment:<kind>:<idTransacao>:<status>`). Empty when the body cannot be
 * understood (the processor quarantines it).
 */
export function notificationIdentities(route: Route, body: string, movements: BoletoMovementMapping = ProcessorDefaults.boletoMovements): string[] {
  return parseNotification(route, Buffer.from(body, 'utf8'), movements).items.map((item) => (
    item.kind === 'boleto-event' ? `boleto:${item.idEventoWebhook}` : `payment:${item.type}:${item.idTransacao}:${item.status}`
  ));
}

function eventIdentity(event: RecordedEvent, movements: BoletoMovementMapping): string | undefined {
  const route: Route = PAYMENT_DETAIL_TYPES.includes(event.detailType) ? 'payments' : 'boleto';
  return notificationIdentities(route, JSON.stringify(event.detail.notification ?? null), movements)[0];
}

function routeOf(exchange: ProxyExchange): Route | undefined {
  return (ROUTES as readonly string[]).includes(exchange.route) ? exchange.route as Route : undefined;
}

/** Checks the end-to-end promise; see the module comment. */
export function auditExactlyOnce(input: AuditInput): AuditReport {
  const movements = input.movements ?? ProcessorDefaults.boletoMovements;
  const problems: string[] = [];

  const eventsByIdentity = new Map<string, RecordedEvent[]>();
  const eventsByKey = new Map<string, number>();
  for (const event of input.events) {
    const identity = eventIdentity(event, movements) ?? `unknown:${event.id}`;
    eventsByIdentity.set(identity, [...(eventsByIdentity.get(identity) ?? []), event]);
    const key = String(event.detail.idempotencyKey);
    eventsByKey.set(key, (eventsByKey.get(key) ?? 0) + 1);
  }
  for (const [identity, events] of eventsByIdentity) {
    if (events.length > 1) problems.push(`${identity} was published ${events.length} times (${events.map((e) => e.detailType).join(', ')})`);
  }
  for (const [key, count] of eventsByKey) if (count > 1) problems.push(`idempotency key ${key} appears on ${count} events`);

  const quarantinedRequests = new Map<string, string | undefined>();
  for (const message of input.quarantined) {
    try {
      quarantinedRequests.set(decodeStoredNotification(message.body).notification.requestId, message.reason);
    } catch {
      problems.push(`the dead-letter queue holds a message the receiver did not write: ${message.body.slice(0, 80)}`);
    }
  }

  const accepted = new Set<string>();
  let verified = 0;
  let quarantined = 0;
  const quarantinedCounted = new Set<string>();
  for (const exchange of input.exchanges) {
    const route = routeOf(exchange);
    if (exchange.status !== 200 || !route || !exchange.requestId) continue;
    const inQuarantine = quarantinedRequests.has(exchange.requestId);
    if (inQuarantine && !quarantinedRequests.get(exchange.requestId)) problems.push(`request ${exchange.requestId} was quarantined without a reason`);
    const identities = notificationIdentities(route, exchange.body, movements);
    if (identities.length === 0) {
      if (!inQuarantine) problems.push(`request ${exchange.requestId} (${route}) was answered 200, cannot be understood, and is not in quarantine`);
      else if (!quarantinedCounted.has(exchange.requestId)) {
        quarantinedCounted.add(exchange.requestId);
        quarantined++;
      }
      continue;
    }
    for (const identity of identities) {
      if (accepted.has(identity)) continue;
      accepted.add(identity);
      const count = eventsByIdentity.get(identity)?.length ?? 0;
      if (count === 1) verified++;
      else if (count === 0 && inQuarantine) quarantined++;
      else if (count === 0) problems.push(`${identity} was answered 200 (request ${exchange.requestId}) but has no verified event and is not in quarantine`);
    }
  }

  const refused = input.exchanges.filter((exchange) => exchange.status === 401);
  for (const exchange of refused) {
    if (exchange.requestId && input.processedRequestIds.has(exchange.requestId)) problems.push(`request ${exchange.requestId} was refused (401) but reached the queue`);
  }
  return { ok: problems.length === 0, problems, acceptedNotifications: accepted.size + quarantinedCounted.size, verified, quarantined, refused: refused.length };
}
