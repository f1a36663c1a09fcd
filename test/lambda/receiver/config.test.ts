import { readReceiverConfig } from '../../../lambda/receiver/config';
import { ReceiverEnv } from '../../../contracts/receiver';

const complete = {
  [ReceiverEnv.QUEUE_URL]: 'https://sqs.sa-east-1.amazonaws.com/1/q',
  [ReceiverEnv.PAYMENTS_TOKEN_SECRET_ARN]: 'arn:pay',
  [ReceiverEnv.BOLETO_TOKEN_SECRET_ARN]: 'arn:bol',
  [ReceiverEnv.BOLETO_TOKEN_HEADER]: 'X-Webhook-Token',
  [ReceiverEnv.MAX_BODY_BYTES]: '1024',
  [ReceiverEnv.TOKEN_CACHE_TTL_MS]: '5000',
  [ReceiverEnv.ENQUEUE_BUDGET_MS]: '2500',
};

it('reads the settings the construct wrote, and fills no default of its own', () => {
  expect(readReceiverConfig(complete)).toEqual({
    queueUrl: 'https://sqs.sa-east-1.amazonaws.com/1/q', paymentsTokenSecretArn: 'arn:pay', boletoTokenSecretArn: 'arn:bol',
    boletoTokenHeader: 'X-Webhook-Token', maxBodyBytes: 1024, tokenCacheTtlMs: 5000, enqueueBudgetMs: 2500,
  });
  const { [ReceiverEnv.BOLETO_TOKEN_HEADER]: _header, [ReceiverEnv.TOKEN_CACHE_TTL_MS]: _ttl, ...partial } = complete;
  expect(() => readReceiverConfig(partial)).toThrow(`${ReceiverEnv.BOLETO_TOKEN_HEADER} is not set; ${ReceiverEnv.TOKEN_CACHE_TTL_MS} is not set`);
});

it('names every missing or malformed variable in one error', () => {
  expect(() => readReceiverConfig({ [ReceiverEnv.MAX_BODY_BYTES]: 'lots', [ReceiverEnv.ENQUEUE_BUDGET_MS]: '20000' })).toThrow(
    new RegExp([ReceiverEnv.QUEUE_URL, ReceiverEnv.PAYMENTS_TOKEN_SECRET_ARN, ReceiverEnv.BOLETO_TOKEN_SECRET_ARN, `${ReceiverEnv.MAX_BODY_BYTES} must be a whole number from 1 to 524288, got "lots"`, ReceiverEnv.ENQUEUE_BUDGET_MS].join('.*')),
  );
});
