/**
 * A consumer wired with `onVerifiedEvent(..., { consumer })`, over the local runner: the rule
 * delivers into the consumer's own queue, the function reads it, and an event the function keeps
 * failing waits in the queue, then lands in the dead-letter queue the template alarms on. Never
 * gone, unlike a Lambda target that EventBridge invokes asynchronously.
 */
import { join } from 'node:path';
import type { Message } from '@aws-sdk/client-sqs';
import { Duration } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { BankEventDetailType } from '../../../contracts/events';
import { BankWebhooksExampleStack } from '../../../examples/basic-receiver/app';
import { drainQueue } from '../../../tools/local-aws/fauxqs';
import { LocalRunner } from '../../../tools/local-runner/runner';
import { waitFor } from '../../support/wait';

jest.setTimeout(120_000);

let runner: LocalRunner;

beforeAll(async () => {
  runner = await LocalRunner.start({
    stack: (app, id) => {
      const stack = new BankWebhooksExampleStack(app, id);
      const fn = new lambda.Function(stack, 'SettlementsConsumer', {
        runtime: lambda.Runtime.NODEJS_22_X,
        handler: 'index.handler',
        timeout: Duration.seconds(5),
        code: lambda.Code.fromInline('exports.handler = async () => ({ batchItemFailures: [] });'),
      });
      stack.receiver.onVerifiedEvent('QueuedSettledRule', BankEventDetailType.BOLETO_SETTLED, {
        consumer: fn,
        consumerMaxReceiveCount: 2,
      });
      return stack;
    },
    consumer: { entry: join(__dirname, '..', '..', 'fixtures', 'consumers', 'throwing-queue-consumer.ts') },
    consumerRule: 'BankWebhooksQueuedSettledRule',
    consumerVisibilityTimeoutSeconds: 1,
  });
  await runner.register();
});

afterAll(async () => {
  if (!runner) return;
  await runner.unregister();
  await runner.stop();
});

it('keeps a settlement the consumer keeps failing: received again, then in the alarmed dead-letter queue', async () => {
  const boleto = await runner.control.createBoleto({ valor: '42.00' });
  await runner.control.settleBoleto(boleto.nossoNumero);
  await runner.settle(30_000);
  expect(runner.verifiedEvents().map((e) => e.detailType)).toEqual([BankEventDetailType.BOLETO_SETTLED]);
  expect(runner.consumerQueueUrl).toBeDefined();
  // Tried twice (consumerMaxReceiveCount), then moved: found in the dead-letter queue, not dropped.
  const dead: Message[] = [];
  await waitFor(
    async () => {
      dead.push(...(await drainQueue(runner.sqs, runner.consumerDlqUrl!)));
      return dead.length > 0;
    },
    "the event in the consumer's dead-letter queue",
    30_000,
    200,
  );
  expect(dead).toHaveLength(1);
  const event = JSON.parse(dead[0].Body!) as { 'detail-type': string; detail: { subject: { nossoNumero: string } } };
  expect(event['detail-type']).toBe(BankEventDetailType.BOLETO_SETTLED);
  expect(event.detail.subject.nossoNumero).toBe(boleto.nossoNumero);
  expect(runner.counts().consumerErrors).toBe(2);
  // The template's alarm watches that very queue.
  const dlqLogicalId = Object.keys(runner.template.Resources).find(
    (id) =>
      id.startsWith('BankWebhooksQueuedSettledRuleDeadLetterQueue') &&
      runner.template.Resources[id].Type === 'AWS::SQS::Queue',
  );
  const alarm = runner.deployment.alarms.find((a) =>
    a.logicalId.startsWith('BankWebhooksQueuedSettledRuleDeadLetterQueueAlarm'),
  );
  expect(alarm?.metric).toEqual({
    namespace: 'AWS/SQS',
    name: 'ApproximateNumberOfMessagesVisible',
    dimensions: { QueueName: { 'Fn::GetAtt': [dlqLogicalId, 'QueueName'] } },
  });
});
