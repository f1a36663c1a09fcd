export { BankWebhookEndpoint, type BankWebhookEndpointProps } from './bank-webhook-endpoint';
