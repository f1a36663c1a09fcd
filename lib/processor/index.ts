export { SettlementProcessor, type SettlementProcessorOptions, type SettlementProcessorProps } from './settlement-processor';
export type { BoletoMovementMappingProps, BoletoStatusMappingProps, PaymentStatusMappingProps } from './status-mappings';
