export * from './bank-connection';
export * from './bank-webhook-receiver';
export type { BoletoMovementMappingProps, BoletoStatusMappingProps, PaymentStatusMappingProps } from './settlement-processor';
export { BankEventDetailType, ProcessorMetric, QuarantineAttribute } from '../lambda/shared/processor-contract';
export { ReceiverMetric, METRICS_NAMESPACE } from '../lambda/shared/receiver-contract';
