export { BoletoContractStatus, BoletoWebhookContract, type BoletoWebhookContractOptions, type BoletoWebhookContractProps } from './boleto-webhook-contract';
export { PaymentWebhookRegistration, type PaymentWebhookRegistrationOptions, type PaymentWebhookRegistrationProps } from './payment-webhook-registration';
export { RegistrationProvider, type RegistrationProviderSettings, type RegistrationResourceOptions } from './registration-provider';
