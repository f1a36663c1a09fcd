export { SettlementProcessor } from './settlement-processor';
export type { SettlementProcessorOptions, SettlementProcessorProps } from './settlement-processor-props';
export type {
  BoletoMovementMappingProps,
  BoletoStatusMappingProps,
  PaymentStatusMappingProps,
} from './status-mappings';
export type { NotificationJournalOptions } from './notification-journal';
export type { AuditLogOptions } from './audit-log';
