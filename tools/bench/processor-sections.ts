/** The processor's sections of `npm run bench`: against a plain loop, against a rate-limited query API, and behind a flood of looks. */
import { join } from 'node:path';
import { BenchWorker } from './bench-worker';
import { lookFloodRounds } from './look-flood';
import { ms, PLAN, processorBundle, rate } from './plan';
import { type RateLimitedRun, rateLimitedRun } from './rate-limited';
import { formatTable } from './report';
import { type BenchContext, forked, medians, pairedRatio, receivedPixCallbacks, settledBoletoNotifications, storedBatches } from './sections';
import { median, round } from './stats';

/**
 * The processor bundle, with the raw journal as deployed and without it, against plain loops
 * making the same calls (the processor's loop writes the journal too: the target is the
 * processor's own cost over its calls; the journal's cost is the ratio of the two processors).
 */
export async function processorSection(ctx: BenchContext): Promise<void> {
  const { peers, results, details, logs, section, floorVerify } = ctx;
  const p = PLAN.processor;
  const runners = ['processor', 'processorNoJournal', 'floor', 'floorOneWrite'] as const;
  const pixRunners = ['processorPix', 'floorPix'] as const;
  type Runner = (typeof runners)[number] | (typeof pixRunners)[number];
  const rounds = (p.warmup + p.repetitions) * p.forks;
  const bodies = await settledBoletoNotifications(peers.simulator.control, p.recordsPerRun * rounds * runners.length);
  const pixBodies = await receivedPixCallbacks(peers.simulator.control, p.recordsPerRun * rounds * pixRunners.length);
  let used = 0;
  let pixUsed = 0;
  const verify = (worker: BenchWorker, entry: string, exportName: string, pix = false) => async () => {
    const batches = pix
      ? storedBatches(pixBodies.slice(pixUsed, (pixUsed += p.recordsPerRun)), p.batchSize, 'pix')
      : storedBatches(bodies.slice(used, (used += p.recordsPerRun)), p.batchSize);
    const run = await worker.run({ type: 'batches', entry, exportName, batches, concurrency: 1, timeoutMs: 30_000 });
    if (run.failedRecords) throw new Error(`${run.failedRecords} records failed in ${entry}; see ${worker.logFile}`);
    // Rates and CPU time in records: each latency is one batch.
    return { ...run, operations: batches.flat().length };
  };
  // A process per runner, as each is its own function on Lambda: no runner's JIT state, heap or
  // connections serve another.
  const environment = (name: Runner) => peers.processorEnvironment({ journal: name !== 'processorNoJournal', pix: name === 'processorPix' || name === 'floorPix' });
  const workersOf = <K extends Runner>(names: readonly K[]) => Object.fromEntries(names.map((name) => [name, new BenchWorker(environment(name), join(logs, `${name}.log`))])) as Record<K, BenchWorker>;
  const stopAll = (workers: Record<string, BenchWorker>) => () => Promise.all(Object.values(workers).map((worker) => worker.stop())).then(() => undefined);
  const runs = await forked(p.forks, p, () => {
    const workers = workersOf(runners);
    return {
      runners: {
        processor: verify(workers.processor, processorBundle, 'handler'),
        processorNoJournal: verify(workers.processorNoJournal, processorBundle, 'handler'),
        floor: verify(workers.floor, floorVerify, 'handler'),
        floorOneWrite: verify(workers.floorOneWrite, floorVerify, 'oneWriteHandler'),
      },
      stop: stopAll(workers),
    };
  });
  // The Pix callbacks against their own loop, paired apart (its rounds a whole rotation of two).
  const pixRuns = await forked(p.forks, p, () => {
    const workers = workersOf(pixRunners);
    return {
      runners: { processorPix: verify(workers.processorPix, processorBundle, 'handler', true), floorPix: verify(workers.floorPix, floorVerify, 'pixHandler', true) },
      stop: stopAll(workers),
    };
  });
  results.processor_throughput_ratio = round(pairedRatio(runs.processor, runs.floor, 'perSecond', runners.length));
  results.processor_throughput_ratio_one_write = round(pairedRatio(runs.processor, runs.floorOneWrite, 'perSecond', runners.length));
  results.processor_journal_throughput_ratio = round(pairedRatio(runs.processor, runs.processorNoJournal, 'perSecond', runners.length));
  results.processor_journal_p99_ratio = round(pairedRatio(runs.processor, runs.processorNoJournal, 'p99Ms', runners.length));
  results.processor_pix_throughput_ratio = round(pairedRatio(pixRuns.processorPix, pixRuns.floorPix, 'perSecond', pixRunners.length));
  const [pr, pn, f2, f1, px, fx] = [medians(runs.processor), medians(runs.processorNoJournal), medians(runs.floor), medians(runs.floorOneWrite), medians(pixRuns.processorPix), medians(pixRuns.floorPix)];
  const perRound = (runs: readonly { perSecond: number }[]) => runs.map((run) => round(run.perSecond, 0));
  details.processor = {
    processor: pr, processor_without_journal: pn, floor_claim_query_publish_complete: f2, floor_query_write_publish: f1, processor_pix: px, floor_pix: fx, plan: p,
    records_per_second_by_round: {
      processor: perRound(runs.processor), processor_without_journal: perRound(runs.processorNoJournal), floor: perRound(runs.floor), floor_one_write: perRound(runs.floorOneWrite),
      processor_pix: perRound(pixRuns.processorPix), floor_pix: perRound(pixRuns.floorPix),
    },
  };
  section(`Processor: batches of ${p.batchSize}, ${p.recordsPerRun} records × ${p.repetitions} rounds × ${p.forks} sets of processes, one invocation at a time (medians; latency per batch)`, formatTable(['', 'records/s', 'batch p50', 'batch p99', 'CPU per record'], [
    ['processor bundle, journal on (as deployed)', rate(pr.perSecond), ms(pr.p50Ms), ms(pr.p99Ms), ms(pr.cpuMsPerOperation, 2)],
    ['processor bundle, journal off', rate(pn.perSecond), ms(pn.p50Ms), ms(pn.p99Ms), ms(pn.cpuMsPerOperation, 2)],
    ['plain loop: read, query (+ journal PUTs), write + outbox, PutEvents, clear', rate(f2.perSecond), ms(f2.p50Ms), ms(f2.p99Ms), ms(f2.cpuMsPerOperation, 2)],
    ['plain loop: query, one write, PutEvents', rate(f1.perSecond), ms(f1.p50Ms), ms(f1.p99Ms), ms(f1.cpuMsPerOperation, 2)],
    ['processor bundle, Pix callbacks (GET /pix over mutual TLS)', rate(px.perSecond), ms(px.p50Ms), ms(px.p99Ms), ms(px.cpuMsPerOperation, 2)],
    ['plain loop: the same calls for a Pix callback', rate(fx.perSecond), ms(fx.p50Ms), ms(fx.p99Ms), ms(fx.cpuMsPerOperation, 2)],
  ]));
}

/** Against a query API limited to its rate: the share of it the processor uses, and its 429s. */
export async function rateLimitedSection(ctx: BenchContext): Promise<void> {
  const { peers, results, details, logs, section } = ctx;
  const p = PLAN.rateLimited;
  const rows: string[][] = [];
  const byConcurrency: Record<string, unknown> = {};
  const ratios: number[] = [];
  const fractions: number[] = [];
  for (const concurrency of p.concurrencies) {
    const runs: RateLimitedRun[] = [];
    for (let round = 0; round < p.rounds; round++) runs.push(await rateLimitedRun(peers, p, concurrency, logs));
    const mid = (pick: (run: RateLimitedRun) => number) => median(runs.map(pick));
    const ratio = round(mid((r) => r.throughputRatio));
    const fraction = round(mid((r) => r.fraction429), 4);
    results[`rate_limited_throughput_ratio_${concurrency}`] = ratio;
    results[`rate_limited_429_fraction_${concurrency}`] = fraction;
    ratios.push(ratio);
    fractions.push(fraction);
    const failed = Math.max(...runs.map((r) => r.failedReceives));
    const dead = Math.max(...runs.map((r) => r.deadLettered));
    if (failed || dead) throw new Error(`at concurrency ${concurrency}, ${failed} records failed a receive and ${dead} reached the dead-letter queue; lack of rate must do neither (see the logs in ${logs})`);
    const operations = Object.keys(runs[0].awsCallsPerEvent);
    const awsCallsPerEvent = Object.fromEntries(operations.map((op) => [op, round(mid((r) => r.awsCallsPerEvent[op] ?? 0), 2)]));
    byConcurrency[`concurrency_${concurrency}`] = { runs, aws_calls_per_event: awsCallsPerEvent };
    rows.push([
      String(concurrency), `${(mid((r) => r.verified / r.seconds)).toFixed(2)}/s`, ratio.toFixed(3), String(mid((r) => r.queryCalls)), String(mid((r) => r.answers429)), fraction.toFixed(4),
      String(mid((r) => r.deferredForRate)), String(failed), String(dead),
    ]);
  }
  results.rate_limited_throughput_ratio = Math.min(...ratios);
  results.rate_limited_429_fraction = Math.max(...fractions);
  details.rate_limited = { plan: p, ...byConcurrency };
  section(`Against a query API limited to ${p.queryLimitPerSecond}/s, queriesPerSecond set to it: a backlog of ${p.records} settlements, medians of ${p.rounds} rounds`, formatTable(
    ['invocations at once', 'verified/s', 'ratio to limit', 'query calls', '429', '429 fraction', 'deferred for rate', 'failed receives', 'dead-lettered'], rows,
  ));
  const steady = byConcurrency[`concurrency_${p.concurrencies[1]}`] as { runs: RateLimitedRun[]; aws_calls_per_event: Record<string, number> };
  // The requests a verified event costs in the table and on the bus (docs/cost.md); the journal's S3 PUTs are counted apart.
  const tableAndBus = (run: RateLimitedRun) => Object.entries(run.awsCallsPerEvent).filter(([op]) => /^(DYNAMODB|EVENTBRIDGE)\./.test(op)).reduce((sum, [, n]) => sum + n, 0);
  results.requests_per_event = round(median(steady.runs.map(tableAndBus)), 2);
  results.journal_puts_per_event = round(median(steady.runs.map((run) => run.awsCallsPerEvent['S3.PutObject'] ?? 0)), 2);
  section(`AWS requests per verified event at ${p.concurrencies[1]} invocations at once (medians; DynamoDB and EventBridge together: requests_per_event)`, formatTable(['service.operation', 'per event'], [
    ...Object.entries(steady.aws_calls_per_event).map(([op, n]) => [op, n.toFixed(2)]),
    ['DynamoDB + EventBridge', results.requests_per_event.toFixed(2)],
  ]));
}

/** Notifications first: a settlement's time to its event with 200 Track Payment events queued ahead, and without. */
export async function lookFloodSection(ctx: BenchContext): Promise<void> {
  const { peers, results, details, logs, section } = ctx;
  const p = PLAN.lookFlood;
  const rounds = await lookFloodRounds(peers, p, logs);
  const alone = median(rounds.map((r) => r.aloneMs));
  const behind = median(rounds.map((r) => r.behindLooksMs));
  results.look_flood_alone_ms = round(alone, 0);
  results.look_flood_behind_looks_ms = round(behind, 0);
  results.look_flood_ratio = round(behind / alone, 3);
  details.look_flood = { plan: p, rounds };
  section(`Notifications first: a settlement notification's time to its event, query API limited to ${p.queryLimitPerSecond}/s, ${p.concurrency} invocations at once, median of ${p.rounds} rounds`, formatTable(['', 'time to event'], [
    ['alone', ms(alone, 0)],
    [`behind ${p.looks} Track Payment events (each a payment to query)`, ms(behind, 0)],
    ['ratio', (behind / alone).toFixed(2)],
  ]));
}

