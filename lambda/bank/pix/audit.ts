/**
 * How the events account for a Pix callback's items (a Pix, a refund of one) and Pix Automático's
 * (a recurrence, a recurring charge): the audit's part of the family.
 */
import { BankEventDetailType } from '../../../contracts/events';
import { normalizePixKey } from '../../../contracts/pix';
import { type AuditContext, type FamilyAudit, Invariant, type ItemAccount, Outcome } from '../audit';
import type { SubjectItem } from '../family';
import type { PixNotificationItem } from './notification';
import type { RecurrenceItem, RecurringChargeItem } from './recurring-notification';

type RecurringItem = RecurrenceItem | RecurringChargeItem;
const isRecurring = (item: SubjectItem): item is RecurringItem =>
  item.kind === 'pix-recurrence' || item.kind === 'pix-recurring-charge';
const recurringIdentity = (item: RecurringItem) =>
  item.kind === 'pix-recurrence' ? `pix-recurrence:${item.idRec}` : `pix-recurring-charge:${item.txid}`;

/**
 * A recurring callback's item names a subject and claims nothing: it is accounted for by any event
 * of that subject; where the provider is known to hold no such subject for us, by none (published:
 * unverified). Without events, the subject's record (another receiver's) or a quarantine must.
 */
function accountRecurring(
  item: RecurringItem,
  events: Parameters<FamilyAudit['account']>[1],
  context: AuditContext,
): ItemAccount {
  const [id, published, held] =
    item.kind === 'pix-recurrence'
      ? [item.idRec, events.filter((e) => e.idRec === item.idRec && e.txid === undefined), context.recurringHeld?.recs]
      : [item.txid, events.filter((e) => e.txid === item.txid), context.recurringHeld?.cobrs];
  if (held && !held.includes(id))
    return published.length
      ? {
          kind: 'broken',
          invariant: Invariant.UNVERIFIED,
          detail: `${recurringIdentity(item)} is not one the provider holds for us (another customer's, or forged) but was published`,
        }
      : { kind: 'none' };
  return { kind: 'found', outcome: published.length ? Outcome.VERIFIED : undefined };
}

const refundOf = (item: PixNotificationItem) => (item.kind === 'pix-refund' ? item.refund : undefined);
const endToEndIdOf = (item: PixNotificationItem) => (item.kind === 'pix' ? item.pix.endToEndId : item.endToEndId);

function identityOf(item: PixNotificationItem): string {
  const refund = refundOf(item);
  return refund ? `pix-refund:${endToEndIdOf(item)}:${refund.id}:${refund.status}` : `pix:${endToEndIdOf(item)}`;
}

/** Whether a key is known not to be the receiver's (unknown keys: never). */
function anotherKey(context: AuditContext, chave: string | undefined): boolean {
  return !!context.pixKeys && chave !== undefined && !context.pixKeys.includes(normalizePixKey(chave)?.key ?? chave);
}

function account(
  subject: SubjectItem,
  events: Parameters<FamilyAudit['account']>[1],
  context: AuditContext,
): ItemAccount {
  if (isRecurring(subject)) return accountRecurring(subject, events, context);
  const item = subject as PixNotificationItem;
  const refund = refundOf(item);
  const e2e = endToEndIdOf(item);
  const identity = identityOf(item);
  const published = events.filter(
    (e) => e.endToEndId === e2e && (refund ? e.refundId === refund.id : e.refundId === undefined),
  );
  if (anotherKey(context, item.kind === 'pix' ? item.pix.chave : item.chave)) {
    // The callback's key decides nothing: the Pix may still be published (by the sweep) where the
    // provider's answers show it under one of the receiver's keys, or under none (the keyless owner).
    const received = events.filter((e) => e.endToEndId === e2e && e.detailType === BankEventDetailType.PIX_RECEIVED);
    const shownElsewhere = received.some((e) => anotherKey(context, e.chave));
    const wrong = published.filter(
      (e) =>
        e.detailType !== BankEventDetailType.NOTIFICATION_NOT_CONFIRMED &&
        (shownElsewhere || (refund !== undefined && !received.length)),
    );
    if (wrong.length)
      return {
        kind: 'broken',
        invariant: Invariant.UNVERIFIED,
        detail: `${identity} names a Pix key that is not the receiver's and was published ${shownElsewhere ? 'with the provider showing it under another key' : 'with no Pix Received of its Pix'}`,
      };
    return { kind: 'counted', outcome: published.length ? Outcome.VERIFIED : Outcome.FOREIGN };
  }
  const held = context.pixHeld?.find((pix) => pix.endToEndId === e2e);
  if (context.pixHeld && !held) {
    return published.length
      ? {
          kind: 'broken',
          invariant: Invariant.UNVERIFIED,
          detail: `${identity} is not a Pix the provider holds for us (another customer's, or forged) but was published`,
        }
      : { kind: 'none' };
  }
  if (held && refund && !held.devolucoes.some((d) => d.id === refund.id && d.status === String(refund.status)))
    return { kind: 'none' };
  const type = refund ? BankEventDetailType.PIX_REFUND : BankEventDetailType.PIX_RECEIVED;
  const found = published.some((e) => e.detailType === type && (!refund || e.status === String(refund.status)))
    ? Outcome.VERIFIED
    : published.some((e) => e.detailType === BankEventDetailType.NOTIFICATION_NOT_CONFIRMED)
      ? Outcome.NOT_CONFIRMED
      : undefined;
  return { kind: 'found', outcome: found };
}

/**
 * A Pix callback's items: each Pix and refund accounted for once by its events, where the provider
 * holds it for us under one of the receiver's keys; a callback naming another key is dropped, never
 * published. A callback none of whose items can be read is not quarantined (anyone at the provider
 * can send one): nothing to account for.
 */
export const pixAudit: FamilyAudit = {
  family: 'pix',
  identity: (item) => (isRecurring(item) ? recurringIdentity(item) : identityOf(item as PixNotificationItem)),
  account,
  unreadableQuarantined: false,
};
