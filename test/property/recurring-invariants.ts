/**
 * Pix Automático against the provider's recurring book (what only the harness knows):
 * - recurring events only on the receiver that takes the account's Pix Automático (the keyless owner);
 * - a Pix Recurrence Changed only of a recurrence the provider holds, at a status its history shows,
 *   each subject's statuses in the order the provider went through them;
 * - a Pix Recurring Charge Changed only of a charge the provider holds, at a status its history
 *   shows, naming an attempt (by end-to-end id) the provider made, and the Pix that paid it;
 * - no recurring event carries money (an amount in its state).
 * Each callback is accounted for by the shared checks (the audit's); the same key twice is theirs too.
 */
import { BankEventDetailType } from '../../contracts/events';
import { Invariant, type Violation } from '../../cli/audit/invariants';
import type { World } from './world';
import { PixRecurringAnswers } from '../../simulator/pix/pix-behaviour';

interface RecurringDetail {
  readonly subject: { readonly id: string; readonly sequence: number };
  readonly state: { readonly status: string; readonly amount?: unknown };
  readonly recurrence?: { readonly idRec: string };
  readonly recurringCharge?: {
    readonly txid: string;
    readonly attempt?: { readonly endToEndId: string };
    readonly paidBy?: readonly string[];
  };
}

export function recurringViolations(world: World): Violation[] {
  const violations: Violation[] = [];
  const book = world.bank.engine.recurring.exportState();
  const recs = new Map(book.recs.map((r) => [r.idRec, r]));
  const cobrs = new Map(book.cobrs.map((c) => [c.txid, c]));
  const takes = world.scenario.pixReceiver?.keylessOwner ?? false;
  const lean = world.scenario.answers.pix?.pixRecurringAnswers === PixRecurringAnswers.LEAN;
  const unverified = (detail: string) => violations.push({ invariant: Invariant.UNVERIFIED, detail });
  /** Where each subject's last published status stands in its history. */
  const reached = new Map<string, number>();
  const events = world.bus.accepted
    .filter(
      (e) =>
        e.detailType === String(BankEventDetailType.PIX_RECURRENCE_CHANGED) ||
        e.detailType === String(BankEventDetailType.PIX_RECURRING_CHARGE_CHANGED),
    )
    .map((e) => ({ type: e.detailType, d: e.detail as unknown as RecurringDetail }))
    .sort((a, b) => a.d.subject.sequence - b.d.subject.sequence);
  for (const { type, d } of events) {
    const name = `${type} ${d.subject.id} #${d.subject.sequence} (${d.state.status})`;
    if (!takes) unverified(`${name} was published by a receiver that does not take the account's Pix Automático`);
    if (d.state.amount !== undefined) unverified(`${name} carries an amount: only Pix Received carries money`);
    const held = d.recurrence ? recs.get(d.recurrence.idRec) : cobrs.get(d.recurringCharge?.txid ?? '');
    if (!held) {
      unverified(`${name} names a ${d.recurrence ? 'recurrence' : 'recurring charge'} the provider does not hold`);
      continue;
    }
    const statuses = held.atualizacao.map((a) => String(a.status));
    const at = statuses.indexOf(d.state.status, reached.get(d.subject.id) ?? 0);
    if (at < 0)
      violations.push({
        invariant: statuses.includes(d.state.status) ? Invariant.ORDER : Invariant.UNVERIFIED,
        detail: `${name}: the provider's history is ${statuses.join(' → ')}`,
      });
    else reached.set(d.subject.id, at);
    const charge = d.recurringCharge;
    if (charge && 'tentativas' in held) {
      const attempt = charge.attempt?.endToEndId;
      if (attempt !== undefined && !held.tentativas.some((t) => t.endToEndId === attempt))
        unverified(`${name} names an attempt ${attempt} the provider never made`);
      for (const e2e of charge.paidBy ?? [])
        if (!held.pix.includes(e2e))
          unverified(`${name} says ${e2e} paid it; the provider shows ${held.pix.join(', ') || 'none'}`);
    }
  }
  // Nothing lost: once a sweep ran (after the last change), each recurrence and charge ends published at its current state.
  if (takes && world.sweeps > 0) {
    const last = new Map<string, RecurringDetail>();
    for (const { d } of events) last.set(d.subject.id, d);
    const lost = (id: string, what: string) =>
      violations.push({
        invariant: Invariant.LOST,
        detail: `${id} is ${what} at the provider, and ${world.sweeps} sweep(s) ran, but no event says so`,
      });
    for (const r of book.recs) {
      const id = `pix-recurrence:${r.idRec}`;
      if (last.get(id)?.state.status !== String(r.status)) lost(id, String(r.status));
    }
    for (const c of book.cobrs) {
      const id = `pix-recurring-charge:${c.txid}`;
      const attempt = c.tentativas[c.tentativas.length - 1]?.endToEndId;
      const shown = last.get(id);
      // A provider that writes no attempts (lean answers) shows the status alone: the status is what can be held to.
      if (shown?.state.status !== String(c.status) || (!lean && shown.recurringCharge?.attempt?.endToEndId !== attempt))
        lost(id, `${c.status}${attempt ? ` (attempt ${attempt})` : ''}`);
    }
  }
  return violations;
}
