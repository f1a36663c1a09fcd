import { readReceiverConfig } from '../../../lambda/receiver/config';
import { ReceiverEnv } from '../../../lambda/shared/receiver-contract';

const complete = {
  [ReceiverEnv.QUEUE_URL]: 'https://sqs.sa-east-1.amazonaws.com/1/q',
  [ReceiverEnv.PAYMENTS_TOKEN_SECRET_ARN]: 'arn:pay',
  [ReceiverEnv.BOLETO_TOKEN_SECRET_ARN]: 'arn:bol',
};

it('reads the settings, with defaults for the optional ones', () => {
  expect(readReceiverConfig(complete)).toEqual({
    queueUrl: 'https://sqs.sa-east-1.amazonaws.com/1/q', paymentsTokenSecretArn: 'arn:pay', boletoTokenSecretArn: 'arn:bol',
    boletoTokenHeader: 'Authorization', maxBodyBytes: 262_144, tokenCacheTtlMs: 60_000, enqueueBudgetMs: 3_000,
  });
});

it('names every missing or malformed variable in one error', () => {
  expect(() => readReceiverConfig({ [ReceiverEnv.MAX_BODY_BYTES]: 'lots', [ReceiverEnv.ENQUEUE_BUDGET_MS]: '20000' })).toThrow(
    new RegExp([ReceiverEnv.QUEUE_URL, ReceiverEnv.PAYMENTS_TOKEN_SECRET_ARN, ReceiverEnv.BOLETO_TOKEN_SECRET_ARN, `${ReceiverEnv.MAX_BODY_BYTES} must be a whole number from 1 to 524288, got "lots"`, ReceiverEnv.ENQUEUE_BUDGET_MS].join('.*')),
  );
});
