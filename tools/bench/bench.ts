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
import { bundleHandlers, bundleLambdaEntry, bundlesAreFresh, HANDLER_OUT_DIR, handlerNames, ROOT } from '../bundle-handlers';
import { SweepDefaults } from '../../contracts/reconciliation';
import { frontDoorUnderLoad } from './front-door';
import { memorySection } from './memory';
import { BenchPeers, UNLIMITED_QUERIES_PER_SECOND } from './peers';
import { ms, PLAN, processorBundle, receiverBundle } from './plan';
import { lookFloodSection, processorSection, rateLimitedSection } from './processor-sections';
import { recurringSection } from './recurring-section';
import { pixBurstSection } from './pix-burst';
import { coldStartSection, receiverSection } from './receiver-sections';
import { reconciliationCost } from './reconciliation';
import { type BenchResults, checkTargets, formatTable, targetsTable } from './report';
import { type BenchContext, settledBoletoNotifications } from './sections';
import { median, round } from './stats';
import { tracingSection } from './tracing';

const SECTIONS = ['build', 'reconciliation', 'receiver', 'cold-start', 'tracing', 'processor', 'recurring', 'pix-burst', 'memory', 'rate-limited', 'look-flood', 'front-door'] as const;
type Section = (typeof SECTIONS)[number];

const RESULTS_FILE = join(ROOT, 'bench', 'results.json');

function parseSections(argv: readonly string[]): { sections: readonly Section[]; partial: boolean } {
  const at = argv.indexOf('--only');
  if (at < 0) return { sections: SECTIONS, partial: false };
  const asked = (argv[at + 1] ?? '').split(',').filter(Boolean);
  const unknown = asked.filter((name) => !(SECTIONS as readonly string[]).includes(name));
  if (asked.length === 0 || unknown.length) throw new Error(`--only takes sections from: ${SECTIONS.join(', ')}${unknown.length ? ` (unknown: ${unknown.join(', ')})` : ''}`);
  return { sections: asked as Section[], partial: true };
}


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
  recurring: recurringSection,
  'pix-burst': pixBurstSection,
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
