/**
 * Pix at the peak in `npm run bench`: a burst far above the query rate (50 Pix a second for a
 * minute against 10 queries a second; half pay immediate charges created within the hour before,
 * half static codes), each Pix made at the simulated provider at its moment and its callback
 * stored in the queue as the receiver stores it, worked through by the processor bundle in four
 * environments. Run twice side by side: verifying by listing (the default behind mutual TLS), and
 * one by one (the same receiver with it turned off). Measured: the time from the last callback to
 * the last Pix Received published, and the provider's query calls per Pix.
 */
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { DeleteItemCommand } from '@aws-sdk/client-dynamodb';
import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { BankEventDetailType } from '../../contracts/events';
import { IdempotencyTable, type PixBulkSettings, QUERY_RATE_NAME } from '../../contracts/processor';
import { HANDLER_OUT_DIR } from '../bundle-handlers';
import { LocalFunction } from '../local-aws/local-function';
import { SqsEventSource } from '../local-aws/sqs-event-source';
import type { BenchPeers } from './peers';
import { formatTable } from './report';
import { type BenchContext, storedBatches } from './sections';
import { round } from './stats';

export const BURST = {
  perSecond: 50,
  seconds: 60,
  queryLimitPerSecond: 10,
  environments: 4,
  /** How long the one-by-one path is followed after the last callback (it needs minutes more; what it published by then is reported). */
  oneByOneCapMs: 180_000,
  bulk: { afterSeconds: 10, chargeReachMinutes: 60 } satisfies PixBulkSettings,
} as const;

interface BurstRun {
  readonly pix: number;
  readonly published: number;
  /** From the last callback stored to the last Pix Received published (or to the cap). */
  readonly lastEventAfterMs: number;
  readonly queryCalls: number;
  readonly queriesPerPix: number;
  readonly answers429: number;
  /** The provider's answered queries and listings by operation. */
  readonly byOperation: Record<string, number>;
}

/** One burst through `environments` processor environments, bulk verification as `bulk` says. */
async function burst(peers: BenchPeers, bulk: PixBulkSettings | undefined, logDir: string, name: string): Promise<BurstRun> {
  const total = BURST.perSecond * BURST.seconds;
  const control = peers.simulator.control;
  const [chave] = (await control.pix.state()).keys;
  // The charges the burst pays, created before it (within the hour).
  const charges: string[] = [];
  for (let i = 0; i < total / 2; i++) charges.push((await control.pix.createCharge({ kind: 'cob', chave, valor: `${(i % 90) + 10}.00` })).txid);
  await peers.purgeQueue();
  await peers.dynamo.client.send(new DeleteItemCommand({ TableName: peers.tableName, Key: { [IdempotencyTable.KEY]: { S: `rate#${QUERY_RATE_NAME}` } } }));
  const environment = peers.processorEnvironment({ pix: true, pixAuthenticated: true, queriesPerSecond: BURST.queryLimitPerSecond, ...(bulk ? { pixBulk: bulk } : {}) });
  const log = createWriteStream(join(logDir, `pix-burst-${name}.log`), { flags: 'a' });
  const functions = Array.from({ length: BURST.environments }, (_, i) => new LocalFunction({
    name: `processor-${name}-${i}`, entry: join(HANDLER_OUT_DIR, 'processor', 'index.js'), environment, timeoutMs: 30_000, memoryMb: 512,
    onLog: (line) => log.write(`${line}\n`),
  }));
  const sources = functions.map((fn) => new SqsEventSource({ sqs: peers.sqs, queueUrl: peers.queueUrl, batchSize: 10, functionTimeoutMs: 30_000, handler: (event: SQSEvent) => fn.invoke(event) }));
  try {
    await Promise.all(functions.map((fn) => fn.invoke({ Records: [] })));
    peers.events.clear();
    const before = peers.simulator.queryCounts();
    await control.setFaults({ rateLimitPerSecond: { query: BURST.queryLimitPerSecond } });
    sources.forEach((source) => source.start(1));
    const ids = new Set<string>();
    // 50 a second: every 200 ms, ten Pix made at the provider and their callbacks stored.
    const started = performance.now();
    for (let tick = 0; tick < (BURST.perSecond * BURST.seconds) / 10; tick++) {
      const due = started + tick * 200;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - performance.now())));
      const paid = await Promise.all(Array.from({ length: 10 }, (_, j) => {
        const i = tick * 10 + j;
        return i % 2 === 0
          ? control.pix.payCharge(charges[i / 2])
          : control.pix.payKey(chave, { valor: `${(i % 90) + 1}.00`, txid: `LOJA${i % 7}` });
      }));
      const bodies = paid.map(({ pix: [p] }) => {
        ids.add(p.endToEndId);
        return { pix: [{ endToEndId: p.endToEndId, txid: p.txid, valor: p.valor, chave: p.chave, horario: p.horario }] };
      });
      // Stored now, as the receiver stores them (its receivedAt is what the bound is counted from).
      const entries = storedBatches(bodies, 10, 'pix')[0].map((body, j) => ({ Id: String(j), MessageBody: body }));
      await peers.sqs.send(new SendMessageBatchCommand({ QueueUrl: peers.queueUrl, Entries: entries }));
    }
    const lastCallback = performance.now();
    const cap = lastCallback + (bulk ? 10 * 60_000 : BURST.oneByOneCapMs);
    const published = new Set<string>();
    let lastEvent = lastCallback;
    while (published.size < ids.size && performance.now() < cap) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      for (const event of peers.events.events) {
        if (event.detailType !== String(BankEventDetailType.PIX_RECEIVED)) continue;
        const id = String((event.detail as { pix?: { endToEndId?: string } }).pix?.endToEndId);
        if (ids.has(id) && !published.has(id)) {
          published.add(id);
          lastEvent = performance.now();
        }
      }
    }
    if (bulk && published.size < ids.size) throw new Error(`only ${published.size} of ${ids.size} Pix published by listing within 10 minutes; see ${logDir}`);
    const { query } = await control.apiCallCounts();
    const after = peers.simulator.queryCounts();
    const byOperation = Object.fromEntries(
      Object.entries(after).map(([op, n]) => [op, n - before[op as keyof typeof before]]).filter(([, n]) => (n as number) > 0),
    ) as Record<string, number>;
    return {
      pix: ids.size, published: published.size,
      lastEventAfterMs: (published.size < ids.size ? performance.now() : lastEvent) - lastCallback,
      queryCalls: query.calls, queriesPerPix: query.calls / Math.max(1, published.size), answers429: query.throttled, byOperation,
    };
  } finally {
    await Promise.all(sources.map((source) => source.stop()));
    await Promise.all(functions.map((fn) => fn.stop()));
    await control.clearFaults();
    await new Promise((resolve) => log.end(resolve));
  }
}

export async function pixBurstSection(ctx: BenchContext): Promise<void> {
  const { peers, results, details, logs, section } = ctx;
  const bulk = await burst(peers, BURST.bulk, logs, 'by-listing');
  const single = await burst(peers, undefined, logs, 'one-by-one');
  results.pix_burst_last_event_after_seconds = round(bulk.lastEventAfterMs / 1000, 1);
  results.pix_burst_queries_per_pix = round(bulk.queriesPerPix, 3);
  results.pix_burst_one_by_one_queries_per_pix = round(single.queriesPerPix, 3);
  results.pix_burst_one_by_one_published_fraction = round(single.published / single.pix, 3);
  // The part of the queries that were listing pages (the rest: the single reads before the bound).
  const listings = (run: BurstRun) => (run.byOperation.pixListing ?? 0) + (run.byOperation.chargeListing ?? 0);
  results.pix_burst_listing_queries_per_pix = round(listings(bulk) / bulk.published, 3);
  details.pix_burst = { plan: BURST, by_listing: bulk, one_by_one: single };
  const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  section(`Pix burst: ${BURST.perSecond}/s for ${BURST.seconds} s against ${BURST.queryLimitPerSecond} queries/s, ${BURST.environments} environments (half paying charges, half static codes)`, formatTable(
    ['', 'published', 'last event after the last callback', 'queries', 'of which listing pages', 'queries per Pix', '429s'],
    [
      ['by listing', `${bulk.published} of ${bulk.pix}`, s(bulk.lastEventAfterMs), String(bulk.queryCalls), String(listings(bulk)), bulk.queriesPerPix.toFixed(3), String(bulk.answers429)],
      ['one by one', `${single.published} of ${single.pix}`, `${s(single.lastEventAfterMs)}${single.published < single.pix ? ' (stopped)' : ''}`, String(single.queryCalls), String(listings(single)), single.queriesPerPix.toFixed(3), String(single.answers429)],
    ],
  ));
}
