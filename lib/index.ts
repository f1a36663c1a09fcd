export { BankWebhookReceiver, type BankWebhookReceiverProps } from './bank-webhook-receiver';
export { type BankConnectionProps } from './bank-connection';
export { type VerifiedEventRuleOptions } from './core/verified-event-rule';
export { BankWebhooksConstants } from './constants';
export type { FunctionNetworkProps } from './core/function-network';
export * from './endpoint';
export * from './processor';
export * from './reconciliation';
export * from './registration';
export { type BankAccount, ClientCredentialsAuth } from '../contracts/bank-connection';
export { ProcessorMetric, QuarantineAttribute } from '../contracts/processor';
export {
  BankEventDetailType, EventTrigger, PaymentKind, StatusClass, SubjectKind,
  type BankEventDetail, type BoletoSettledDetail, type BoletoSettlement, type BoletoSettlementReversedDetail, type EventAccount,
  type EventAmount, type EventNotification, type EventSubject, type NotificationClaim, type NotificationNotConfirmedDetail,
  type EventDetailBase, type OmittedPart, type VerifiedState,
} from '../contracts/events';
export { ReceiverMetric } from '../contracts/receiver';
export { SweepMetric, type TrackPaymentDetail } from '../contracts/reconciliation';
export { RegistrationAttribute, RegistrationResourceType } from '../contracts/registration';
