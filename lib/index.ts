export * from './bank-connection';
export * from './bank-webhook-receiver';
export { BoletoContractStatus, BoletoWebhookContract, type BoletoWebhookContractOptions, type BoletoWebhookContractProps } from './boleto-webhook-contract';
export * from './payment-webhook-registration';
export { RegistrationProvider, type RegistrationResourceOptions } from './registration-provider';
export type { BoletoMovementMappingProps, BoletoStatusMappingProps, PaymentStatusMappingProps } from './settlement-processor';
export { BankEventDetailType, ProcessorMetric, QuarantineAttribute } from '../lambda/shared/processor-contract';
export { ReceiverMetric, METRICS_NAMESPACE } from '../lambda/shared/receiver-contract';
export { RegistrationAttribute, RegistrationResourceType } from '../lambda/shared/registration-contract';
