/** The dead-letter queue's redrive-allow policy, set by the registration provider's handler. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import type { Context } from 'aws-lambda';
import { redriveAllowLifecycle } from '../../../lambda/provider/redrive-allow';
import type { CustomResourceEvent } from '../../../lambda/provider/lifecycle';
import { REDRIVE_ALLOW_RESOURCE_TYPE, RedriveAllowProperty } from '../../../contracts/redrive-allow';
import { localAwsEnvironment } from '../../../tools/local-aws/local-env';
import { captureOutput, loadHandlerBundle } from '../../support/load-handler';

const DLQ_URL = 'https://sqs.sa-east-1.amazonaws.com/111111111111/Stack-DeadLetterQueue-AbC';
const QUEUE_ARN = 'arn:aws:sqs:sa-east-1:111111111111:Stack-Queue-XyZ';

function event(
  requestType: CustomResourceEvent['RequestType'],
  properties: Record<string, unknown> = {},
): CustomResourceEvent {
  return {
    RequestType: requestType,
    ResourceType: REDRIVE_ALLOW_RESOURCE_TYPE,
    ResourceProperties: {
      [RedriveAllowProperty.DEAD_LETTER_QUEUE_URL]: DLQ_URL,
      [RedriveAllowProperty.SOURCE_QUEUE_ARN]: QUEUE_ARN,
      [RedriveAllowProperty.DEAD_LETTER_QUEUE_SETTINGS]: 'SSE-SQS',
      ...properties,
    },
    ...(requestType === 'Create' ? {} : { PhysicalResourceId: DLQ_URL }),
    LogicalResourceId: 'RedriveAllow',
    RequestId: 'r-1',
    StackId: 'arn:aws:cloudformation:sa-east-1:111111111111:stack/Stack/1',
  };
}

function fakeSqs(fail?: Error) {
  const calls: SetQueueAttributesCommand['input'][] = [];
  return {
    calls,
    send: async (command: SetQueueAttributesCommand) => {
      calls.push(command.input);
      if (fail) throw fail;
      return {};
    },
  };
}
const log = { info: () => undefined, warn: () => undefined, error: () => undefined };

it.each(['Create', 'Update'] as const)('%s allows only the source queue to use the dead-letter queue', async (type) => {
  const sqs = fakeSqs();
  await expect(redriveAllowLifecycle(event(type), sqs, log)).resolves.toEqual({ PhysicalResourceId: DLQ_URL });
  expect(sqs.calls).toEqual([
    {
      QueueUrl: DLQ_URL,
      Attributes: {
        RedriveAllowPolicy: JSON.stringify({ redrivePermission: 'byQueue', sourceQueueArns: [QUEUE_ARN] }),
      },
    },
  ]);
});

it("Delete puts back SQS's default (any source queue)", async () => {
  const sqs = fakeSqs();
  await expect(redriveAllowLifecycle(event('Delete'), sqs, log)).resolves.toEqual({ PhysicalResourceId: DLQ_URL });
  expect(sqs.calls).toEqual([
    { QueueUrl: DLQ_URL, Attributes: { RedriveAllowPolicy: '{"redrivePermission":"allowAll"}' } },
  ]);
});

it('Delete succeeds when the queue is already gone, and fails on any other error', async () => {
  const gone = Object.assign(new Error('The specified queue does not exist.'), { name: 'QueueDoesNotExist' });
  await expect(redriveAllowLifecycle(event('Delete'), fakeSqs(gone), log)).resolves.toEqual({
    PhysicalResourceId: DLQ_URL,
  });
  const denied = Object.assign(new Error('not authorized to perform sqs:SetQueueAttributes'), { name: 'AccessDenied' });
  await expect(redriveAllowLifecycle(event('Delete'), fakeSqs(denied), log)).rejects.toThrow('not authorized');
  await expect(redriveAllowLifecycle(event('Create'), fakeSqs(denied), log)).rejects.toThrow('not authorized');
});

it('refuses a property that is not a queue URL or ARN, naming it, and calls nothing', async () => {
  const sqs = fakeSqs();
  await expect(
    redriveAllowLifecycle(event('Create', { [RedriveAllowProperty.SOURCE_QUEUE_ARN]: 'my-queue' }), sqs, log),
  ).rejects.toThrow(
    'The custom resource Custom::BankWebhooksRedriveAllowPolicy: SourceQueueArn must be an SQS queue ARN, got "my-queue" (the BankWebhookEndpoint construct sets it; redeploy rather than editing it)',
  );
  await expect(
    redriveAllowLifecycle(event('Update', { [RedriveAllowProperty.DEAD_LETTER_QUEUE_URL]: undefined }), sqs, log),
  ).rejects.toThrow(
    'The custom resource Custom::BankWebhooksRedriveAllowPolicy lacks DeadLetterQueueUrl (the BankWebhookEndpoint construct sets it; redeploy rather than editing it)',
  );
  expect(sqs.calls).toEqual([]);
});

describe('the registration bundle (the deployed file)', () => {
  it("serves the redrive-allow resource type: it calls SQS's SetQueueAttributes on the dead-letter queue", async () => {
    const requests: { target?: string; body: Record<string, unknown> }[] = [];
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => {
        body += chunk.toString('utf8');
      });
      req.on('end', () => {
        requests.push({
          target: req.headers['x-amz-target'] as string | undefined,
          body: JSON.parse(body || '{}') as Record<string, unknown>,
        });
        res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const handler = loadHandlerBundle<(e: CustomResourceEvent, c: Context) => Promise<unknown>>(
        'provider',
        localAwsEnvironment({ SQS: `http://127.0.0.1:${port}` }),
      );
      const context = { getRemainingTimeInMillis: () => 60_000 } as Context;
      // The SDK sends to the queue URL's host: here, the local server.
      const queueUrl = `http://127.0.0.1:${port}/111111111111/Stack-DeadLetterQueue-AbC`;
      const { result } = await captureOutput(() =>
        handler(event('Create', { [RedriveAllowProperty.DEAD_LETTER_QUEUE_URL]: queueUrl }), context),
      );
      expect(result).toEqual({ PhysicalResourceId: queueUrl });
      expect(requests).toEqual([
        {
          target: 'AmazonSQS.SetQueueAttributes',
          body: {
            QueueUrl: queueUrl,
            Attributes: {
              RedriveAllowPolicy: JSON.stringify({ redrivePermission: 'byQueue', sourceQueueArns: [QUEUE_ARN] }),
            },
          },
        },
      ]);
    } finally {
      server.close();
    }
  });
});
