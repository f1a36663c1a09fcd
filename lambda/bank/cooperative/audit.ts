/** How the events account for this bank's notification items (a boleto's event, a payment's status): the audit's part of the family. */
import { BankEventDetailType, StatusClass } from '../../../contracts/events';
import type { PaymentStatusMapping } from '../../../contracts/processor';
import { type AuditedEvent, type FamilyAudit, Outcome } from '../audit';
import type { NotificationItem } from './notification';
import { boletoClaim, paymentClaim } from './state';

/** `<kind>:<nossoNumero or idTransacao>:<id>` of a bank notification's item. */
function identityOf(item: NotificationItem): string {
  return item.kind === 'boleto-event'
    ? `boleto:${item.nossoNumero}:${item.idEventoWebhook}`
    : `payment:${item.idTransacao}:${item.status}`;
}

/** How the published events account for one of the bank's notification items, or undefined. */
function accountFor(
  item: NotificationItem,
  events: readonly AuditedEvent[],
  paymentStatuses: PaymentStatusMapping,
): Outcome | undefined {
  const name = item.kind === 'boleto-event' ? item.nossoNumero : item.idTransacao;
  const mine = events.filter(
    (e) => e.subjectName === name && e.subjectId.startsWith(item.kind === 'boleto-event' ? 'boleto:' : 'payment:'),
  );
  const id = item.kind === 'boleto-event' ? item.idEventoWebhook : item.status;
  if (mine.some((e) => e.detailType === BankEventDetailType.NOTIFICATION_NOT_CONFIRMED && e.notificationId === id))
    return Outcome.NOT_CONFIRMED;
  const changes = mine.filter((e) => e.detailType !== BankEventDetailType.NOTIFICATION_NOT_CONFIRMED);
  if (item.kind === 'boleto-event') {
    const claim = boletoClaim(item);
    if (claim.statusClass === StatusClass.OPEN) {
      // A reversal is borne out by a published reversal, or by no settlement ever published (nothing to take back).
      const settled = changes.some((e) => e.detailType === BankEventDetailType.BOLETO_SETTLED);
      return !settled || changes.some((e) => e.detailType === BankEventDetailType.BOLETO_SETTLEMENT_REVERSED)
        ? Outcome.VERIFIED
        : undefined;
    }
    return changes.some(
      (e) =>
        e.statusClass === claim.statusClass &&
        (!claim.amount || e.settledCents === undefined || e.settledCents === claim.amount.cents),
    )
      ? Outcome.VERIFIED
      : undefined;
  }
  const claim = paymentClaim(item, paymentStatuses);
  const movedOn =
    claim.statusClass === StatusClass.PENDING && changes.some((e) => e.statusClass !== StatusClass.PENDING);
  return changes.some((e) => e.status === item.status) || movedOn ? Outcome.VERIFIED : undefined;
}

/** The bank's items: each accounted for by a change of the state it claimed, or a Notification Not Confirmed naming it. */
export const cooperativeAudit: FamilyAudit = {
  family: 'cooperative',
  identity: (item) => identityOf(item as NotificationItem),
  account: (item, events, context) => ({
    kind: 'found',
    outcome: accountFor(item as NotificationItem, events, context.paymentStatuses),
  }),
  unreadableQuarantined: true,
};
