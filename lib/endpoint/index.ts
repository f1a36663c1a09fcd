export { BankWebhookEndpoint } from './bank-webhook-endpoint';
export type { BankWebhookEndpointProps, RouteSilenceOptions } from './bank-webhook-endpoint-props';
