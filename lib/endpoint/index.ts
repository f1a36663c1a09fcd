export { BankWebhookEndpoint } from './bank-webhook-endpoint';
export type { BankWebhookEndpointProps } from './bank-webhook-endpoint-props';
