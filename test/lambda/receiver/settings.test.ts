import { readReceiverSettings } from '../../../lambda/receiver/settings';
import { RECEIVER_SETTINGS_ENV } from '../../../contracts/receiver';
import { receiverEnvironment } from '../../../lib/endpoint/receiver-settings';

const complete = {
  queueUrl: 'https://sqs.sa-east-1.amazonaws.com/1/q',
  paymentsTokenSecretArn: 'arn:pay',
  boletoTokenSecretArn: 'arn:bol',
  boletoTokenHeader: 'X-Webhook-Token',
  maxBodyBytes: 1024,
  tokenCacheTtlMs: 5000,
  enqueueBudgetMs: 2500,
  receiverName: 'Billing/BankWebhooks',
};
const env = (settings: unknown) => ({ [RECEIVER_SETTINGS_ENV]: JSON.stringify(settings) });

it('reads the settings the construct wrote, and fills no default of its own', () => {
  expect(readReceiverSettings(env(complete))).toEqual(complete);
  const { boletoTokenHeader: _header, tokenCacheTtlMs: _ttl, ...partial } = complete;
  expect(() => readReceiverSettings(env(partial))).toThrow(
    `${RECEIVER_SETTINGS_ENV} lacks boletoTokenHeader, tokenCacheTtlMs (the BankWebhookEndpoint construct sets it; redeploy rather than editing it)`,
  );
});

it('reads back what the construct resolves, defaults filled', () => {
  const written = receiverEnvironment({
    queueUrl: complete.queueUrl,
    paymentsTokenSecretArn: 'arn:pay',
    boletoTokenSecretArn: 'arn:bol',
  });
  expect(readReceiverSettings(written)).toEqual({
    ...complete,
    boletoTokenHeader: 'Authorization',
    maxBodyBytes: 256 * 1024,
    tokenCacheTtlMs: 60_000,
    enqueueBudgetMs: 3_000,
    receiverName: 'bank-webhooks',
  });
});

it('names every missing or malformed field in one error, and the construct that writes them', () => {
  expect(() => readReceiverSettings(env({ maxBodyBytes: 'lots', enqueueBudgetMs: 20000 }))).toThrow(
    new RegExp(
      [
        'lacks queueUrl, paymentsTokenSecretArn, boletoTokenSecretArn, boletoTokenHeader, receiverName, tokenCacheTtlMs',
        'maxBodyBytes must be a whole number from 1 to 524288, got "lots"',
        'enqueueBudgetMs must be a whole number from 1 to 9000, got 20000',
        'the BankWebhookEndpoint construct sets it',
      ].join('.*'),
    ),
  );
  expect(() => readReceiverSettings({})).toThrow(
    `${RECEIVER_SETTINGS_ENV} is not set (the BankWebhookEndpoint construct sets it; redeploy rather than editing it)`,
  );
  expect(() => readReceiverSettings({ [RECEIVER_SETTINGS_ENV]: '{"queueUrl":' })).toThrow(
    `${RECEIVER_SETTINGS_ENV} is not JSON`,
  );
});
