import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { DeleteItemCommand } from '@aws-sdk/client-dynamodb';
import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { IdempotencyTable, QUERY_RATE_NAME } from '../../contracts/processor';
import { HANDLER_OUT_DIR } from '../bundle-handlers';
import { LocalFunction } from '../local-aws/local-function';
import { SqsEventSource } from '../local-aws/sqs-event-source';
import { queueDepth } from '../local-aws/fauxqs';
import { CountingProxy, s3Operation } from './counting-proxy';
import type { BenchPeers } from './peers';
import { settledBoletoNotifications, storedBatches } from './sections';

export interface RateLimitedPlan {
  readonly records: number;
  readonly queryLimitPerSecond: number;
  readonly batchSize: number;
  readonly functionTimeoutMs: number;
}

/** One run: `concurrency` environments working through a backlog against a rate-limited query API. */
export interface RateLimitedRun {
  readonly concurrency: number;
  /** Distinct changes published (Boleto Settled events with distinct keys). */
  readonly verified: number;
  readonly seconds: number;
  /** Distinct changes per second over the bank's limit. */
  readonly throughputRatio: number;
  readonly queryCalls: number;
  readonly answers429: number;
  /** 429 answers over all query calls. */
  readonly fraction429: number;
  /** Records whose receive failed (each a step towards the dead-letter queue). */
  readonly failedReceives: number;
  /** Messages sent back with a delay because no slot of the rate came before the deadline. */
  readonly deferredForRate: number;
  readonly deadLettered: number;
  /** AWS requests per verified event, by service and operation. */
  readonly awsCallsPerEvent: Record<string, number>;
}

/** Counts the SQS calls a client makes (the event source mapping's receives and deletes). */
function countingSqs(sqs: SQSClient, counts: Map<string, number>): SQSClient {
  const send = sqs.send.bind(sqs) as (command: { constructor: { name: string } }) => Promise<unknown>;
  return new Proxy(sqs, {
    get(target, property, receiver) {
      if (property !== 'send') return Reflect.get(target, property, receiver) as unknown;
      return (command: { constructor: { name: string } }) => {
        const name = command.constructor.name.replace(/Command$/, '');
        counts.set(name, (counts.get(name) ?? 0) + 1);
        return send(command);
      };
    },
  });
}

/**
 * The processor bundle as Lambda runs it under a backlog: `concurrency` execution environments
 * (one process each, one invocation at a time: the mapping's maximum concurrency), fed by the
 * queue, against a query API limited to `queryLimitPerSecond`, with the connection's
 * `queriesPerSecond` set to that limit (what a user configures). Runs until every change is
 * published, counting the bank's answers (the simulator's own counts) and the AWS requests.
 */
export async function rateLimitedRun(peers: BenchPeers, plan: RateLimitedPlan, concurrency: number, logDir: string): Promise<RateLimitedRun> {
  const bodies = await settledBoletoNotifications(peers.simulator.control, plan.records);
  await peers.purgeQueue();
  // A schedule left by an earlier run is idle by now, but start from none.
  await peers.dynamo.client.send(new DeleteItemCommand({ TableName: 'bench-idempotency', Key: { [IdempotencyTable.KEY]: { S: `rate#${QUERY_RATE_NAME}` } } }));
  const proxies = {
    DYNAMODB: new CountingProxy(peers.dynamo.endpoint), EVENTBRIDGE: new CountingProxy(peers.eventsEndpoint), SECRETS_MANAGER: new CountingProxy(peers.secretsEndpoint),
    S3: new CountingProxy(peers.s3Endpoint, s3Operation),
  };
  const endpoints = { DYNAMODB: await proxies.DYNAMODB.start(), EVENTBRIDGE: await proxies.EVENTBRIDGE.start(), SECRETS_MANAGER: await proxies.SECRETS_MANAGER.start(), S3: await proxies.S3.start() };
  const environment = peers.processorEnvironment({ queriesPerSecond: plan.queryLimitPerSecond, endpoints });
  const log = createWriteStream(join(logDir, `rate-limited-${concurrency}.log`), { flags: 'a' });
  let deferredForRate = 0;
  let sentBack = 0;
  const functions = Array.from({ length: concurrency }, (_, i) => new LocalFunction({
    name: `processor-${i}`, entry: join(HANDLER_OUT_DIR, 'processor', 'index.js'), environment, timeoutMs: plan.functionTimeoutMs, memoryMb: 512,
    onLog: (line) => {
      log.write(`${line}\n`);
      if (line.includes('No slot of the bank')) deferredForRate++;
      if (line.includes('"NotificationsRequeued"')) sentBack++;
    },
  }));
  const sqsCalls = new Map<string, number>();
  const sqs = countingSqs(peers.sqs, sqsCalls);
  let failedReceives = 0;
  const sources = functions.map((fn) => new SqsEventSource({
    sqs, queueUrl: peers.queueUrl, batchSize: plan.batchSize, functionTimeoutMs: plan.functionTimeoutMs,
    handler: (event: SQSEvent) => fn.invoke(event),
    onBatch: (_records, result) => {
      failedReceives += result.failed;
    },
  }));
  try {
    // Each environment's init (a cold start) before the clock: the backlog is what is measured.
    await Promise.all(functions.map((fn) => fn.invoke({ Records: [] })));
    for (const batch of storedBatches(bodies, 10)) {
      await peers.sqs.send(new SendMessageBatchCommand({ QueueUrl: peers.queueUrl, Entries: batch.map((body, i) => ({ Id: String(i), MessageBody: body })) }));
    }
    peers.events.clear();
    Object.values(proxies).forEach((proxy) => proxy.take());
    sqsCalls.clear();
    await peers.simulator.control.setFaults({ rateLimitPerSecond: { query: plan.queryLimitPerSecond } });
    const started = performance.now();
    sources.forEach((source) => source.start(1));
    const keys = new Set<string>();
    const until = Date.now() + 10 * (plan.records / plan.queryLimitPerSecond) * 1000;
    while (keys.size < plan.records) {
      if (Date.now() > until) throw new Error(`only ${keys.size} of ${plan.records} changes published at concurrency ${concurrency}; see the logs in ${logDir}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
      for (const event of peers.events.events) keys.add(String(event.detail.idempotencyKey));
    }
    const seconds = (performance.now() - started) / 1000;
    const { query } = await peers.simulator.control.apiCallCounts();
    await Promise.all(sources.map((source) => source.stop()));
    const verified = keys.size;
    const perEvent = (n: number) => Math.round((n / verified) * 100) / 100;
    const awsCallsPerEvent: Record<string, number> = {};
    for (const [service, proxy] of Object.entries(proxies)) {
      for (const [operation, n] of Object.entries(proxy.take().byOperation)) awsCallsPerEvent[`${service}.${operation}`] = perEvent(n);
    }
    for (const [operation, n] of sqsCalls) awsCallsPerEvent[`SQS.${operation} (event source)`] = perEvent(n);
    if (sentBack) awsCallsPerEvent['SQS.SendMessage (sent back)'] = perEvent(sentBack);
    return {
      concurrency, verified, seconds,
      throughputRatio: verified / seconds / plan.queryLimitPerSecond,
      queryCalls: query.calls, answers429: query.throttled, fraction429: query.calls ? query.throttled / query.calls : 0,
      failedReceives, deferredForRate, deadLettered: await queueDepth(peers.sqs, peers.dlqUrl),
      awsCallsPerEvent,
    };
  } finally {
    await Promise.all(sources.map((source) => source.stop()));
    await Promise.all(functions.map((fn) => fn.stop()));
    await Promise.all(Object.values(proxies).map((proxy) => proxy.stop()));
    await peers.simulator.control.clearFaults();
    await new Promise((resolve) => log.end(resolve));
  }
}
