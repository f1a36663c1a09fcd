/**
 * Notifications first: a settlement notification's time to its verified event with and without
 * 200 Track Payment events queued ahead of it, against a query API limited to a few calls a
 * second (the 5/s). The processor bundle runs as Lambda runs it (environments fed by the
 * queue); each Track Payment names a payment the bank knows and the processor does not, so each
 * costs a query when its look is admitted.
 */
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { DeleteItemCommand } from '@aws-sdk/client-dynamodb';
import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { IdempotencyTable, LOOK_RATE_NAME, ProcessorDefaults, QUERY_RATE_NAME } from '../../contracts/processor';
import { TRACK_PAYMENT_DETAIL_TYPE } from '../../contracts/reconciliation';
import { mapConcurrently } from '../../lambda/shared/concurrency';
import { HANDLER_OUT_DIR } from '../bundle-handlers';
import { LocalFunction } from '../local-aws/local-function';
import { SqsEventSource } from '../local-aws/sqs-event-source';
import type { BenchPeers } from './peers';
import { settledBoletoNotifications, storedBatches } from './sections';

export interface LookFloodPlan {
  /** Track Payment events queued ahead of the notification. */
  readonly looks: number;
  readonly queryLimitPerSecond: number;
  /** Processor environments (the mapping's maximum concurrency). */
  readonly concurrency: number;
  readonly rounds: number;
  readonly functionTimeoutMs: number;
}

/** One round's times, in milliseconds, from the notification's send to its event. */
export interface LookFloodRound {
  readonly aloneMs: number;
  readonly behindLooksMs: number;
}

/** Runs `plan.rounds` rounds, each timing a notification alone and one behind the flood (alternating which goes first). */
export async function lookFloodRounds(peers: BenchPeers, plan: LookFloodPlan, logDir: string): Promise<LookFloodRound[]> {
  const environment = peers.processorEnvironment({ queriesPerSecond: plan.queryLimitPerSecond });
  const log = createWriteStream(join(logDir, 'look-flood.log'), { flags: 'a' });
  // As Lambda runs the function's two event source mappings: environments of their own for each queue.
  const mappings = [
    { queueUrl: peers.queueUrl, concurrency: plan.concurrency },
    { queueUrl: peers.lookQueueUrl, concurrency: ProcessorDefaults.lookMaxConcurrency },
  ];
  const functions = mappings.flatMap((mapping, m) => Array.from({ length: mapping.concurrency }, (_, i) => ({
    queueUrl: mapping.queueUrl,
    fn: new LocalFunction({
      name: `flood-processor-${m}-${i}`, entry: join(HANDLER_OUT_DIR, 'processor', 'index.js'), environment, timeoutMs: plan.functionTimeoutMs, memoryMb: 512,
      onLog: (line) => log.write(`${line}\n`),
    }),
  })));
  const sources = functions.map(({ queueUrl, fn }) => new SqsEventSource({
    sqs: peers.sqs, queueUrl, batchSize: 10, functionTimeoutMs: plan.functionTimeoutMs,
    handler: (event: SQSEvent) => fn.invoke(event),
  }));
  try {
    await Promise.all(functions.map(({ fn }) => fn.invoke({ Records: [] })));
    await peers.simulator.control.setFaults({ rateLimitPerSecond: { query: plan.queryLimitPerSecond } });
    sources.forEach((source) => source.start(1));
    const rounds: LookFloodRound[] = [];
    // One round not counted: the environments' first queries (tokens, connections).
    for (let round = 0; round <= plan.rounds; round++) {
      const alone = async () => timeToEvent(peers, [], 60_000);
      const behind = async () => timeToEvent(peers, await trackPaymentBodies(peers, plan.looks, plan.queryLimitPerSecond), 60_000);
      const [aloneMs, behindLooksMs] = round % 2 ? [await alone(), await behind()] : await behind().then(async (b) => [await alone(), b]);
      if (round > 0) rounds.push({ aloneMs, behindLooksMs });
    }
    return rounds;
  } finally {
    await Promise.all(sources.map((source) => source.stop()));
    await Promise.all(functions.map(({ fn }) => fn.stop()));
    await peers.simulator.control.clearFaults();
    await new Promise((resolve) => log.end(resolve));
  }
}

/**
 * Queues `ahead` (already made) in the look queue, as the Track Payment rule does, then one
 * settlement notification in the notification queue, and answers how long its
 * Boleto Settled event took to appear. Then empties the queue (the looks still waiting for their
 * share) and the rate schedules, so the next run starts from nothing.
 */
async function timeToEvent(peers: BenchPeers, ahead: readonly string[], timeoutMs: number): Promise<number> {
  const [body] = await settledBoletoNotifications(peers.simulator.control, 1);
  const nossoNumero = String((body as { nossoNumero: string }).nossoNumero);
  const [[message]] = storedBatches([body], 1);
  for (let i = 0; i < ahead.length; i += 10) {
    await peers.sqs.send(new SendMessageBatchCommand({ QueueUrl: peers.lookQueueUrl, Entries: ahead.slice(i, i + 10).map((b, j) => ({ Id: String(j), MessageBody: b })) }));
  }
  const sentAt = performance.now();
  await peers.sqs.send(new SendMessageBatchCommand({ QueueUrl: peers.queueUrl, Entries: [{ Id: '0', MessageBody: message }] }));
  const until = Date.now() + timeoutMs;
  for (;;) {
    if (peers.events.events.some((e) => (e.detail as { subject?: { nossoNumero?: string } }).subject?.nossoNumero?.endsWith(nossoNumero.padStart(9, '0')))) break;
    if (Date.now() > until) throw new Error(`the settlement of ${nossoNumero} was not published within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const ms = performance.now() - sentAt;
  await peers.purgeQueue();
  for (const name of [LOOK_RATE_NAME, QUERY_RATE_NAME]) {
    await peers.dynamo.client.send(new DeleteItemCommand({ TableName: peers.tableName, Key: { [IdempotencyTable.KEY]: { S: `rate#${name}` } } }));
  }
  return ms;
}

/** `count` Track Payment events as EventBridge delivers them to SQS, each for a new payment the bank knows (its notifications lost). */
async function trackPaymentBodies(peers: BenchPeers, count: number, queryLimitPerSecond: number): Promise<string[]> {
  const control = peers.simulator.control;
  const account = peers.simulator.accounts[0];
  const limit = { rateLimitPerSecond: { query: queryLimitPerSecond } };
  await control.setFaults({ loseDeliveries: true, ...limit });
  const ids: string[] = Array.from({ length: count }, () => '');
  try {
    await mapConcurrently(Array.from({ length: count }, (_, i) => i), 8, async (i) => {
      ids[i] = (await control.createPayment({ tipo: 'pix', valor: 10 + (i % 90) })).payment.idTransacao;
    });
  } finally {
    await control.setFaults(limit);
  }
  return ids.map((idTransacao) => JSON.stringify({
    version: '0', id: randomUUID(), 'detail-type': TRACK_PAYMENT_DETAIL_TYPE, source: 'acme.payments', account: '111111111111',
    time: new Date().toISOString(), region: 'sa-east-1', resources: [],
    detail: { paymentKind: 'pix', idTransacao, account: { cooperativa: account.cooperativa, conta: account.conta } },
  }));
}
