export {
  BoletoContractStatus,
  type BoletoContractFields,
  BoletoWebhookContract,
  type BoletoWebhookContractOptions,
  type BoletoWebhookContractProps,
} from './boleto-webhook-contract';
export {
  PaymentWebhookRegistration,
  type PaymentWebhookRegistrationOptions,
  type PaymentWebhookRegistrationProps,
} from './payment-webhook-registration';
export { RegistrationProvider, type RegistrationProviderSettings } from '../core/registration-provider';
export type {
  RegistrationEntryProviderSettings,
  RegistrationOptions,
  RegistrationResourceOptions,
} from './registration-resource';
export { PixKeyWebhook, type PixKeyWebhookProps } from './pix-key-webhook';
export { PixAccountWebhook, type PixAccountWebhookProps } from './pix-account-webhook';
