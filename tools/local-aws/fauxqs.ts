import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import {
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  type Message,
  ReceiveMessageCommand,
  SQSClient,
  type SQSClientConfig,
} from '@aws-sdk/client-sqs';
import { LOCAL_AWS } from './local-env';

export interface Fauxqs {
  /** http://sqs.<region>.localhost:<port>, resolved to 127.0.0.1 by resolveLocalhostSubdomains(). */
  readonly endpoint: string;
  readonly port: number;
  /** Stops the server (SQS "down"); safe to call twice. */
  stop(): Promise<void>;
  /** An SQS client pointed at this server. */
  client(config?: SQSClientConfig): SQSClient;
}

/** Starts fauxqs in a child process on 127.0.0.1 (a given port, or a free one). */
export async function startFauxqs(port = 0): Promise<Fauxqs> {
  const child: ChildProcess = spawn(process.execPath, [join(__dirname, 'fauxqs-launcher.mjs')], {
    env: { ...process.env, FAUXQS_PORT: String(port) },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! });
  const [first] = (await Promise.race([
    once(lines, 'line'),
    once(child, 'exit').then(([code]) => {
      throw new Error(`fauxqs exited with ${String(code)} before listening`);
    }),
  ])) as [string];
  const actualPort = (JSON.parse(first) as { port: number }).port;
  // The same host name as fauxqs' queue URLs, so the SDK does not warn that they differ
  // (needs resolveLocalhostSubdomains()).
  const endpoint = `http://sqs.${LOCAL_AWS.region}.localhost:${actualPort}`;
  return {
    endpoint,
    port: actualPort,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    },
    client: (config = {}) =>
      new SQSClient({ region: LOCAL_AWS.region, credentials: LOCAL_AWS.credentials, endpoint, ...config }),
  };
}

/** Creates a queue with a dead-letter queue, redriven after `maxReceiveCount` receives. */
export async function createQueueWithDlq(
  sqs: SQSClient,
  name: string,
  maxReceiveCount = 5,
  visibilityTimeoutSeconds = 30,
  dlqName = `${name}-dlq`,
): Promise<{ queueUrl: string; dlqUrl: string }> {
  const dlq = await sqs.send(new CreateQueueCommand({ QueueName: dlqName }));
  const dlqArn = (
    await sqs.send(new GetQueueAttributesCommand({ QueueUrl: dlq.QueueUrl, AttributeNames: ['QueueArn'] }))
  ).Attributes!.QueueArn!;
  const queue = await sqs.send(
    new CreateQueueCommand({
      QueueName: name,
      Attributes: {
        RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount }),
        MaximumMessageSize: '1048576',
        VisibilityTimeout: String(visibilityTimeoutSeconds),
      },
    }),
  );
  return { queueUrl: queue.QueueUrl!, dlqUrl: dlq.QueueUrl! };
}

/** Receives and deletes everything in a queue. */
export async function drainQueue(sqs: SQSClient, queueUrl: string): Promise<Message[]> {
  const all: Message[] = [];
  for (;;) {
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: 0,
        MessageAttributeNames: ['All'],
      }),
    );
    if (Messages.length === 0) return all;
    all.push(...Messages);
    await sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: Messages.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })),
      }),
    );
  }
}

/** Messages in a queue, visible or in flight. */
export async function queueDepth(sqs: SQSClient, queueUrl: string): Promise<number> {
  const { Attributes = {} } = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl,
      AttributeNames: [
        'ApproximateNumberOfMessages',
        'ApproximateNumberOfMessagesNotVisible',
        'ApproximateNumberOfMessagesDelayed',
      ],
    }),
  );
  // Delayed messages too: a deferred look, or a recovery check waiting for its grace period, is work not done yet.
  return (
    Number(Attributes.ApproximateNumberOfMessages ?? 0) +
    Number(Attributes.ApproximateNumberOfMessagesNotVisible ?? 0) +
    Number(Attributes.ApproximateNumberOfMessagesDelayed ?? 0)
  );
}
