export * from './simulator';
export {
  type SimulatedBankOptions,
  SimulatorEngine,
  type SimulatorEngineOptions,
  type SimulatorHost,
  type SimulatorRequest,
  type SimulatorReply,
  type SimulatorState,
  type DeliverySink,
} from './engine';
export type { SimulatorInfo } from './info';
export * from './control-client';
export * from './certificates';
export * from './model';
export * from './notifier';
export * from './faults';
export * from './behaviour';
export * from './errors';
export type { BankCredentials } from './tokens';
export type {
  OutgoingNotification,
  NewBoletoInput,
  NewPaymentInput,
  BoletoChangeInput,
  PaymentChangeInput,
  BoletoAction,
  PaymentAction,
} from './bank';
export {
  httpCall,
  HttpCallError,
  describeCallError,
  isSelfSigned,
  type HttpCallOptions,
  type HttpCallResult,
} from './https-client';
export {
  ActivationJourney,
  AttemptKind,
  AttemptStatus,
  CancelledBy,
  Periodicity,
  RecStatus,
  RecurringChargeStatus,
  RetryPolicy,
} from '../contracts/pix-recurring';
export { RecurringWebhookKind, type Recurrence, type RecurringCharge } from './pix/recurring-model';
