/**
 * Pix Automático in `npm run bench`: the processor bundle on recurring charges' callbacks (`/cobr`,
 * each charge read with `GET /cobr/{txid}` over mutual TLS), against a plain loop making the same
 * calls, paired round by round as the Pix callbacks are.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BankEventDetailType } from '../../contracts/events';
import { BenchWorker } from './bench-worker';
import { ms, PLAN, processorBundle, rate } from './plan';
import { formatTable } from './report';
import { type BenchContext, forked, issuedRecurringCharges, medians, pairedRatio, storedBatches } from './sections';
import { round } from './stats';

export async function recurringSection(ctx: BenchContext): Promise<void> {
  const { peers, results, details, logs, section, floorVerify } = ctx;
  const p = PLAN.processor;
  const runners = ['processorRecurring', 'floorRecurring'] as const;
  const rounds = (p.warmup + p.repetitions) * p.forks;
  const bodies = await issuedRecurringCharges(peers.simulator.control, p.recordsPerRun * rounds * runners.length);
  let used = 0;
  const verify = (worker: BenchWorker, entry: string, exportName: string) => async () => {
    const batches = storedBatches(bodies.slice(used, (used += p.recordsPerRun)), p.batchSize, 'cobr');
    const run = await worker.run({ type: 'batches', entry, exportName, batches, concurrency: 1, timeoutMs: 30_000 });
    if (run.failedRecords) throw new Error(`${run.failedRecords} records failed in ${entry}; see ${worker.logFile}`);
    return { ...run, operations: batches.flat().length };
  };
  const runs = await forked(p.forks, p, () => {
    const workers = Object.fromEntries(
      runners.map((name) => [name, new BenchWorker(peers.processorEnvironment({ pix: true, recurring: true }), join(logs, `${name}.log`))]),
    ) as Record<(typeof runners)[number], BenchWorker>;
    return {
      runners: {
        processorRecurring: verify(workers.processorRecurring, processorBundle, 'handler'),
        floorRecurring: verify(workers.floorRecurring, floorVerify, 'recurringHandler'),
      },
      stop: () => Promise.all(Object.values(workers).map((worker) => worker.stop())).then(() => undefined),
    };
  });
  // A fair pair only if the processor did the work: each charge verified and published (not dropped as another's).
  const published = readFileSync(join(logs, 'processorRecurring.log'), 'utf8')
    .split('\n')
    .filter((line) => line.includes('"VerifiedEventsPublished"') && line.includes(`"DetailType":"${BankEventDetailType.PIX_RECURRING_CHARGE_CHANGED}"`)).length;
  const measured = p.recordsPerRun * p.repetitions * p.forks;
  if (published < measured) throw new Error(`the processor published ${published} Pix Recurring Charge Changed events for at least ${measured} charges verified; see ${logs}`);
  results.processor_recurring_throughput_ratio = round(pairedRatio(runs.processorRecurring, runs.floorRecurring, 'perSecond', runners.length));
  const [pr, fl] = [medians(runs.processorRecurring), medians(runs.floorRecurring)];
  details.processor_recurring = {
    processor: pr, floor: fl, plan: p, events_published: published,
    records_per_second_by_round: { processor: runs.processorRecurring.map((r) => round(r.perSecond, 0)), floor: runs.floorRecurring.map((r) => round(r.perSecond, 0)) },
  };
  section(`Processor on Pix Automático's recurring charge callbacks: batches of ${p.batchSize}, ${p.recordsPerRun} records × ${p.repetitions} rounds × ${p.forks} sets of processes (medians; latency per batch)`, formatTable(['', 'records/s', 'batch p50', 'batch p99', 'CPU per record'], [
    ['processor bundle, /cobr callbacks (GET /cobr over mutual TLS)', rate(pr.perSecond), ms(pr.p50Ms), ms(pr.p99Ms), ms(pr.cpuMsPerOperation, 2)],
    ['plain loop: the same calls for a recurring charge', rate(fl.perSecond), ms(fl.p50Ms), ms(fl.p99Ms), ms(fl.cpuMsPerOperation, 2)],
  ]));
}
