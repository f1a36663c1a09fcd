/**
 * Peak memory as a Lambda execution environment sees it: one process per function, given one
 * request at a time (the receiver; Lambda never hands an environment a second request before the
 * first is answered) or one SQS batch at a time (the processor), its peak resident set (VmHWM)
 * against the function's memory size. The front door's peak, where one local process serves every
 * request at once, is no environment's and is reported apart.
 */
import { join } from 'node:path';
import { ProcessorDefaults } from '../../contracts/processor';
import { ReceiverDefaults } from '../../contracts/receiver';
import { BenchWorker, peakRssMb } from './bench-worker';
import { type BenchContext, pixCallbackBody, receivedPixCallbacks, settledBoletoNotifications, storedBatches } from './sections';
import { formatTable } from './report';
import { round } from './stats';

export interface MemoryPlan {
  /** Requests the receiver is given, one at a time, on each of its two routes. */
  readonly requests: number;
  /** Records the processor verifies, in batches of `batchSize`, one batch at a time, for each route. */
  readonly records: number;
  readonly batchSize: number;
}

export interface FunctionPeak {
  readonly peakRssMb: number;
  readonly memoryMb: number;
  readonly fraction: number;
}

export async function memorySection(ctx: BenchContext, plan: MemoryPlan, bundles: { readonly receiver: string; readonly processor: string }): Promise<void> {
  const { peers, results, details, logs, section } = ctx;
  const peakOf = async (worker: BenchWorker, work: (w: BenchWorker) => Promise<void>, memoryMb: number): Promise<FunctionPeak> => {
    try {
      await work(worker);
      const peak = peakRssMb(worker.pid);
      return { peakRssMb: round(peak, 1), memoryMb, fraction: round(peak / memoryMb) };
    } finally {
      await worker.stop();
    }
  };
  const body = await ctx.notificationBody();
  const receiver = await peakOf(new BenchWorker(peers.receiverEnvironment(), join(logs, 'memory-receiver.log')), async (worker) => {
    for (const [route, what] of [['payments', body], ['pix', pixCallbackBody()]] as const) {
      await worker.run({ type: 'notify', entry: bundles.receiver, floor: false, route, token: peers.token, body: what, requests: plan.requests, concurrency: 1 });
    }
  }, ReceiverDefaults.memorySizeMb);
  await peers.purgeQueue();
  const [boletos, pix] = await Promise.all([
    settledBoletoNotifications(peers.simulator.control, plan.records),
    receivedPixCallbacks(peers.simulator.control, plan.records),
  ]);
  const processor = await peakOf(new BenchWorker(peers.processorEnvironment({ journal: true, pix: true }), join(logs, 'memory-processor.log')), async (worker) => {
    for (const batches of [storedBatches(boletos, plan.batchSize), storedBatches(pix, plan.batchSize, 'pix')]) {
      const run = await worker.run({ type: 'batches', entry: bundles.processor, batches, concurrency: 1, timeoutMs: 30_000 });
      if (run.failedRecords) throw new Error(`${run.failedRecords} records failed while measuring the processor's memory; see ${worker.logFile}`);
    }
  }, ProcessorDefaults.memorySizeMb);
  results.peak_rss_fraction = Math.max(receiver.fraction, processor.fraction);
  details.peak_memory = { plan, receiver, processor };
  section(`Peak memory of one environment, one request (receiver: ${plan.requests} on /payments then /pix) or one batch of ${plan.batchSize} (processor: ${plan.records} boleto records then ${plan.records} Pix) at a time`, formatTable(['', 'peak RSS', 'memory size', 'fraction'], [
    ['receiver', `${receiver.peakRssMb} MiB`, `${receiver.memoryMb} MiB`, String(receiver.fraction)],
    ['processor', `${processor.peakRssMb} MiB`, `${processor.memoryMb} MiB`, String(processor.fraction)],
  ]));
}
