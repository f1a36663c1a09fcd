/** The public API of cdk-bank-webhooks: every export named, so the jsii assembly holds exactly these. */
export { BankWebhookReceiver, type BankWebhookReceiverProps } from './bank-webhook-receiver';
export { ReceiverDashboard, type ReceiverDashboardProps } from './receiver-dashboard';
export {
  type BankConnectionProps,
  type CooperativeConnectionProps,
  type PaymentQueryScopes,
} from './families/cooperative/connection';
export { type PixConnectionProps, type PixOperationPaths, type PixOperationScopes } from './families/pix/connection';
export {
  type PixBulkVerificationProps,
  type PixDomainProps,
  type PixPinnedCertificates,
  type PixReceiverProps,
  type PixSweepProps,
  type PixTruststoreProps,
} from './families/pix/receiver';
export { type OpenTelemetryOptions, TracingMode, type TracingProps } from './core/tracing';
export { PixBasicCredentials, PixGrantTypePlacement } from '../contracts/pix-connection';
export { VerifiedEventRule, type VerifiedEventRuleOptions, type VerifiedEventSource } from './core/verified-event-rule';
export { BankWebhooksConstants } from './constants';
export type { FunctionNetworkProps } from './core/function-network';
export type { ObservabilityProps } from './core/observability-props';
export type { ReceiverNameProps } from './core/metrics';
export { BankStage } from './core/bank-stage';
export { type ConfigurationGuardProps } from './core/configuration-guard';
export { BankWebhookEndpoint, type BankWebhookEndpointProps, type RouteSilenceOptions } from './endpoint';
export {
  SettlementProcessor,
  type SettlementProcessorOptions,
  type SettlementProcessorProps,
  type BoletoMovementMappingProps,
  type BoletoStatusMappingProps,
  type PaymentStatusMappingProps,
  type NotificationJournalOptions,
  type AuditLogOptions,
} from './processor';
export { BankSandbox, type BankSandboxProps } from './sandbox';
export {
  ReconciliationSweep,
  type ReconciliationOptions,
  type ReconciliationSweepOptions,
  type ReconciliationSweepProps,
  type TrackPaymentProducer,
} from './reconciliation';
export {
  type BoletoContractFields,
  BoletoContractStatus,
  BoletoWebhookContract,
  type BoletoWebhookContractOptions,
  type BoletoWebhookContractProps,
  PaymentWebhookRegistration,
  type PaymentWebhookRegistrationOptions,
  type PaymentWebhookRegistrationProps,
  PixAccountWebhook,
  type PixAccountWebhookProps,
  PixKeyWebhook,
  type PixKeyWebhookProps,
  RegistrationProvider,
  type RegistrationEntryProviderSettings,
  type RegistrationOptions,
  type RegistrationProviderSettings,
  type RegistrationResourceOptions,
} from './registration';
export { type BankAccount, ClientCredentialsAuth, ZuluTimestamps } from '../contracts/bank-connection';
export { ProcessorMetric, QuarantineAttribute } from '../contracts/processor';
export {
  BankEventDetailType,
  EventTrigger,
  PaymentKind,
  PixChargeKind,
  StatusClass,
  SubjectKind,
  type PixCharge,
  type PixReceived,
  type PixValueComponents,
  type PixReceivedDetail,
  type PixRefund,
  type PixRefundDetail,
  type PixRecurrence,
  type PixRecurrenceChangedDetail,
  type PixRecurringAttempt,
  type PixRecurringCharge,
  type PixRecurringChargeChangedDetail,
  type PixRecurringEnding,
  type BankEventDetail,
  type BoletoSettledDetail,
  type BoletoSettlement,
  type BoletoSettlementReversedDetail,
  type EventAccount,
  type EventAmount,
  type EventNotification,
  type EventSubject,
  type NotificationClaim,
  type NotificationNotConfirmedDetail,
  type EventDetailBase,
  type OmittedPart,
  type VerifiedState,
} from '../contracts/events';
export { RefundNature, RefundStatus } from '../contracts/pix';
export { RecurringWebhookKind } from '../contracts/pix-recurring';
export { ReceiverMetric } from '../contracts/receiver';
export { JournalObjectLock } from '../contracts/record';
export { SweepMetric, type TrackPaymentAccount, type TrackPaymentDetail } from '../contracts/reconciliation';
export { RegistrationAttribute, RegistrationResourceType } from '../contracts/registration';
