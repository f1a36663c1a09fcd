export * from './bank-webhook-receiver';
