import { mkdirSync } from 'node:fs';
import { mapConcurrently } from '../../lambda/processor/processor';
import { LocalRunner } from '../local-runner/runner';
import { peakRssMb } from './bench-worker';
import { percentile } from './stats';

export interface FrontDoorLoad {
  /** Notifications per second the bank sends. */
  readonly ratePerSecond: number;
  readonly seconds: number;
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
  readonly processor: { readonly peakRssMb: number; readonly memoryMb: number; readonly verifiedEvents: number };
}

/**
 * The whole local flow (the example stack in the local runner: the bank simulator, the front
 * door, the receiver and processor bundles in their own processes, fauxqs) under the bank's
 * load: boletos are made first, then settled at `ratePerSecond` for `seconds`, each settlement
 * a notification the bank delivers at once. Ack time is the bank's own: from its POST to the
 * 200, as its delivery log records it. Peak memory is each function process's VmHWM.
 */
export async function frontDoorUnderLoad(load: FrontDoorLoad, logDir: string): Promise<FrontDoorResult> {
  mkdirSync(logDir, { recursive: true });
  const runner = await LocalRunner.start({ logDir });
  try {
    await runner.register();
    const total = load.ratePerSecond * load.seconds;
    const boletos = new Array<string>(total);
    await mapConcurrently(Array.from({ length: total }, (_, i) => i), 8, async (i) => {
      boletos[i] = (await runner.control.createBoleto({ valor: (10 + (i % 990)).toFixed(2) })).nossoNumero;
    });
    const since = (await runner.control.deliveries()).at(-1)?.seq ?? 0;

    // Open loop: settlements start on the clock, whatever the earlier ones are doing.
    const started = performance.now();
    const settling: Promise<unknown>[] = [];
    const tickMs = 50;
    const perTick = (load.ratePerSecond * tickMs) / 1000;
    await new Promise<void>((resolve) => {
      let next = 0;
      const timer = setInterval(() => {
        const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * load.ratePerSecond) + perTick);
        while (next < due) settling.push(runner.control.settleBoleto(boletos[next++], { canal: 'PIX' }));
        if (next >= total) {
          clearInterval(timer);
          resolve();
        }
      }, tickMs);
    });
    await Promise.all(settling);
    const offeredPerSecond = total / ((performance.now() - started) / 1000);
    if (!(await runner.control.waitForDeliveries(60_000))) throw new Error('the bank still had deliveries in flight a minute after the load ended');

    const deliveries = (await runner.control.deliveries(since)).filter((d) => d.kind === 'boleto');
    const delivered = deliveries.filter((d) => d.outcome === 'ENTREGUE');
    const durations = delivered.map((d) => d.durationMs);
    const receiverPid = runner.receiver.pid;
    const processorPid = runner.processor.pid;
    if (!receiverPid || !processorPid) throw new Error('a function process was not running at the end of the load; see the logs in ' + logDir);
    return {
      sent: deliveries.length,
      delivered: delivered.length,
      notDelivered: deliveries.length - delivered.length,
      ackP50Ms: percentile(durations, 50),
      ackP99Ms: percentile(durations, 99),
      ackMaxMs: Math.max(...durations),
      offeredPerSecond,
      receiver: { peakRssMb: peakRssMb(receiverPid), memoryMb: runner.deployment.receiver.memorySize },
      processor: { peakRssMb: peakRssMb(processorPid), memoryMb: runner.deployment.processor.memorySize, verifiedEvents: runner.counts().verifiedEvents },
    };
  } finally {
    await runner.stop();
  }
}
