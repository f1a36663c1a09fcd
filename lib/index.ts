export * from './bank-connection';
export * from './bank-webhook-receiver';
export { BoletoContractStatus, BoletoWebhookContract, type BoletoWebhookContractOptions, type BoletoWebhookContractProps } from './boleto-webhook-contract';
export * from './payment-webhook-registration';
export { RegistrationProvider, type RegistrationProviderSettings, type RegistrationResourceOptions } from './registration-provider';
export type { FunctionNetworkProps } from './function-network';
export type { BoletoMovementMappingProps, BoletoStatusMappingProps, PaymentStatusMappingProps } from './settlement-processor';
export { ProcessorMetric, QuarantineAttribute } from '../lambda/shared/processor-contract';
export {
  BankEventDetailType, EVENT_DETAIL_VERSION, EventTrigger, PaymentKind, StatusClass, SubjectKind,
  type BankEventDetail, type BoletoSettledDetail, type BoletoSettlement, type BoletoSettlementReversedDetail, type EventAccount,
  type EventAmount, type EventNotification, type EventSubject, type NotificationClaim, type NotificationNotConfirmedDetail,
  type EventDetailBase, type OmittedPart, type VerifiedState,
} from '../lambda/shared/event-contract';
export { ReceiverMetric, METRICS_NAMESPACE } from '../lambda/shared/receiver-contract';
export { RegistrationAttribute, RegistrationResourceType } from '../lambda/shared/registration-contract';
