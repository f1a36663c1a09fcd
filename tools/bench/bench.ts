/**
 * `npm run bench`: the receiver and the processor measured against the best they could do, side
 * by side in the same run, the whole local flow under the bank's load, and the build. Prints the
 * tables and writes bench/results.json (see docs/performance.md).
 *
 *   npm run bench                      every section, writes bench/results.json
 *   npm run bench -- --only receiver   some sections (receiver, cold-start, tracing, processor,
 *                                      rate-limited, front-door, build), comma-separated; writes nothing
 *   BENCH_CPU_PROF=<dir>               CPU profiles of the function processes, for DevTools
 *
 * It runs on Node 24, the functions' runtime (tools/bench/node24.sh installs it as CI does); run by
 * hand on another Node (`npx tsx tools/bench/bench.ts`), it measures only with BENCH_ANY_NODE=1 and
 * writes nothing.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { restProxyEvent } from '../local-aws/api-gateway';
import { bundleHandlers, bundleLambdaEntry, bundlesAreFresh, HANDLER_OUT_DIR, handlerNames, ROOT } from '../bundle-handlers';
import { BenchWorker } from './bench-worker';
import { type ColdStart, coldStartMs } from './cold-start';
import { frontDoorUnderLoad } from './front-door';
import { BenchPeers, UNLIMITED_QUERIES_PER_SECOND } from './peers';
import { lookFloodRounds } from './look-flood';
import { memorySection } from './memory';
import { type RateLimitedRun, rateLimitedRun } from './rate-limited';
import { type BenchResults, checkTargets, formatTable, targetsTable } from './report';
import { reconciliationCost } from './reconciliation';
import { SweepDefaults } from '../../contracts/reconciliation';
import { type BenchContext, forked, medians, pairedRatio, pixCallbackBody, receivedPixCallbacks, settledBoletoNotifications, storedBatches } from './sections';
import { median, round } from './stats';
import { tracingSection } from './tracing';

const SECTIONS = ['build', 'reconciliation', 'receiver', 'cold-start', 'tracing', 'processor', 'memory', 'rate-limited', 'look-flood', 'front-door'] as const;
type Section = (typeof SECTIONS)[number];

/** What each measurement uses; docs/performance.md describes the same. */
const PLAN = {
  // Rounds per fork (process): 3 forks × 4 counted rounds.
  receiver: { concurrency: 16, requests: 3_000, forks: 3, warmup: 2, repetitions: 4 },
  coldStart: { processes: 12 },
  // Repetitions: a whole rotation of the runners' order per fork (pairedRatio's blocks).
  processor: { batchSize: 10, recordsPerRun: 200, forks: 3, warmup: 1, repetitions: 4 },
  memory: { requests: 2_000, records: 500, batchSize: 10 },
  rateLimited: { concurrencies: [1, 4, 16], rounds: 3, records: 150, queryLimitPerSecond: 10, batchSize: 10, functionTimeoutMs: 30_000 },
  lookFlood: { looks: 200, queryLimitPerSecond: 5, concurrency: 2, rounds: 5, functionTimeoutMs: 30_000 },
  reconciliation: { settledPerDay: 400, lostFraction: 0.02, steadySweeps: 5 },
  frontDoor: { ratePerSecond: 200, seconds: 30, rounds: 3, warmupSeconds: 5, latencySeconds: 10, latencyRates: [200, 50] },
  synth: { runs: 3 },
} as const;

const RESULTS_FILE = join(ROOT, 'bench', 'results.json');
const receiverBundle = join(HANDLER_OUT_DIR, 'receiver', 'index.js');
const processorBundle = join(HANDLER_OUT_DIR, 'processor', 'index.js');

function parseSections(argv: readonly string[]): { sections: readonly Section[]; partial: boolean } {
  const at = argv.indexOf('--only');
  if (at < 0) return { sections: SECTIONS, partial: false };
  const asked = (argv[at + 1] ?? '').split(',').filter(Boolean);
  const unknown = asked.filter((name) => !(SECTIONS as readonly string[]).includes(name));
  if (asked.length === 0 || unknown.length) throw new Error(`--only takes sections from: ${SECTIONS.join(', ')}${unknown.length ? ` (unknown: ${unknown.join(', ')})` : ''}`);
  return { sections: asked as Section[], partial: true };
}

const ms = (value: number | undefined, digits = 1) => (value === undefined ? 'n/a' : `${value.toFixed(digits)} ms`);
const rate = (value: number) => `${value.toFixed(0)}/s`;

/** Bundle sizes and the example's synth time (no targets). */
function buildSection(ctx: BenchContext): void {
  const { work, details, section } = ctx;
  const sizes = Object.fromEntries(handlerNames().map((name) => [name, statSync(join(HANDLER_OUT_DIR, name, 'index.js')).size]));
  const synthMs: number[] = [];
  for (let i = 0; i < PLAN.synth.runs; i++) {
    const t0 = performance.now();
    execFileSync('npx', ['cdk', 'synth', '--quiet', '--output', join(work, 'cdk.out')], { cwd: ROOT, stdio: 'ignore' });
    synthMs.push(performance.now() - t0);
  }
  details.bundle_bytes = sizes;
  details.synth_ms = round(median(synthMs), 0);
  section('Build (no targets)', formatTable(['what', 'value'], [
    ...Object.entries(sizes).map(([name, bytes]) => [`${name} bundle`, `${(bytes / 1024).toFixed(0)} KiB`]),
    [`npx cdk synth (example app, median of ${PLAN.synth.runs})`, `${(median(synthMs) / 1000).toFixed(1)} s`],
  ]));
}

/** What the sweep costs in bank calls. First of the sections that use the bank: its day must hold only the settlements it makes. */
async function reconciliationSection(ctx: BenchContext): Promise<void> {
  const { peers, results, details, logs, section } = ctx;
  const p = PLAN.reconciliation;
  const cost = await reconciliationCost(peers, p, logs);
  results.reconciliation_listing_calls_per_sweep = round(cost.steady.listingCallsPerSweep, 2);
  results.reconciliation_bank_calls_per_day = cost.bankCallsPerDay;
  details.reconciliation = { plan: p, ...cost };
  section(`Reconciliation sweep: a day of ${p.settledPerDay} settlements, ${p.lostFraction * 100}% of them lost, today and ${SweepDefaults.lookbackDays} days back (no target)`, formatTable(['what', 'value'], [
    ['first sweep: listing calls / settlements sent to be verified (lost)', `${cost.firstSweep.listingCalls} / ${cost.firstSweep.lookRequests} (${cost.firstSweep.lost}), ${ms(cost.firstSweep.ms, 0)}`],
    [`then per sweep, ${Math.round(p.settledPerDay / cost.sweepsPerDay)} new settlements each: listing calls / sent / boleto queries`, `${cost.steady.listingCallsPerSweep.toFixed(1)} / ${cost.steady.lookRequestsPerSweep.toFixed(1)} / ${cost.steady.boletoQueriesBySweep.toFixed(1)}, ${ms(cost.steady.msPerSweep, 0)}`],
    [`bank calls a day (${cost.sweepsPerDay} sweeps; plus one payment query per pending payment per sweep)`, String(cost.bankCallsPerDay)],
  ]));
}

/**
 * The receiver handler against a bare SendMessage, forked and paired round by round: on the
 * payments route (a token checked) and on the Pix route (a callback with three Pix; no token,
 * its body read for the validation call), each against a SendMessage of its own envelope.
 */
async function receiverSection(ctx: BenchContext): Promise<void> {
  const { peers, results, details, logs, section, floorSend } = ctx;
  const body = await ctx.notificationBody();
  const pixBody = pixCallbackBody();
  const p = PLAN.receiver;
  const runners = ['receiver', 'floor', 'pix', 'pixFloor'] as const;
  const runs = await forked(p.forks, p, () => {
    const worker = new BenchWorker(peers.receiverEnvironment(), join(logs, 'receiver.log'));
    const notify = (floor: boolean, route: 'payments' | 'pix', what: unknown) => () => worker.run({
      type: 'notify', entry: floor ? floorSend : receiverBundle, floor, route, token: peers.token, body: what, requests: p.requests, concurrency: p.concurrency,
    });
    return {
      runners: { receiver: notify(false, 'payments', body), floor: notify(true, 'payments', body), pix: notify(false, 'pix', pixBody), pixFloor: notify(true, 'pix', pixBody) },
      stop: () => worker.stop(),
    };
  }, () => peers.purgeQueue());
  results.receiver_p99_ratio = round(pairedRatio(runs.receiver, runs.floor, 'p99Ms', runners.length));
  results.receiver_throughput_ratio = round(pairedRatio(runs.receiver, runs.floor, 'perSecond', runners.length));
  results.receiver_pix_p99_ratio = round(pairedRatio(runs.pix, runs.pixFloor, 'p99Ms', runners.length));
  results.receiver_pix_throughput_ratio = round(pairedRatio(runs.pix, runs.pixFloor, 'perSecond', runners.length));
  const [r, f, x, xf] = [medians(runs.receiver), medians(runs.floor), medians(runs.pix), medians(runs.pixFloor)];
  details.receiver = {
    receiver: r, bare_send_message: f, pix_route: x, bare_send_message_pix: xf, plan: p,
    by_round: runs.receiver.map((run, i) => ({ rate_ratio: round(run.perSecond / runs.floor[i].perSecond), p99_ratio: round(run.p99Ms / runs.floor[i].p99Ms) })),
    pix_by_round: runs.pix.map((run, i) => ({ rate_ratio: round(run.perSecond / runs.pixFloor[i].perSecond), p99_ratio: round(run.p99Ms / runs.pixFloor[i].p99Ms) })),
  };
  section(`Receiver in one process, concurrency ${p.concurrency}, ${p.requests} requests × ${p.repetitions} rounds × ${p.forks} processes (medians)`, formatTable(['', 'p50', 'p99', 'rate', 'CPU per request'], [
    ['receiver handler, /payments', ms(r.p50Ms), ms(r.p99Ms), rate(r.perSecond), ms(r.cpuMsPerOperation, 2)],
    ['bare SendMessage', ms(f.p50Ms), ms(f.p99Ms), rate(f.perSecond), ms(f.cpuMsPerOperation, 2)],
    ['receiver handler, /pix (three Pix)', ms(x.p50Ms), ms(x.p99Ms), rate(x.perSecond), ms(x.cpuMsPerOperation, 2)],
    ['bare SendMessage of its envelope', ms(xf.p50Ms), ms(xf.p99Ms), rate(xf.perSecond), ms(xf.cpuMsPerOperation, 2)],
  ]));
}

/** Module load and first invocation, in fresh processes, the receiver's bundle against the same SDK clients and one SendMessage. */
async function coldStartSection(ctx: BenchContext): Promise<void> {
  const { peers, results, details, section, floorSend, preload } = ctx;
  const body = await ctx.notificationBody();
  const receiverEvent = restProxyEvent({ route: 'payments', headers: { Authorization: peers.token, 'Content-Type': 'application/json' }, body: JSON.stringify(body), sourceIp: '127.0.0.1' });
  const floorEvent = { messageBody: JSON.stringify({ body }), route: 'payments' };
  const environment = peers.receiverEnvironment();
  const starts: Record<'receiver' | 'floor' | 'authenticating', ColdStart[]> = { receiver: [], floor: [], authenticating: [] };
  await coldStartMs(receiverBundle, receiverEvent, environment, preload); // warm the file system cache
  await coldStartMs(floorSend, floorEvent, environment, preload);
  for (let i = 0; i < PLAN.coldStart.processes; i++) {
    starts.receiver.push(await coldStartMs(receiverBundle, receiverEvent, environment, preload));
    starts.floor.push(await coldStartMs(floorSend, floorEvent, environment, preload));
    starts.authenticating.push(await coldStartMs(floorSend, floorEvent, environment, preload, 'authenticatingHandler'));
  }
  const summary = (list: ColdStart[]) => ({ ms: median(list.map((s) => s.ms)), loadMs: median(list.map((s) => s.loadMs)), firstCallMs: median(list.map((s) => s.ms - s.loadMs)) });
  const [r, f, a] = [summary(starts.receiver), summary(starts.floor), summary(starts.authenticating)];
  results.cold_start_ratio = round(r.ms / f.ms);
  // No target: the receiver against a floor that reads its token once too (what the secret's read costs, apart from the receiver's code).
  results.cold_start_ratio_authenticating_floor = round(r.ms / a.ms);
  details.cold_start_ms = { receiver: r, floor: f, authenticating_floor: a, processes: PLAN.coldStart.processes };
  section(`Cold start: module load + first invocation, median of ${PLAN.coldStart.processes} fresh node processes each`, formatTable(['', 'total', 'load', 'first call'], [
    ['receiver bundle (token check + SendMessage)', ms(r.ms), ms(r.loadMs), ms(r.firstCallMs)],
    ['same SDK clients + one SendMessage', ms(f.ms), ms(f.loadMs), ms(f.firstCallMs)],
    ['the same + one GetSecretValue first (no target)', ms(a.ms), ms(a.loadMs), ms(a.firstCallMs)],
  ]));
}

/**
 * The processor bundle, with the raw journal as deployed and without it, against plain loops
 * making the same calls (the processor's loop writes the journal too: the target is the
 * processor's own cost over its calls; the journal's cost is the ratio of the two processors).
 */
async function processorSection(ctx: BenchContext): Promise<void> {
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
async function rateLimitedSection(ctx: BenchContext): Promise<void> {
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
async function lookFloodSection(ctx: BenchContext): Promise<void> {
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

/** The whole local flow under the bank's load. */
async function frontDoorSection(ctx: BenchContext): Promise<void> {
  const { results, details, logs, section } = ctx;
  const f = PLAN.frontDoor;
  const load = await frontDoorUnderLoad(f, join(logs, 'front-door'), UNLIMITED_QUERIES_PER_SECOND);
  results.ack_p99_deadline_fraction = round(load.ackP99Ms / 10_000, 4);
  // One process serving every request at once: no environment's peak (the target is the memory section's).
  results.front_door_peak_rss_fraction = round(Math.max(load.receiver.peakRssMb / load.receiver.memoryMb, load.processor.peakRssMb / load.processor.memoryMb));
  details.front_door = load;
  section(`The bank's load through the local front door: ${f.ratePerSecond} notifications/s, ${f.rounds} rounds of ${f.seconds} s (medians), after ${f.warmupSeconds} s of warm-up`, formatTable(['what', 'value'], [
    ['notifications sent / delivered (200) / not', `${load.sent} / ${load.delivered} / ${load.notDelivered}`],
    ['load offered', `${load.offeredPerSecond.toFixed(0)}/s`],
    ['ack p50 / p99 / max (bank POST to 200)', `${ms(load.ackP50Ms)} / ${ms(load.ackP99Ms)} / ${ms(load.ackMaxMs)}`],
    ['ack p99 by round', load.rounds.map((r) => ms(r.p99Ms)).join(', ')],
    ['receiver peak RSS / memory size', `${load.receiver.peakRssMb.toFixed(0)} MiB / ${load.receiver.memoryMb} MiB`],
    ['processor peak RSS / memory size', `${load.processor.peakRssMb.toFixed(0)} MiB / ${load.processor.memoryMb} MiB`],
    [`processor on the backlog after the load (${load.processor.seconds.toFixed(0)} s)`, `${load.processor.verifiedEvents} verified events, ${load.processor.verifiedPerSecond.toFixed(0)}/s`],
    ...load.postToEvent.map((run) => [`bank POST to verified event, processor working (${f.latencySeconds} s at ${run.ratePerSecond}/s; no target) p50 / p99 / max`, `${ms(run.p50Ms, 0)} / ${ms(run.p99Ms, 0)} / ${ms(run.maxMs, 0)}`]),
  ]));
  if (load.notDelivered > 0) throw new Error(`${load.notDelivered} notifications were not delivered under load; see the logs in ${logs}`);
}

/** What each section runs; `SECTIONS` is their order (and what `--only` picks from). */
const SECTION_RUNS: Readonly<Record<Section, (ctx: BenchContext) => Promise<void> | void>> = {
  build: buildSection,
  reconciliation: reconciliationSection,
  receiver: receiverSection,
  'cold-start': coldStartSection,
  tracing: (ctx) => tracingSection(ctx, PLAN, receiverBundle),
  processor: processorSection,
  'rate-limited': rateLimitedSection,
  memory: (ctx) => memorySection(ctx, PLAN.memory, { receiver: receiverBundle, processor: processorBundle }),
  'look-flood': lookFloodSection,
  'front-door': frontDoorSection,
};

/** The Node the functions run on (.ci/node24.version's major): the only one whose figures are written. */
const RUNTIME_MAJOR = readFileSync(join(ROOT, '.ci', 'node24.version'), 'utf8').trim().split('.')[0];

async function main(): Promise<void> {
  const onRuntime = process.versions.node.split('.')[0] === RUNTIME_MAJOR;
  if (!onRuntime && process.env.BENCH_ANY_NODE !== '1') {
    throw new Error(`The bench measures on Node ${RUNTIME_MAJOR}, the functions' runtime; this is Node ${process.versions.node}. Run it with npm run bench (which installs Node ${RUNTIME_MAJOR} as CI does), or set BENCH_ANY_NODE=1 to measure on this Node without writing bench/results.json.`);
  }
  const parsed = parseSections(process.argv.slice(2));
  const { sections } = parsed;
  const partial = parsed.partial || !onRuntime;
  const work = mkdtempSync(join(tmpdir(), 'bench-'));
  const logs = join(work, 'logs');
  mkdirSync(logs);
  if (!bundlesAreFresh()) await bundleHandlers();
  const floorSend = join(work, 'floor-send', 'index.js');
  const floorVerify = join(work, 'floor-verify', 'index.js');
  const preload = join(work, 'dns-preload.js');
  await bundleLambdaEntry(join(__dirname, 'baselines', 'send-message.ts'), floorSend);
  await bundleLambdaEntry(join(__dirname, 'baselines', 'verify-loop.ts'), floorVerify);
  await bundleLambdaEntry(join(__dirname, 'dns-preload.ts'), preload);

  const results: Record<string, number> = {};
  const details: Record<string, unknown> = {};
  const section = (title: string, table: string) => console.log(`\n${title}\n${table}`);
  const peers = await BenchPeers.start();
  let body: Promise<unknown> | undefined;
  const ctx: BenchContext = {
    peers, work, logs, floorSend, floorVerify, preload, results, details, section,
    notificationBody: () => (body ??= settledBoletoNotifications(peers.simulator.control, 1).then(([first]) => first)),
  };
  try {
    for (const name of SECTIONS) if (sections.includes(name)) await SECTION_RUNS[name](ctx);
  } finally {
    await peers.stop();
  }

  const machine = `${cpus()[0]?.model ?? 'unknown CPU'} × ${cpus().length}, Node ${process.version}`;
  section(`Targets (${machine})`, targetsTable(results));
  // A partial run checks nothing: its missing keys are not misses.
  const misses = partial ? [] : checkTargets(results).filter((check) => !check.met);
  if (!partial) {
    const file: BenchResults = { date: new Date().toISOString(), machine, results: results as BenchResults['results'], details };
    mkdirSync(join(ROOT, 'bench'), { recursive: true });
    writeFileSync(RESULTS_FILE, `${JSON.stringify(file, null, 2)}\n`);
    console.log(`\nWrote ${RESULTS_FILE}`);
  }
  if (process.env.BENCH_KEEP) console.log(`Logs kept in ${logs}`);
  else rmSync(work, { recursive: true, force: true });
  if (misses.length) throw new Error(`Targets missed: ${misses.map((m) => m.key).join(', ')}`);
}

main().then(() => process.exit(0), (error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
