/**
 * The bank's verified state of a subject (a boleto, a payment), the changes between two states,
 * and whether a notification's claim holds. Pure functions: the processor's truth model.
 */
import {
  BankEventDetailType,
  type BoletoSettlement,
  type NotificationClaim,
  StatusClass,
  type VerifiedState,
} from '../../../contracts/events';
import type { BoletoStatusMapping, PaymentStatusMapping } from '../../../contracts/processor';
import { ZuluTimestamps } from '../../../contracts/bank-connection';
import { amountOf, bankDateToIso } from './answers';
import type { Change, ClaimCheck, KeyedState, SubjectState } from '../verified-state';

export { type Change, type ClaimCheck, type KeyedState, publicState, type SubjectState } from '../verified-state';
import type { BoletoEventItem, BoletoMovement, PaymentItem } from './notification';

/** The class of a boleto `situacao` by prefix, any case. */
export function classifyBoletoStatus(situacao: string, mapping: BoletoStatusMapping): StatusClass {
  const upper = situacao.toUpperCase();
  const order: [keyof BoletoStatusMapping, StatusClass][] = [
    ['settled', StatusClass.SETTLED],
    ['writtenOff', StatusClass.WRITTEN_OFF],
    ['rejected', StatusClass.REJECTED],
    ['open', StatusClass.OPEN],
  ];
  return (
    order.find(([key]) => mapping[key].some((prefix) => upper.startsWith(prefix.toUpperCase())))?.[1] ??
    StatusClass.UNKNOWN
  );
}

/** The class of a payment `status`, matched exactly. */
export function classifyPaymentStatus(status: string, mapping: PaymentStatusMapping): StatusClass {
  const order: [keyof PaymentStatusMapping, StatusClass][] = [
    ['settled', StatusClass.SETTLED],
    ['pending', StatusClass.PENDING],
    ['rejected', StatusClass.REJECTED],
    ['cancelled', StatusClass.CANCELLED],
    ['reversed', StatusClass.REVERSED],
  ];
  return order.find(([key]) => mapping[key].includes(status))?.[1] ?? StatusClass.UNKNOWN;
}

/** A settlement as read, and the ids it has under the other readings of its date. */
export interface ReadSettlement {
  readonly settlement: BoletoSettlement;
  readonly aliases: readonly string[];
}

/**
 * The settlement a boleto query shows (`dadosLiquidacao`), when it shows one with a date and an
 * amount. Its id is `<bank day>:<cents>`, the day read as `zulu` says; `aliases` are its ids
 * under the other reading and under earlier releases' (the first ten characters of the text).
 */
export function settlementOf(
  dadosLiquidacao: unknown,
  zulu: ZuluTimestamps = ZuluTimestamps.UTC,
): ReadSettlement | undefined {
  if (!dadosLiquidacao || typeof dadosLiquidacao !== 'object') return undefined;
  const d = dadosLiquidacao as Record<string, unknown>;
  const date = bankDateToIso(d.data, zulu);
  const amount = amountOf(d.valor);
  if (!date || !amount) return undefined;
  const id = `${date.slice(0, 10)}:${amount.cents}`;
  // The other reading's day; the bank-local reading's is also the earlier releases' (the text's first ten characters).
  const other = zulu === ZuluTimestamps.UTC ? ZuluTimestamps.BANK_LOCAL_TIME : ZuluTimestamps.UTC;
  const otherDay = typeof d.data === 'string' ? bankDateToIso(d.data, other)?.slice(0, 10) : undefined;
  const aliases = otherDay && `${otherDay}:${amount.cents}` !== id ? [`${otherDay}:${amount.cents}`] : [];
  return { settlement: { id, date, amount }, aliases };
}

/** A boleto's state from the boleto query's answer: the manual's flat object, or one wrapped in `resultado`. */
export function boletoState(
  answer: Record<string, unknown>,
  mapping: BoletoStatusMapping,
  zulu: ZuluTimestamps = ZuluTimestamps.UTC,
): KeyedState {
  const situacao = typeof answer.situacao === 'string' ? answer.situacao.trim() : '';
  let statusClass = classifyBoletoStatus(situacao, mapping);
  const read = statusClass === StatusClass.SETTLED ? settlementOf(answer.dadosLiquidacao, zulu) : undefined;
  const settlement = read?.settlement;
  // Settled with no readable settlement: nothing to identify the change by, so nothing to publish.
  if (statusClass === StatusClass.SETTLED && !settlement) statusClass = StatusClass.UNKNOWN;
  const amount = amountOf(answer.valorNominal ?? answer.valor);
  const state: SubjectState = {
    status: situacao,
    statusClass,
    ...(amount ? { amount } : {}),
    ...(settlement ? { settlement } : {}),
  };
  return {
    key: settlement ? `${statusClass}:${settlement.id}` : statusClass,
    state,
    ...(read?.aliases.length ? { aliases: read.aliases } : {}),
  };
}

/**
 * The bank's state with the settlement the record holds, when the bank shows that same settlement
 * under another id (an alias: another reading of its day). Nothing is published again and no
 * reversal is made up for a settlement that only changed its name.
 */
export function keepRecordedSettlement(previous: SubjectState | undefined, now: KeyedState): KeyedState {
  const recorded = previous?.settlement;
  const shown = now.state.settlement;
  if (!recorded || !shown || recorded.id === shown.id || !now.aliases?.includes(recorded.id)) return now;
  return {
    key: `${now.state.statusClass}:${recorded.id}`,
    state: { ...now.state, settlement: recorded },
    aliases: [...now.aliases.filter((a) => a !== recorded.id), shown.id],
  };
}

/** A payment's state from the payment query's answer. */
export function paymentState(
  answer: Record<string, unknown>,
  mapping: PaymentStatusMapping,
  zulu: ZuluTimestamps = ZuluTimestamps.UTC,
): KeyedState {
  const status = typeof answer.status === 'string' ? answer.status.trim() : '';
  const amount = amountOf(answer.valorPagamento);
  const paidAt = bankDateToIso(answer.dataPagamento, zulu);
  const state: VerifiedState = {
    status,
    statusClass: status ? classifyPaymentStatus(status, mapping) : StatusClass.UNKNOWN,
    ...(amount ? { amount } : {}),
    ...(paidAt ? { paidAt } : {}),
  };
  return { key: status || StatusClass.UNKNOWN, state };
}

const BOLETO_EVENT_OF_CLASS: Partial<Record<StatusClass, BankEventDetailType>> = {
  [StatusClass.SETTLED]: BankEventDetailType.BOLETO_SETTLED,
  [StatusClass.WRITTEN_OFF]: BankEventDetailType.BOLETO_WRITTEN_OFF,
  [StatusClass.REJECTED]: BankEventDetailType.BOLETO_REJECTED,
};

/**
 * The boleto changes between the last recorded state and what the bank shows now, in order. A
 * boleto nobody has published is open. A settlement that is gone is a reversal of it (the query
 * shows no `dadosLiquidacao` after one); a settlement replaced by another is its reversal and
 * then the new one. An unknown situacao changes nothing (it is not a state anyone can act on).
 */
export function boletoChanges(previous: SubjectState | undefined, now: KeyedState): Change[] {
  const before: SubjectState = previous ?? { status: '', statusClass: StatusClass.OPEN };
  const next = now.state;
  if (next.statusClass === StatusClass.UNKNOWN) return [];
  const changes: Change[] = [];
  const lost =
    before.settlement &&
    before.settlement.id !== next.settlement?.id &&
    (next.statusClass === StatusClass.OPEN || next.statusClass === StatusClass.SETTLED);
  if (lost) {
    const reversed: SubjectState =
      next.statusClass === StatusClass.OPEN
        ? next
        : { status: next.status, statusClass: StatusClass.OPEN, ...(next.amount ? { amount: next.amount } : {}) };
    changes.push({
      detailType: BankEventDetailType.BOLETO_SETTLEMENT_REVERSED,
      key: `reversed:${before.settlement.id}`,
      state: reversed,
      previous: previous,
      reverses: before.settlement,
    });
  }
  const sameState = before.statusClass === next.statusClass && before.settlement?.id === next.settlement?.id;
  const detailType = BOLETO_EVENT_OF_CLASS[next.statusClass];
  if (!sameState && detailType) {
    changes.push({ detailType, key: now.key, state: next, previous: lost ? changes[0].state : previous });
  }
  return changes;
}

/** The payment change between the last recorded status and the bank's, if any. */
export function paymentChanges(previous: SubjectState | undefined, now: KeyedState): Change[] {
  if (!now.state.status || previous?.status === now.state.status) return [];
  return [{ detailType: BankEventDetailType.PAYMENT_STATUS_VERIFIED, key: now.key, state: now.state, previous }];
}

/** The state a boleto event claims. */
const CLASS_OF_MOVEMENT: Record<BoletoMovement, StatusClass> = {
  settlement: StatusClass.SETTLED,
  reversal: StatusClass.OPEN,
  writeOff: StatusClass.WRITTEN_OFF,
  rejection: StatusClass.REJECTED,
};

export function boletoClaim(item: BoletoEventItem): NotificationClaim {
  const amount = amountOf(item.valorLiquidacao);
  return {
    status: item.movimento,
    statusClass: CLASS_OF_MOVEMENT[item.movement],
    ...(item.movement === 'settlement' && amount ? { amount } : {}),
  };
}

export function paymentClaim(item: PaymentItem, mapping: PaymentStatusMapping): NotificationClaim {
  const amount = amountOf(item.valorPagamento);
  return {
    status: item.status,
    statusClass: classifyPaymentStatus(item.status, mapping),
    ...(amount ? { amount } : {}),
  };
}

/**
 * A boleto event's claim against the bank's state. A settlement holds when the bank shows a
 * settlement of the notified amount, or one of that amount was published before (since reversed).
 */
export function checkBoletoClaim(claim: NotificationClaim, now: SubjectState, history: readonly string[]): ClaimCheck {
  const mismatches: string[] = [];
  if (now.statusClass !== claim.statusClass) {
    mismatches.push(
      `${claim.status} needs a ${claim.statusClass} boleto, the bank says situacao "${now.status}" (${now.statusClass})`,
    );
  } else if (claim.amount && now.settlement && now.settlement.amount.cents !== claim.amount.cents) {
    mismatches.push(
      `settled amount differs: notified ${claim.amount.decimal}, the bank says ${now.settlement.amount.decimal}`,
    );
  }
  const matches = mismatches.length === 0;
  const settledBefore =
    claim.statusClass === StatusClass.SETTLED &&
    history.some(
      (key) => key.startsWith(`${StatusClass.SETTLED}:`) && (!claim.amount || key.endsWith(`:${claim.amount.cents}`)),
    );
  return { matches, holds: matches || settledBefore, mismatches };
}

/**
 * A payment notification's claim against the bank's state. It holds when the bank shows that
 * status, when that status was published before, or when a pending status was claimed and the
 * payment has since moved on to a final one.
 */
export function checkPaymentClaim(
  claim: NotificationClaim,
  now: VerifiedState,
  history: readonly string[],
): ClaimCheck {
  const mismatches: string[] = [];
  if (now.status !== claim.status)
    mismatches.push(`status differs: notified ${claim.status}, the bank says ${now.status || '(none)'}`);
  if (claim.amount && now.amount && claim.amount.cents !== now.amount.cents) {
    mismatches.push(`amount differs: notified ${claim.amount.decimal}, the bank says ${now.amount.decimal}`);
  } else if (claim.amount && !now.amount) {
    mismatches.push(`the bank shows no amount (notified ${claim.amount.decimal})`);
  }
  const matches = mismatches.length === 0;
  const amountAgrees = !mismatches.some((m) => m.includes('amount'));
  const movedOn =
    claim.statusClass === StatusClass.PENDING &&
    now.statusClass !== StatusClass.PENDING &&
    now.statusClass !== StatusClass.UNKNOWN;
  return { matches, holds: matches || (amountAgrees && (movedOn || history.includes(claim.status))), mismatches };
}
