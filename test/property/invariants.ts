/**
 * The promise, checked after a run of the property harness. What any record can show (nothing
 * twice, every notification accounted for, every quarantine with its reason, no secret) is the
 * shared module cli/audit/invariants.ts, which `cdk-bank-webhooks audit` runs over a real
 * account; this adds what only the harness knows, the bank's ledger (every state each subject held):
 * - nothing unverified: every change published is a state the bank held;
 * - nothing twice: one idempotency key per change, each subject's changes numbered 1, 2, 3... once
 *   (the same key published again is EventBridge's at-least-once, which consumers dedupe on);
 * - nothing lost: every subject the bank told us of (a notification answered 200) ends published
 *   at the bank's final state, or quarantined with a reason; nothing reaches a dead-letter queue
 *   without a reason;
 * - in order: a subject's changes, by sequence number, follow the order the bank held them in;
 * - no secret in a log line, an event or a dead letter.
 */
import { BankEventDetailType, PixChargeKind } from '../../contracts/events';
import {
  checkRecord,
  Invariant,
  secretsIn,
  subjectOutcome,
  trailOutcome,
  type Violation,
} from '../../cli/audit/invariants';
import type { TrailEntry } from '../../contracts/record';
import { QuarantineAttribute } from '../../contracts/processor';
import { decodeStoredNotification } from '../../lambda/store/stored-notification';
import { type LedgerState, subjectOfNotification } from './bank-side';
import type { AcceptedEvent, QueuedMessage } from './models/aws-models';
import { AwsFault, Origin } from './faults';
import { CHARGE_TXID, isFinalRefund, normalizePixKey } from '../../contracts/pix';
import type { PixState } from '../../simulator/pix/pix-book';
import { PIX_KEYS } from './bank-side';
import type { Delivery, World } from './world';
import { recurringViolations } from './recurring-invariants';

export { Invariant, type Violation };

interface ChangeView {
  readonly key: string;
  readonly detailType: BankEventDetailType;
  readonly subject: string;
  readonly sequence: number;
  readonly status: string;
  readonly cents?: number;
  /** Boleto Settlement Reversed: the settlement that is gone, in cents. */
  readonly reversesCents?: number;
}

const CHANGES = new Set<string>([
  BankEventDetailType.BOLETO_SETTLED,
  BankEventDetailType.BOLETO_SETTLEMENT_REVERSED,
  BankEventDetailType.BOLETO_WRITTEN_OFF,
  BankEventDetailType.BOLETO_REJECTED,
  BankEventDetailType.PAYMENT_STATUS_VERIFIED,
]);

function changeOf(event: AcceptedEvent): ChangeView {
  const d = event.detail as {
    idempotencyKey: string;
    subject: { id: string; sequence: number };
    state: { status: string };
    settlement?: { amount?: { cents?: number } };
    reverses?: { amount?: { cents?: number } };
  };
  return {
    key: d.idempotencyKey,
    detailType: event.detailType as BankEventDetailType,
    subject: d.subject.id,
    sequence: d.subject.sequence,
    status: d.state.status,
    cents: d.settlement?.amount?.cents,
    reversesCents: d.reverses?.amount?.cents,
  };
}

const isSettled = (state: LedgerState) => state.cents !== undefined;
const sameState = (a: LedgerState, b: LedgerState) => a.status === b.status && a.cents === b.cents;

/**
 * Where in the subject's ledger a change stands, from `from` on: the index of the state it
 * publishes; for a reversal, of the first state after the reversed settlement that no longer
 * shows it. -1 when the bank never held it there.
 */
function positionOf(change: ChangeView, states: readonly LedgerState[], from: number): number {
  if (change.detailType === BankEventDetailType.BOLETO_SETTLEMENT_REVERSED) {
    // The settlement it reverses was published before it: it stands just before `from`, or later.
    for (let i = Math.max(0, from - 1); i < states.length; i++) {
      if (!isSettled(states[i]) || states[i].cents !== change.reversesCents) continue;
      const after = states.findIndex((state, j) => j > i && !sameState(state, states[i]));
      if (after >= 0) return after;
    }
    return -1;
  }
  return states.findIndex(
    (state, i) =>
      i >= from && state.status === change.status && (change.cents === undefined || state.cents === change.cents),
  );
}

/** The distinct changes published, by subject, in sequence order (a key published again counted once; one key with two changes is the shared checks'). */
function changesBySubject(events: readonly AcceptedEvent[]): Map<string, ChangeView[]> {
  const byKey = new Map<string, ChangeView>();
  for (const change of events.filter((e) => CHANGES.has(e.detailType)).map(changeOf)) byKey.set(change.key, change);
  const bySubject = new Map<string, ChangeView[]>();
  for (const change of byKey.values())
    bySubject.set(change.subject, [...(bySubject.get(change.subject) ?? []), change]);
  for (const list of bySubject.values()) list.sort((a, b) => a.sequence - b.sequence);
  return bySubject;
}

function reasonOf(message: QueuedMessage): string | undefined {
  return message.attributes[QuarantineAttribute.REASON]?.StringValue;
}

/** The notification a dead letter holds, as it was posted (the stored envelope decoded as the processor decodes it). */
function postedBody(message: QueuedMessage): unknown {
  try {
    return JSON.parse(decodeStoredNotification(message.body).body.toString('utf8'));
  } catch {
    return undefined;
  }
}

/** The subjects of the messages quarantined with a reason. */
function quarantinedSubjects(quarantined: readonly QueuedMessage[]): Set<string> {
  return new Set(
    quarantined
      .filter(reasonOf)
      .map((m) => subjectOfNotification(postedBody(m)))
      .filter((s): s is string => !!s),
  );
}

/**
 * The faults after which an outbox is published again with the same keys (by design): an
 * invocation ended between PutEvents and clearing the outbox, a refused entry or a throttled call
 * that gave the lease up. Anything else (lost, late, duplicated deliveries; SQS handing a message
 * out twice) must not publish an event twice.
 */
const REPUBLISHING = new Set<string>([AwsFault.ABANDON_BEFORE, AwsFault.ABANDON_AFTER, AwsFault.THROTTLE, 'true']);

/**
 * Every subject record's trail, as the table holds them (what `audit` reads of a real account), and
 * as it held them before a late phase (an audit of those days reads them within their lifetime).
 */
function itemTrails(world: World): Array<{ readonly id?: string; readonly trail: TrailEntry[] }> {
  return [...world.itemsBeforeLate, ...world.dynamo.items.values()].map((item) => {
    const data = (item as { data?: { S?: string } }).data?.S;
    return {
      id: (item as { id?: { S?: string } }).id?.S,
      trail: data ? ((JSON.parse(data) as { trail?: TrailEntry[] }).trail ?? []) : [],
    };
  });
}

/**
 * The shared checks (cli/audit/invariants.ts) over the run's record: each notification answered
 * 200 as the journal would hold it, what reached the bus, the notifications' dead letters. An
 * event published again with its key is a violation unless a fault in the run republishes an outbox.
 */
function sharedViolations(world: World): Violation[] {
  // (A late phase verifies an undated state again past its record's lifetime, by design: its key again.)
  const republishing =
    Object.keys(world.tally.faults).some((kind) => REPUBLISHING.has(kind)) || world.lateFrom !== undefined;
  const items = itemTrails(world);
  const recorded = items.flatMap((item) => item.trail);
  // Each subject's trail as the table holds it now, or held it before a late phase expired it (an audit of those days read it then).
  const bySubject = new Map(items.filter((item) => item.id !== undefined).map((item) => [item.id!, item.trail]));
  // A Pix notification's identity names its subject (`pix:<e2e>`; a refund's adds its status).
  const subjectOf = (identity: string) =>
    identity.startsWith('pix-refund:') ? identity.split(':').slice(0, 3).join(':') : identity;
  return checkRecord({
    notifications: world.deliveries
      .filter((d) => d.status === 200)
      .map((d) => ({ requestId: d.requestId, route: d.route, body: Buffer.from(JSON.stringify(d.sent), 'utf8') })),
    events: world.bus.accepted.map((e) => ({ id: e.eventId, detailType: e.detailType, detail: e.detail })),
    quarantined: world.dlq.sent.map((m) => ({ body: m.body, reason: reasonOf(m) })),
    recorded: (requestId, identity) =>
      trailOutcome(recorded, requestId) ?? subjectOutcome(bySubject.get(subjectOf(identity)) ?? []),
    republishing,
    // The account's Pix as the provider holds them, and the receiver's key: a callback naming the
    // other receiver's key is foreign; one leaving its key out is decided by the provider.
    pixHeld: world.bank.engine.pix.exportState().pix,
    recurringHeld: (({ recs, cobrs }) => ({ recs: recs.map((r) => r.idRec), cobrs: cobrs.map((c) => c.txid) }))(
      world.bank.engine.recurring.exportState(),
    ),
    pixKeys: [normalizePixKey(PIX_KEYS.ours)!.key],
  }).violations;
}

/**
 * Pix, against the provider's book (what only the harness knows). Whose a Pix is: the key the
 * provider's answers tie it to (its own `chave`, unless the answers leave it out; else its
 * charge's), or, tied to none, the account's receiver for keyless Pix. Then:
 * - a Pix Received only of a Pix the provider holds and ties to the receiver, at its amount, time
 *   and parts (never the other receiver's, whose callbacks reach our URL too); a Pix Refund only of
 *   a refund the provider holds at that final status, with its nature, of such a Pix;
 * - nothing lost: each such Pix the sweep can find (a txid, or the receiver publishes Pix without
 *   one) ends published, and each of its refunds at a final status too;
 * - under the standard's readings, every Pix answer and callback holds to the standard's OpenAPI.
 * (Each notification is accounted for by the shared checks; the same key twice is theirs too.)
 */
function pixViolations(world: World): Violation[] {
  const violations: Violation[] = [];
  const state = world.bank.engine.pix.exportState();
  const book = new Map(state.pix.map((p) => [p.endToEndId, p]));
  const charges = new Map(state.charges.map((c) => [c.txid, c]));
  const ourKey = normalizePixKey(PIX_KEYS.ours)!.key;
  const chaveShown = !world.scenario.answers.pixOmitted?.includes('chave');
  const keylessOwner = world.scenario.pixReceiver?.keylessOwner ?? false;
  /** Whether the provider's answers tie the Pix to this receiver. */
  const ours = (held: PixState['pix'][number] | undefined) => {
    if (!held) return false;
    const tie =
      (chaveShown ? held.chave : undefined) ??
      (held.txid && CHARGE_TXID.test(held.txid) ? charges.get(held.txid)?.chave : undefined);
    return tie === undefined ? keylessOwner : normalizePixKey(tie)?.key === ourKey;
  };
  const recurring = new Map(world.bank.engine.recurring.exportState().cobrs.map((c) => [c.txid, c]));
  const received = new Set<string>();
  const refunded = new Set<string>();
  for (const event of world.bus.accepted) {
    const d = event.detail as {
      pix?: {
        endToEndId: string;
        amount: { decimal: string };
        horario: string;
        componentesValor?: Record<string, { decimal: string }>;
        charge?: { txid: string; kind: string; status: string };
      };
      refund?: { endToEndId: string; id: string; status: string; natureza?: string };
    };
    if (event.detailType === String(BankEventDetailType.PIX_RECEIVED)) {
      const held = book.get(d.pix!.endToEndId);
      received.add(d.pix!.endToEndId);
      if (!held || !ours(held))
        violations.push({
          invariant: Invariant.UNVERIFIED,
          detail: `Pix Received for ${d.pix!.endToEndId}, which the provider holds ${held ? `tied to ${held.chave ?? 'no key'} (answers ${chaveShown ? 'with' : 'without'} chave; keyless owner: ${keylessOwner})` : 'not at all'}`,
        });
      else if (held.valor !== d.pix!.amount.decimal)
        violations.push({
          invariant: Invariant.UNVERIFIED,
          detail: `Pix Received for ${held.endToEndId} says ${d.pix!.amount.decimal}; the provider holds ${held.valor}`,
        });
      // The time names the instant the provider holds, however it wrote it (a zone left out is Brasília's).
      else if (Date.parse(d.pix!.horario) !== Date.parse(held.horario))
        violations.push({
          invariant: Invariant.UNVERIFIED,
          detail: `Pix Received for ${held.endToEndId} is dated ${d.pix!.horario}; the provider holds ${held.horario}`,
        });
      else if (
        held.txid !== undefined &&
        recurring.get(held.txid)?.pix.includes(held.endToEndId) &&
        (d.pix!.charge?.kind !== String(PixChargeKind.COBR) || d.pix!.charge.txid !== held.txid)
      )
        // A recurring charge's Pix: published with the charge it paid, as the provider shows it (GET /cobr/{txid}).
        violations.push({
          invariant: Invariant.UNVERIFIED,
          detail: `Pix Received for ${held.endToEndId} names ${d.pix!.charge ? `the ${d.pix!.charge.kind} ${d.pix!.charge.txid}` : 'no charge'}; the provider holds it paying the recurring charge ${held.txid}`,
        });
      else if (
        JSON.stringify(
          Object.fromEntries(Object.entries(d.pix!.componentesValor ?? {}).map(([k, v]) => [k, v.decimal])),
        ) !==
        JSON.stringify(Object.fromEntries(Object.entries(held.componentesValor ?? {}).map(([k, v]) => [k, v.valor])))
      ) {
        violations.push({
          invariant: Invariant.UNVERIFIED,
          detail: `Pix Received for ${held.endToEndId} carries componentesValor ${JSON.stringify(d.pix!.componentesValor)}; the provider holds ${JSON.stringify(held.componentesValor)}`,
        });
      }
    } else if (event.detailType === String(BankEventDetailType.PIX_REFUND)) {
      const held = book.get(d.refund!.endToEndId);
      const refund = held?.devolucoes.find((r) => r.id === d.refund!.id);
      refunded.add(`${d.refund!.endToEndId}/${d.refund!.id}/${d.refund!.status}`);
      if (
        !held ||
        !ours(held) ||
        !refund ||
        String(refund.status) !== d.refund!.status ||
        String(refund.natureza) !== d.refund!.natureza
      ) {
        violations.push({
          invariant: Invariant.UNVERIFIED,
          detail: `Pix Refund ${d.refund!.id} ${d.refund!.status} (${d.refund!.natureza ?? 'no nature'}) of ${d.refund!.endToEndId}, which the provider holds as ${refund ? `${refund.status} (${refund.natureza})` : 'nothing'}${held && !ours(held) ? ' of a Pix not tied to this receiver' : ''}`,
        });
      }
    }
  }
  // What the sweep finds of ours: a Pix with a txid, or any when the receiver publishes Pix without one.
  const findable = (held: PixState['pix'][number]) =>
    ours(held) && (held.txid !== undefined || (world.scenario.pixReceiver?.publishWithoutTxid ?? false));
  if (world.sweeps > 0) {
    for (const held of state.pix.filter(findable)) {
      if (!received.has(held.endToEndId))
        violations.push({
          invariant: Invariant.LOST,
          detail: `the provider holds ${held.endToEndId} (${held.chave ?? 'no key'}, txid ${held.txid ?? 'none'}) tied to this receiver, and ${world.sweeps} sweep(s) ran, but no Pix Received was published`,
        });
      for (const refund of held.devolucoes.filter(
        (r) => isFinalRefund(r.status) && !refunded.has(`${held.endToEndId}/${r.id}/${r.status}`),
      )) {
        violations.push({
          invariant: Invariant.LOST,
          detail: `the provider holds refund ${refund.id} ${refund.status} of ${held.endToEndId}, tied to this receiver, and ${world.sweeps} sweep(s) ran, but no Pix Refund was published`,
        });
      }
    }
  }
  for (const problem of world.bank.outsideStandard)
    violations.push({
      invariant: Invariant.UNVERIFIED,
      detail: `the simulated provider answered outside the standard's OpenAPI: ${problem}`,
    });
  return violations;
}

/**
 * Quarantine only what can never be verified, the first time that is known, with its reason: a
 * foreign notification (not ours, or a subject the bank does not have) by its last verification
 * attempt, and never published; a bank's own notification only when faults outlasted its retries.
 */
function quarantineViolations(world: World, quarantined: readonly QueuedMessage[]): Violation[] {
  const violations: Violation[] = [];
  const sourceOf = (message: QueuedMessage) => {
    const id = message.attributes[QuarantineAttribute.SOURCE_MESSAGE_ID]?.StringValue;
    return [...world.queue.sent, ...world.lookQueue.sent].find((m) => m.messageId === id);
  };
  const bodyOf = (message: QueuedMessage) => JSON.stringify(postedBody(message));
  const foreign = (d: Delivery) => d.origin === Origin.FOREIGN && d.status === 200;
  for (const delivery of world.deliveries.filter(foreign)) {
    const body = JSON.stringify(delivery.sent);
    const found = quarantined.find((m) => bodyOf(m) === body);
    const source = found && sourceOf(found);
    if (!found)
      violations.push({
        invariant: Invariant.LOST,
        detail: `a notification that can never be verified (${delivery.notification.subject}) was not quarantined`,
      });
    // Its last verification: the maxVerificationAttempts-th receive, or later by as many receives as SQS handed it out twice.
    else if (source && source.receiveCount > world.settings.maxVerificationAttempts + source.duplicates) {
      violations.push({
        invariant: Invariant.LOST,
        detail: `${delivery.notification.subject} was quarantined on receive ${source.receiveCount}, after its last verification attempt (${world.settings.maxVerificationAttempts}, ${source.duplicates} duplicate receives): ${reasonOf(found) ?? 'no reason'}`,
      });
    }
    const subject = subjectOfNotification(delivery.notification.body);
    if (
      subject &&
      world.bus.accepted.some(
        (e) => (e.detail as { subject?: { id?: string } }).subject?.id === subject && CHANGES.has(e.detailType),
      )
    ) {
      violations.push({
        invariant: Invariant.UNVERIFIED,
        detail: `${delivery.notification.subject}, which the bank never held for us, was published`,
      });
    }
  }
  const faulted = Object.keys(world.tally.faults).length > 0;
  const bankBodies = new Set(
    world.deliveries.filter((d) => d.origin === Origin.BANK).map((d) => JSON.stringify(d.sent)),
  );
  for (const message of quarantined.filter((m) => bankBodies.has(bodyOf(m) ?? ''))) {
    const reason = reasonOf(message) ?? '';
    if (!/failed on its last receive/.test(reason) || !faulted) {
      violations.push({
        invariant: Invariant.LOST,
        detail: `a notification the bank sent of its own change was quarantined${faulted ? '' : ' with no fault in the run'}: ${reason}`,
      });
    }
  }
  return violations;
}

export function checkInvariants(world: World): Violation[] {
  const violations: Violation[] = [];
  const ledger = world.bank.ledger;
  const bySubject = changesBySubject(world.bus.accepted);
  violations.push(...sharedViolations(world), ...recurringViolations(world));
  /** Where each subject's last published change stands in its ledger. */
  const published = new Map<string, number>();

  for (const [subject, changes] of bySubject) {
    const states = ledger.get(subject) ?? [];
    let position = 0;
    changes.forEach((change, i) => {
      // Nothing twice: sequence numbers 1..n, each once.
      if (change.sequence !== i + 1)
        violations.push({
          invariant: Invariant.TWICE,
          detail: `${subject}'s changes are numbered ${changes.map((c) => c.sequence).join(', ')}: ${change.key} is not change ${i + 1}`,
        });
      // Nothing unverified: each change is a state the bank held; in order: after the previous one.
      const at = positionOf(change, states, position);
      if (at >= 0) {
        position = at + (change.detailType === BankEventDetailType.BOLETO_SETTLEMENT_REVERSED ? 0 : 1);
        published.set(subject, at);
      } else if (positionOf(change, states, 0) >= 0) {
        violations.push({
          invariant: Invariant.ORDER,
          detail: `${subject}: ${change.key} is numbered after a state the bank held later (the bank held ${states.map((s) => s.status).join(' → ')})`,
        });
      } else {
        violations.push({
          invariant: Invariant.UNVERIFIED,
          detail: `${change.key} publishes what the bank never held for ${subject} (it held ${states.map((s) => `${s.status}${s.cents !== undefined ? ` ${s.cents}` : ''}`).join(' → ') || 'nothing'})`,
        });
      }
    });
  }

  // Nothing lost: each change a notification announced (answered 200) is published, or a later one,
  // or the subject came back to what was published; or it is quarantined with a reason.
  const quarantined = [...world.dlq.sent, ...world.lookDlq.sent];
  // (The notifications' dead letters without a reason are the shared checks'.)
  for (const message of world.lookDlq.sent) {
    if (!reasonOf(message))
      violations.push({
        invariant: Invariant.LOST,
        detail: `message ${message.messageId} reached a dead-letter queue without a reason (received ${message.receiveCount} times)`,
      });
  }
  const excused = quarantinedSubjects(quarantined);
  for (const delivery of world.deliveries.filter((d) => d.status === 200 && d.origin === Origin.BANK)) {
    const announced = world.bank.announced.get(delivery.notification.id);
    if (!announced || excused.has(announced.subject)) continue;
    const states = ledger.get(announced.subject) ?? [];
    const last = published.get(announced.subject);
    // A boleto nobody published is open, as it was made; a payment nobody published is nothing.
    const view = last !== undefined ? states[last] : announced.subject.startsWith('boleto:') ? states[0] : undefined;
    const covered = last !== undefined && last >= announced.index;
    const cameBack = view !== undefined && states.some((state, i) => i >= announced.index && sameState(state, view));
    if (!covered && !cameBack) {
      violations.push({
        invariant: Invariant.LOST,
        detail: `${announced.subject}: a notification (${delivery.notification.subject}) announced ${states[announced.index]?.status ?? '?'}, answered 200, but the last change published is ${view ? view.status : 'none'} and nothing of it is quarantined`,
      });
    }
  }
  violations.push(...quarantineViolations(world, quarantined));

  // And what no notification told of, the sweep finds: a boleto the bank ends settled (the day's
  // listing) ends published settled, whatever reached the receiver.
  if (world.sweeps > 0) {
    for (const [subject, states] of ledger) {
      const final = states[states.length - 1];
      const last = published.get(subject);
      if (
        subject.startsWith('boleto:') &&
        final.cents !== undefined &&
        !excused.has(subject) &&
        (last === undefined || !sameState(states[last], final))
      ) {
        violations.push({
          invariant: Invariant.LOST,
          detail: `${subject}: the bank ends settled (${final.cents} cents) and ${world.sweeps} sweep(s) ran, but the last change published is ${last === undefined ? 'none' : states[last].status}`,
        });
      }
    }
  } else {
    violations.push({ invariant: Invariant.LOST, detail: 'no reconciliation sweep finished in the run' });
  }
  // After every record's lifetime the bank changed nothing: a change published then was published
  // before (its record expired, perhaps between a look and its write), so it is published twice.
  // A state with no date (a payment not paid yet, a boleto written off) is published again by
  // design (docs/reconciliation.md, "What records remember"): the same key, which consumers dedupe on.
  const dated = (event: AcceptedEvent) => {
    const d = event.detail as { state?: { paidAt?: string }; settlement?: { date?: string } };
    return d.state?.paidAt !== undefined || d.settlement?.date !== undefined;
  };
  if (world.lateFrom !== undefined) {
    for (const event of world.bus.accepted.filter(
      (e) => e.at >= world.lateFrom! && CHANGES.has(e.detailType) && dated(e),
    )) {
      violations.push({
        invariant: Invariant.TWICE,
        detail: `${changeOf(event).key} was published after the records' lifetime, when the bank had changed nothing (${Object.keys(world.tally.faults).join(', ') || 'no fault'})`,
      });
    }
  }
  violations.push(...pixViolations(world));
  // No secret anywhere a person or a consumer reads.
  const readable = JSON.stringify({
    logs: world.logs.entries,
    events: world.bus.accepted,
    deadLetters: quarantined.map((m) => ({ body: m.body, attributes: m.attributes })),
  });
  violations.push(...secretsIn(readable, world.bank.secrets()));
  return violations;
}
