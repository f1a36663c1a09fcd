/**
 * The end-to-end promise, checked from the outside over a local run (the invariants themselves are
 * cli/audit/invariants.ts, which `cdk-bank-webhooks audit` and the property harness share): every
 * event holds to its detail type's JSON Schema; no change is published twice (one event per
 * idempotency key, one per subject and sequence number); every notification answered 200 is
 * accounted for by the bank's verified state (a change event of the state it claimed, a later
 * state it led to, a Notification Not Confirmed naming it, or a quarantine with a reason); and no
 * request refused for its token ever reached the queue.
 */
import { type BoletoMovementMapping, type PaymentStatusMapping, ProcessorDefaults } from '../../contracts/processor';
import { PIX_ROUTE, type Route, ROUTES } from '../../contracts/receiver';
import { auditOfRoute } from '../../lambda/bank/families';
import { bodyShape, BodyShape, intakeOf } from '../../lambda/bank/intakes';
import { checkRecord, Outcome } from '../../cli/audit/invariants';
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
  readonly pixHeld?: ReadonlyArray<{
    readonly endToEndId: string;
    readonly devolucoes: ReadonlyArray<{ readonly id: string; readonly status: string }>;
  }>;
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

/** The identity of each notification in a body, as the audit counts it (`boleto:<nossoNumero>:<id>`...); empty when it cannot be understood. */
export function notificationIdentities(
  route: Route,
  body: string,
  movements: BoletoMovementMapping = ProcessorDefaults.boletoMovements,
): string[] {
  const reader = auditOfRoute(route);
  return reader
    ? reader.family
        .parse(route, Buffer.from(body, 'utf8'), { boletoMovements: movements })
        .items.map((item) => reader.audit.identity(item))
    : [];
}

/** Checks the end-to-end promise; see the module comment. */
export function auditExactlyOnce(input: AuditInput): AuditReport {
  const problems: string[] = [];
  // Every event holds to its detail type's published JSON Schema.
  for (const event of input.events)
    problems.push(...detailProblems(event.detailType, event.detail).map((p) => `event ${event.id}: ${p}`));
  // A local run has no fault that publishes an outbox again: a key seen twice is a violation.
  const accepted = input.exchanges.filter(
    (exchange) =>
      exchange.status === 200 &&
      exchange.requestId &&
      ((ROUTES as readonly string[]).includes(exchange.route) || exchange.route === PIX_ROUTE || exchange.route === ''),
  );
  const record = checkRecord({
    notifications: accepted.map((exchange) => ({
      requestId: exchange.requestId!,
      route: exchange.route,
      body: Buffer.from(exchange.body, 'utf8'),
    })),
    events: input.events,
    quarantined: input.quarantined,
    movements: input.movements,
    paymentStatuses: input.paymentStatuses,
    ...(input.pixHeld ? { pixHeld: input.pixHeld } : {}),
    republishing: false,
  });
  problems.push(...record.violations.map((v) => v.detail));
  // The Pix route's 200s: a validation call (the bare URL, or a body with no `pix` array) never reaches the queue; any other does.
  for (const exchange of accepted.filter((e) => e.route === PIX_ROUTE || e.route === '')) {
    const processed = input.processedRequestIds.has(exchange.requestId!);
    if (exchange.route === '' || bodyShape(intakeOf(exchange.route)!, exchange.body) === BodyShape.VALIDATION) {
      if (processed) problems.push(`the Pix validation call ${exchange.requestId} reached the queue`);
    } else if (!processed && !record.quarantinedRequests.has(exchange.requestId!)) {
      problems.push(`Pix callback ${exchange.requestId} was answered 200 but never reached the processor`);
    }
  }
  const refused = input.exchanges.filter((exchange) => exchange.status === 401);
  for (const exchange of refused) {
    if (exchange.requestId && input.processedRequestIds.has(exchange.requestId))
      problems.push(`request ${exchange.requestId} was refused (401) but reached the queue`);
  }
  const { outcomes } = record;
  return {
    ok: problems.length === 0,
    problems,
    acceptedNotifications: record.accepted,
    verified: outcomes[Outcome.VERIFIED],
    notConfirmed: outcomes[Outcome.NOT_CONFIRMED],
    quarantined: outcomes[Outcome.QUARANTINED],
    refused: refused.length,
  };
}
