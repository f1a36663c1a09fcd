import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { mapConcurrently } from '../../lambda/processor/processor';
import { LocalRunner } from '../local-runner/runner';
import { peakRssMb } from './bench-worker';
import { percentile } from './stats';

export interface FrontDoorLoad {
  /** Notifications per second the bank sends. */
  readonly ratePerSecond: number;
  readonly seconds: number;
  /** Seconds at the same rate before the measured window, not counted. */
  readonly warmupSeconds: number;
}

export interface FrontDoorResult {
  readonly sent: number;
  readonly delivered: number;
  readonly notDelivered: number;
  readonly ackP50Ms: number;
  readonly ackP99Ms: number;
  readonly ackMaxMs: number;
  /** Settlements the bank managed per second (the load actually offered). */
  readonly offeredPerSecond: number;
  readonly receiver: { readonly peakRssMb: number; readonly memoryMb: number };
  readonly processor: { readonly peakRssMb: number; readonly memoryMb: number; readonly verifiedEvents: number; readonly verifiedPerSecond: number; readonly seconds: number };
}

/**
 * Settles `boletos` at `ratePerSecond` in an open loop (each on the clock, whatever the earlier
 * ones are doing); every settlement is a notification the bank delivers at once.
 */
async function settleAtRate(runner: LocalRunner, boletos: readonly string[], ratePerSecond: number): Promise<void> {
  const settling: Promise<unknown>[] = [];
  const failures: string[] = [];
  const settle = (nossoNumero: string) => runner.control.settleBoleto(nossoNumero, { canal: 'PIX' }).catch((error: unknown) => {
    failures.push(error instanceof Error ? error.message : String(error));
  });
  const started = performance.now();
  const tickMs = 5; // one settlement per tick at 200/s: evenly spaced, not bursts of ten every 50 ms
  await new Promise<void>((resolve) => {
    let next = 0;
    const timer = setInterval(() => {
      const due = Math.min(boletos.length, Math.ceil(((performance.now() - started) / 1000) * ratePerSecond));
      while (next < due) settling.push(settle(boletos[next++]));
      if (next >= boletos.length) {
        clearInterval(timer);
        resolve();
      }
    }, tickMs);
  });
  await Promise.all(settling);
  if (failures.length) throw new Error(`${failures.length} of ${boletos.length} settlements failed at the control API (the load generator, not the flow measured): ${failures[0]}`);
}

/**
 * The whole local flow (the example stack in the local runner: the bank simulator, the front
 * door, the receiver and processor bundles in their own processes, fauxqs) under the bank's
 * load: boletos are made first, then settled at `ratePerSecond` for `seconds`, each settlement
 * a notification the bank delivers at once, after a warm-up at the same rate. Ack time is the bank's own: from its POST to the
 * 200, as its delivery log records it.
 *
 * On AWS the receiver and the processor never share a CPU; on a small machine they would. So
 * the processor is paused while the bank sends, and then works through the backlog the load
 * left (for as long as the load lasted). Peak memory is each function process's VmHWM.
 */
export async function frontDoorUnderLoad(load: FrontDoorLoad, logDir: string): Promise<FrontDoorResult> {
  mkdirSync(logDir, { recursive: true });
  const runner = await LocalRunner.start({ logDir });
  try {
    await runner.register();
    await runner.pauseProcessing();
    const total = load.ratePerSecond * load.seconds;
    const warmup = load.ratePerSecond * load.warmupSeconds;
    const boletos = new Array<string>(warmup + total);
    await mapConcurrently(Array.from({ length: boletos.length }, (_, i) => i), 8, async (i) => {
      boletos[i] = (await runner.control.createBoleto({ valor: (10 + (i % 990)).toFixed(2) })).nossoNumero;
    });
    // Warm-up: the receiver's first environment starts, and the JIT warms, at the same rate; not counted.
    await settleAtRate(runner, boletos.slice(0, warmup), load.ratePerSecond);
    if (!(await runner.control.waitForDeliveries(60_000))) throw new Error('the bank still had deliveries in flight a minute after the warm-up');
    const since = (await runner.control.deliveries()).at(-1)?.seq ?? 0;

    const started = performance.now();
    await settleAtRate(runner, boletos.slice(warmup), load.ratePerSecond);
    const offeredPerSecond = total / ((performance.now() - started) / 1000);
    if (!(await runner.control.waitForDeliveries(60_000))) throw new Error('the bank still had deliveries in flight a minute after the load ended');

    const deliveries = (await runner.control.deliveries(since)).filter((d) => d.kind === 'boleto');
    // The bank's delivery log, without bodies, for looking into the tail (kept with BENCH_KEEP).
    writeFileSync(join(logDir, 'deliveries.json'), JSON.stringify(deliveries.map(({ body: _body, ...record }) => record)));
    const delivered = deliveries.filter((d) => d.outcome === 'ENTREGUE');
    const durations = delivered.map((d) => d.durationMs);
    const receiverPid = runner.receiver.pid;
    if (!receiverPid) throw new Error(`the receiver's process was not running at the end of the load; see the logs in ${logDir}`);
    const receiverPeakRssMb = peakRssMb(receiverPid);

    const before = runner.counts().verifiedEvents;
    const drainStarted = performance.now();
    runner.resumeProcessing();
    await new Promise((resolve) => setTimeout(resolve, load.seconds * 1000));
    const processorPid = runner.processor.pid;
    if (!processorPid) throw new Error(`the processor's process was not running after the load; see the logs in ${logDir}`);
    const processorPeakRssMb = peakRssMb(processorPid);
    const drainSeconds = (performance.now() - drainStarted) / 1000;
    const verifiedEvents = runner.counts().verifiedEvents - before;
    await runner.pauseProcessing();
    return {
      sent: deliveries.length,
      delivered: delivered.length,
      notDelivered: deliveries.length - delivered.length,
      ackP50Ms: percentile(durations, 50),
      ackP99Ms: percentile(durations, 99),
      ackMaxMs: Math.max(...durations),
      offeredPerSecond,
      receiver: { peakRssMb: receiverPeakRssMb, memoryMb: runner.deployment.receiver.memorySize },
      processor: { peakRssMb: processorPeakRssMb, memoryMb: runner.deployment.processor.memorySize, verifiedEvents, verifiedPerSecond: verifiedEvents / drainSeconds, seconds: drainSeconds },
    };
  } finally {
    await runner.stop();
  }
}
